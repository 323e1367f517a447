/*! CLI: other tools' spellings that would parse as something else here, or not at all. find(1)'s primaries are
 * single-dash words (`-name`, `-type`), which a short-flag parser reads as bundled letters (`-type` = `-t ype`)
 * and then fails on with an error about the wrong thing. grep's, ripgrep's and fd's flags that rglob spells
 * differently (`--include`, rg's `--files`, fd's `-I`, `-p`, `-x`, `-l`) would be an unknown flag with no
 * hint, and ripgrep's file types a bad entry kind. A bare number (`-5`: head's
 * count, grep's lines of context) is no flag of any command. These are answered with the
 * rglob spelling. Only exact words (and `--flag=value`) are caught, so no bundle of real short flags is affected
 * and a command that defines one of these letters keeps it. Never reads files. */

import { fileTypeNamed } from "../../engine/languages.ts";

/** find(1) primaries and what to write instead. */
const FIND_PRIMARIES: Readonly<Record<string, string>> = {
  "-name": "give the glob as an operand: rglob find '*.py' (a glob without '/' matches the name)",
  "-iname": "give the glob as an operand with --case-insensitive: rglob find '*.py' --case-insensitive",
  "-path":
    "give the glob as an operand: a glob with '/' or '**' matches the relative path (rglob find 'src/**/*.py')",
  "-ipath": "give the glob as an operand with --case-insensitive (a glob with '/' matches the relative path)",
  "-type": "use -t (--type): -t f, -t d, -t l",
  "-maxdepth": "use -d N (--max-depth N)",
  "-mindepth": "use --min-depth N",
  "-size": "use --min-size and --max-size (e.g. --min-size 1M, --max-size 10k)",
  "-mtime": "use --newer-than / --older-than with a duration or a date (e.g. --newer-than 7d)",
  "-mmin": "use --newer-than / --older-than with a duration (e.g. --newer-than 30m)",
  "-newer": "use --newer-than-file FILE",
  "-perm": "use --perm (644, -111 all bits, /222 any bit, !/111 none of them)",
  "-links": "use --links N (+1: more than one hard link)",
  "-xtype": "use --link file or --link dir (where a link's chain ends)",
  "-user": "use --uid N",
  "-group": "use --gid N",
  "-empty": "use -t e",
  "-executable": "use -t x",
  "-print": "paths are printed by default",
  "-print0": "use -0",
  "-exec": "rglob is read-only: pipe its output instead (rglob find -0 … | xargs -0 …)",
  "-execdir": "rglob is read-only: pipe its output instead (rglob find -0 … | xargs -0 …)",
  "-delete": "rglob is read-only: pipe its output instead (rglob find -0 … | xargs -0 rm)",
  "-prune": "use -E GLOB (--exclude): a matching directory is not entered",
  "-follow": "use -L (--follow)",
};

/** grep's and ripgrep's flags that no rglob command defines, and what to write instead. */
const GREP_FLAGS: Readonly<Record<string, string>> = {
  "--include": "use -g GLOB (--glob): rglob grep PATTERN -g '*.py'",
  "--exclude-dir": "use -E GLOB (--exclude): a matching directory is not entered",
  "--no-filename": "use --no-with-filename",
  "-R": "directories are always searched recursively: drop -R (-L follows symlinks)",
  "-I": "binary files are skipped by default (-a searches them as text); rg's -I (no file names) is --no-with-filename",
  "-P": "patterns are read in ripgrep's dialect, and lookaround, back-references, lazy quantifiers and named groups work as in PCRE2: drop -P",
};

/** ripgrep's and fd's flags that no rglob command defines, and what to write instead, by command. */
const PEER_FLAGS: Readonly<Record<string, (command: string, flag: string) => string>> = {
  "--files": () =>
    "'--files' is rg's spelling (list the files a search would read); here, use rglob find -t f (the same walk, ignore rules and globs)",
  "-p": fullPath,
  "--full-path": fullPath,
  "-x": readOnly,
  "-X": readOnly,
  "--exec": readOnly,
  "--exec-batch": readOnly,
  "-l": listDetails,
  "--list-details": listDetails,
  "-i": ignoreCase,
  "--ignore-case": ignoreCase,
  "-F": (command, flag) =>
    `'${flag}' is fd's --fixed-strings; here, operands are globs, and a name without * ? [ ] { } is matched literally already (${command} 'a.b')`,
  "--fixed-strings": (command, flag) =>
    `'${flag}' is fd's spelling; here, operands are globs, and a name without * ? [ ] { } is matched literally already (${command} 'a.b')`,
  "--iglob": (command) =>
    `'--iglob' is rg's spelling; here, use -g GLOB with ${command === "rglob grep" ? "--glob-case-insensitive" : "--case-insensitive"} (globs in either case)`,
  "--glob-case-insensitive": () => "'--glob-case-insensitive' is rg's spelling; here, use --case-insensitive",
  "--sort": sortedAlready,
  "--sortr": sortedAlready,
};

