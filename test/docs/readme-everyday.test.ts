// The README's "Everyday questions" block (generated from the registry's examples with a question, the lines
// `rglob --help` lists under QUESTIONS): every command in it runs, as written, with the compiled binary as
// `rglob`, on a small project where each question has an answer. An agent copies these lines: a flag that stops
// parsing, or a command that finds nothing where the comment promises an answer, fails here.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, utimesSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, ROOT, tempTree } from "../helpers.ts";

/** The command lines of the generated questions block, without their comments. */
function everydayCommands(): string[] {
  const lines = readFileSync(join(ROOT, "README.md"), "utf8").split("\n");
  const at = lines.findIndex((l) => l.startsWith("<!-- BEGIN GENERATED: questions"));
  if (at < 0) throw new Error("README.md has no generated questions block");
  const out: string[] = [];
  for (let i = at + 2; i < lines.length && !(lines[i] as string).startsWith("```"); i++) {
    out.push((lines[i] as string).replace(/\s+#\s.*$/, "").trim());
  }
  return out;
}

const jpg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2_200_000, 7)]);
const t = tempTree({
  // A rule that decides nothing here (no *.tmp file): the answer to "which rules decide nothing".
  ".gitignore": "build/\n*.log\n*.tmp\n",
  "README.rst": "demo\n====\n",
  ".github/CONTRIBUTING.rst": "How to help.\n",
  "app/lib/settings.py":
    "# Reads the settings.\ndef load_settings(path):\n    # FIXME: validate\n    return open(path).read()\n",
  "scripts/build.py": "# FIXME: outside lib, not listed\n",
  // requests imported and a TODO comment; requests imported, TODO only in a string (grep --also, ADR 0064).
  "app/fetch.py": "import requests\n# TODO: retry\n",
  "app/upload.py": 'import requests\nMSG = "TODO"\n',
  "scripts/run.sh": "#!/bin/sh\n",
  "scripts/old.sh": { symlink: "missing.sh" },
  "lib/top.py": "# FIXME: a top-level lib/ is under any lib/ folder too\n",
  "photos/a.jpg": jpg,
  "public/b.jpg": jpg,
  "deploy/charts/values.yaml": "a: 1\n",
  "deploy/charts/web/values.yaml": "b: 2\n",
  "build/out/app.js": "x;\n",
  "logs/app.log": "12:00 connection reset by peer\n",
  // UTF-16LE without a BOM, as Windows tools write it (ADR 0039).
  "exports/report.txt": Buffer.from("Report\r\nTotal: 42\r\n", "utf16le"),
  // Latin-1, as older Windows tools write it (ADR 0041).
  "exports/latin.txt": Buffer.from("Zürich\n", "latin1"),
  // CR LF on some lines only, as an editor that kept a pasted line's end writes it (ADR 0048).
  "exports/notes.txt": "first\r\nsecond\n",
});
afterAll(() => t.cleanup());
// The file changed last (the others were written within the same instant).
const later = new Date(Date.now() + 10_000);
utimesSync(join(t.dir, "app/lib/settings.py"), later, later);
// The build output is older than every source.
const earlier = new Date(Date.now() - 3_600_000);
utimesSync(join(t.dir, "build/out/app.js"), earlier, earlier);
chmodSync(join(t.dir, "scripts/build.py"), 0o644);
chmodSync(join(t.dir, "scripts/run.sh"), 0o744);
// A link whose text is an absolute path into the tree: it works here and breaks when the tree moves.
mkdirSync(join(t.dir, "docs"));
symlinkSync(join(t.dir, "app/lib/settings.py"), join(t.dir, "docs/settings"));

/** What each command must print (the question's answer in this project), by its first words. */
const ANSWERS: ReadonlyArray<readonly [string, readonly string[], number]> = [
  ["rglob find -e py --changed-within", ["app/lib/settings.py", "scripts/build.py"], 0],
  [
    "rglob find -e py --newer-than-file",
    ["app/fetch.py\napp/lib/settings.py\napp/upload.py\nlib/top.py\nscripts/build.py\n"],
    0,
  ],
  ["rglob find -u -t f --format '{size} {rel}'", ["2200004 photos/a.jpg\n", "31 logs/app.log\n"], 0],
  // Not UTF-8, with the encoding of each: the Latin-1 and the UTF-16LE file; the jpgs are binary, not text.
  ["rglob find --saved-as '!utf-8'", ["exports/latin.txt: windows-1252\nexports/report.txt: utf-16le\n"], 0],
  // CR LF line ends: the UTF-16LE report on every line, the notes on some; the LF files not.
  ["rglob find --saved-as crlf,mixed", ["exports/notes.txt: mixed\nexports/report.txt: crlf\n"], 0],
  ["rglob find --only-ignored", ["build .gitignore:1:build/\n", "logs/app.log .gitignore:2:*.log\n"], 0],
  // The lines as grep prints them; the encoding of each file not in UTF-8 in a note (stderr, checked below).
  ["rglob grep -F 'Zürich' --encoding auto", ["exports/latin.txt:1:Zürich\n"], 0],
  ["rglob grep -w FIXME", ["app/lib/settings.py:3:", "lib/top.py:1:"], 0],
  ["rglob grep 'def load_settings", ["app/lib/settings.py:2:"], 0],
  ["rglob grep FIXME --in comment", ["app/lib/settings.py:3:", "scripts/build.py:1:"], 0],
  ["rglob grep -w requests --in code --also TODO", ["app/fetch.py\n"], 0],
  ["rglob grep FIXME --in all", ["app/lib/settings.py:3:[comment]:", "lib/top.py:1:[comment]:"], 0],
  ["rglob count --by language", ["Python", "reStructuredText"], 0],
  ["rglob count --classify", ["app/lib/settings.py", "comment"], 0],
  // app/ 3, scripts/ 1, lib/ 1 (the ignored log holds none); then the totals.
  ["rglob grep 'TODO|FIXME' --by dir", ["app ", "lib ", "scripts ", "total: 5 matching lines"], 0],
  ["rglob find -t f --sort mtime", ["app/lib/settings.py\n"], 0],
  ["rglob count -e rst", ["2 files"], 0],
  // The top-level folders only, each with every file below it (deploy/ holds deploy/charts/web/values.yaml).
  ["rglob top -D --max-depth 1", ["2.1 MiB (2200004 B)  photos/", "public/", "deploy/"], 0],
  ["rglob top", ["2.1 MiB (2200004 B)  photos/a.jpg", "public/b.jpg"], 0],
  ["rglob dupes", ["photos/a.jpg\npublic/b.jpg\n", "2200004 bytes wasted"], 0],
  ["rglob find -e yaml --base", ["deploy/charts/values.yaml", "deploy/charts/web/values.yaml"], 0],
  ["rglob find -t l", ["scripts/old.sh -> missing.sh: broken\n"], 0],
  [
    "rglob find --link broken,escaping,absolute",
    ["docs/settings -> /", "app/lib/settings.py: ok, absolute\n", "scripts/old.sh -> missing.sh: broken\n"],
    0,
  ],
  ["rglob find -t f --perm '!/111'", ["scripts/build.py\n"], 0],
  ["rglob find --base scripts --format", ["644 ", " build.py\n", "744 ", " run.sh\n", "777 "], 0],
  ["rglob tree --fold-depth 2", ["lib [1 entry, ", " bytes below]", "folded"], 0],
  ["rglob grep -F 'Total:'", ["exports/report.txt:2:Total: 42\n"], 0],
  [
    "rglob explain --all",
    ["build/: not included, with the 2 entries inside", "ignored by .gitignore:2: *.log"],
    0,
  ],
  [
    "rglob explain --under build",
    ["build/out/app.js: not included\n  its directory 'build' is ignored by .gitignore:1: build/"],
    0,
  ],
  ["rglob explain --rules --only unused", [".gitignore:3: *.tmp  (decides nothing)\n"], 0],
  ["rglob explain", [".gitignore:1", ".gitignore:2"], 0],
  ["rglob grep -u -F", ["logs/app.log:1:"], 0],
  ["rglob grep -F 'connection reset' --only-ignored", ["logs/app.log:1:"], 0],
  ["rglob stats", ["files"], 0],
];

describe("README: everyday questions, one command each", () => {
  const commands = everydayCommands();
  test("the block lists a command for each answer checked here", () => {
    expect(commands.length).toBe(ANSWERS.length);
  });
  test.each(commands)("%s", (command) => {
    const answer = ANSWERS.find(([start]) => command.startsWith(start));
    expect(answer).toBeDefined();
    const [, expected, code] = answer as (typeof ANSWERS)[number];
    const r = Bun.spawnSync(["bash", "-c", command], {
      cwd: t.dir,
      env: { ...process.env, PATH: `${dirname(BIN)}:${process.env.PATH ?? ""}`, NO_COLOR: "1", HOME: t.dir },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = r.stdout.toString();
    expect({ code: r.exitCode, stderr: r.stderr.toString() }).toEqual({ code, stderr: expect.any(String) });
    for (const text of expected) expect(out).toContain(text);
    if (command.startsWith("rglob grep -w FIXME")) expect(out).not.toContain("scripts/build.py");
    if (command.startsWith("rglob grep -F 'Zürich'"))
      expect(r.stderr.toString()).toContain("exports/latin.txt (windows-1252)");
    if (command.startsWith("rglob top -D")) expect(out).not.toContain("deploy/charts");
    if (command.startsWith("rglob find -t f --sort mtime")) {
      expect(out.split("\n")[0]).toBe("app/lib/settings.py");
      expect(out.trim().split("\n")).toHaveLength(5);
    }
  });
});