function ignoreCase(_command: string, flag: string): string {
  return `'${flag}' is fd's spelling (ignore case); here, use --case-insensitive (globs match names in either case)`;
}
function sortedAlready(_command: string, flag: string): string {
  return `'${flag}' is rg's spelling; here, grep's results are always in path order (walk order, as rg --sort path): drop it, or order files with rglob find --sort KEY`;
}

function fullPath(command: string, flag: string): string {
  return `'${flag}' is fd's --full-path; here, a glob with '/' or '**' matches the relative path: ${command} '**/src/**/*.ts'`;
}
function readOnly(command: string): string {
  return `fd's -x/-X run a command; rglob is read-only: pipe its output instead (${command} -0 … | xargs -0 …)`;
}
function listDetails(command: string, flag: string): string {
  return `'${flag}' is fd's --list-details; here, print the details with --format '{size} {mtime} {path}' (${command} --format …) or take them from --json`;
}

/**
 * Returns the usage error for an argument spelled as in find(1), grep or ripgrep, or null for any other.
 * @param arg one command-line argument
 * @param usage how the command starts, e.g. "rglob find" or "rglob grep PATTERN" (the examples use it)
 * @param defined whether the command defines this spelling itself (then it is never caught)
 * @returns the message, or null
 */
export function foreignSpelling(
  arg: string,
  usage: string,
  defined: (flag: string) => boolean,
): string | null {
  const flag = arg.startsWith("--") && arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg;
  const command = usage.split(" ").slice(0, 2).join(" ");
  // fd's -I is --no-ignore (grep's -I, skip binary files, is answered below for grep).
  if (flag === "-I" && command !== "rglob grep" && !defined(flag))
    return "'-I' is fd's spelling; here, use --no-ignore (hidden entries are included by default)";
  const peer = PEER_FLAGS[flag];
  if (peer !== undefined && !defined(flag)) return peer(command, flag);
  const grep = GREP_FLAGS[flag];
  if (grep !== undefined && !defined(flag))
    return `'${flag}' is grep's spelling; here, ${grep.replaceAll("rglob grep PATTERN", usage)}`;
  if (/^-\d+$/.test(arg) && !defined(arg)) {
    return `'${arg}' is not a flag of '${command}': a number of results is --limit N, grep's lines of context are -C N, and an operand that begins with '-' goes after '--' (${command} -- '${arg}')`;
  }
  return findSpelling(arg, usage);
}

/**
 * Returns the letter of one of fd's long names of an entry kind (`fd --type file` = `-t f`), which the CLI takes
 * with fd's meaning, or undefined for any other value.
 * @param value a value of -t/--type
 * @returns the letter, or undefined
 */
export function fdKindLetter(value: string): string | undefined {
  return Object.hasOwn(FD_KIND_WORDS, value) ? FD_KIND_WORDS[value] : undefined;
}

/** fd's long names of entry kinds and their letters. */
const FD_KIND_WORDS: Readonly<Record<string, string>> = {
  file: "f",
  directory: "d",
  symlink: "l",
  executable: "x",
  empty: "e",
  socket: "s",
  pipe: "p",
  "block-device": "b",
  "char-device": "c",
};

/**
 * Returns the usage error for an entry kind that is one of ripgrep's file types (`-t py`), or null.
 * @param flag the flag as typed (-t or --type)
 * @param value its value
 * @returns the message, or null
 */
export function fileTypeSpelling(flag: string, value: string): string | null {
  if (!/^[a-z][a-z0-9+]+$/.test(value)) return null;
  const kinds = `${flag} selects entry kinds here, as in fd (f file, d directory, l symlink, x executable, e empty, p s b c)`;
  if (fileTypeNamed(value) !== undefined)
    return `${kinds}; for rg's file type '${value}' use --lang ${value} (and --type-not/-T ${value} to leave it out)`;
  return `${kinds}; '${value}' is no file type here either (--type-list lists them; --type-add defines one), or give a glob: -g '*.${value}'`;
}

/**
 * Returns the usage error for an argument spelled as in find(1), or null for any other argument.
 * @param arg one command-line argument
 * @param usage how the command starts, e.g. "rglob find" or "rglob grep PATTERN" (the examples use it)
 * @returns the message, or null
 */
function findSpelling(arg: string, usage: string): string | null {
  const hint = FIND_PRIMARIES[arg];
  if (hint === undefined) return null;
  return `'${arg}' is find(1)'s spelling; here, ${hint.replaceAll("rglob find '", `${usage} '`)}`;
}
