/*! Engine: explain. Replays the walk's decisions for one path, component by component from its root, and says
 * which stage keeps it out of the results (or lets it in): root, base, listing, .git, hidden, symlinks,
 * --exclude, ignore rules (file, line, pattern), depth, then each predicate by name. It uses the same compiled
 * plan as the walk for the verdict and never walks anything but the path's own directories. */
import * as path from "node:path";
import { type ErrorInfo, fsErrorInfo } from "../contract/errors.ts";
import type { WalkOptions } from "../contract/walk-options.ts";
import type { DirListing, EntryType } from "../platform/listing.ts";
import { basenamePath, joinPath, relativePath } from "../platform/names.ts";
import { type Confinement, insideDir, platform, typeIn, typeOfStats } from "../platform/platform.ts";
import { compileSavedAs, fileEncoding, fileEol, type SavedAs } from "./filter/encoding.ts";
import { compileLinkSelect, compileNlink, nlinkOf } from "./filter/links.ts";
import { compilePerm, permList } from "./filter/perm.ts";
import { sizeRange } from "./filter/size.ts";
import { parseTimePoint } from "./filter/time.ts";
import { compileTypes, kindsOf } from "./filter/type.ts";
import { anyGlob, compileGlob, defaultCaseSensitive, isNegated } from "./glob.ts";
import { dirChain, type IgnoreFile, loadTreeIgnoreFile, matchChain } from "./ignore.ts";
import { type LinkInfo, linkOf, whereItLeads } from "./links.ts";
import { leavesDir, toPosix } from "./plan.ts";
import { Entry, followedType, type Root, VCS_DIRS, type WalkPlan } from "./walk.ts";

/** A stage of the walk that decides about a path. */
type ExplainStage =
  | "root"
  | "outside_base"
  | "unreadable"
  | "git_dir"
  | "hidden"
  | "symlink"
  | "exclude"
  | "ignore"
  | "depth"
  | "types"
  | "patterns"
  | "size"
  | "time"
  | "perm"
  | "owner"
  | "links"
  | "encoding"
  | "missing"
  | "selected";

/** One reason of a verdict. */
interface Reason {
  stage: ExplainStage;
  detail: string;
  file?: string;
  line?: number;
  pattern?: string;
  /** A reason about a symlink: the link (relative to the base) and its text (readlink). */
  link?: string;
  link_target?: string;
}

/** Where a path reached through symlinks (or a symlink itself) really is, and whether find lists it there. */
interface RealPath {
  /** Relative to the base when inside it, absolute outside (as link_resolved). */
  readonly path: string;
  /** The verdict on the real path with the same options; absent when it is outside the base or missing. */
  readonly included?: boolean;
}

/** The verdict on one path. */
export interface PathVerdict {
  readonly included: boolean;
  readonly reasons: Reason[];
  /** Present when a symlink is on the path's way (or is the path): where it really is. */
  readonly real?: RealPath;
  /** False when the path does not exist: its verdict is what the ignore rules would make of it. */
  readonly exists?: false;
}

/** A named predicate: its stage, and a test that returns null when the entry passes, else why it fails. */
interface NamedCheck {
  readonly stage: ExplainStage;
  readonly why: (e: Entry) => string | null;
  /** What a passing entry is told (patterns only). */
  readonly pass?: (e: Entry) => string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Compiles the query's predicates one by one, so that a failing one can be named. The verdict itself always
 * comes from the plan's own `select`; these only explain it.
 * @param o the walk options
 * @param base the absolute base (for newer_than_file)
 * @param confine what a file opened to read its head must be (saved_as)
 * @returns the named checks, in the order the plan applies them
 */
function namedChecks(o: WalkOptions, base: string, confine: Confinement): NamedCheck[] {
  const out: NamedCheck[] = [];
  const cs = o.case_sensitive ?? defaultCaseSensitive();
  const positive = o.patterns.filter((g) => !isNegated(g));
  if (positive.length > 0) {
    const globs = positive.map((g) => {
      const glob = compileGlob(g, cs);
      return { g, dirOnly: glob.dirOnly, test: anyGlob([glob]) };
    });
    out.push({
      stage: "patterns",
      why: (e) => {
        const isDir = e.target === "dir";
        if (globs.some((x) => x.test(e.rel, e.name, isDir))) return null;
        const none = `matches none of the globs ${positive.map((g) => `'${g}'`).join(", ")}`;
        // A glob ending in '/' that matches the name of an entry that is not a directory.
        const dirOnly = globs.find((x) => x.dirOnly && !isDir && x.test(e.rel, e.name, true));
        return dirOnly ? `${none} ('${dirOnly.g}' ends in '/': directories only, and it is not one)` : none;
      },
      pass: (e) => {
        const hit = globs.find((x) => x.test(e.rel, e.name, e.target === "dir"));
        return hit ? `matches the glob '${hit.g}'` : null;
      },
    });
  }
  if (o.types.length > 0) {
    const test = compileTypes(o.types, o.follow_symlinks);
    out.push({
      stage: "types",
      why: (e) =>
        test(e)
          ? null
          : `its kinds (${kindsOf(e, o.types.includes("e")).join("") || "none"}) are not among --type ${o.types.join(",")}`,
    });
  }
  const range = sizeRange(o.min_size, o.max_size);
  if (range) {
    const [lo, hi] = range;
    out.push({
      stage: "size",
      why: (e) => {
        const size = e.stats()?.size;
        if (size === undefined) return "its size cannot be read";
        if (size < lo) return `its size ${size} B is below min_size (${lo} B)`;
        if (size > hi) return `its size ${size} B is above max_size (${hi} B)`;
        return null;
      },
    });
  }
  const now = Date.now();
  const time = (flag: string, t: number, newer: boolean): NamedCheck => ({
    stage: "time",
    why: (e) => {
      const m = e.stats()?.mtimeMs;
      if (m === undefined) return "its modification time cannot be read";
      if (newer ? m > t : m < t) return null;
      return `modified ${iso(m)}, not ${newer ? "after" : "before"} ${iso(t)} (${flag})`;
    },
  });
  if (o.newer_than !== undefined)
    out.push(time("newer_than", parseTimePoint(o.newer_than, "newer_than", now), true));
  if (o.older_than !== undefined)
    out.push(time("older_than", parseTimePoint(o.older_than, "older_than", now), false));
  if (o.newer_than_file !== undefined) {
    try {
      const t = platform.stat(path.resolve(base, o.newer_than_file)).mtimeMs;
      out.push(time("newer_than_file", t, true));
    } catch {}
  }
  for (const perm of permList(o.perm)) {
    const test = compilePerm(perm);
    out.push({
      stage: "perm",
      why: (e) => {
        const st = e.stats();
        if (!st) return "its mode cannot be read";
        return test(st.mode)
          ? null
          : `its mode ${(st.mode & 0o7777).toString(8)} does not satisfy --perm ${perm}`;
      },
    });
  }
  const links = o.links ?? [];
  if (links.length > 0) {
    const select = compileLinkSelect(links);
    out.push({
      stage: "links",
      why: (e) => {
        const link = linkOf(e);
        if (link === null) return `it is not a symlink (--link ${links.join(",")})`;
        if (select(link)) return null;
        return `its link (-> ${link.target}) is not ${links.join(" or ")}`;
      },
    });
  }
  if (o.nlink !== undefined) {
    // find's -links (--links), under the links stage: its why names the flag.
    const test = compileNlink(o.nlink);
    const want = o.nlink;
    out.push({
      stage: "links",
      why: (e) => {
        const n = nlinkOf(e);
        if (n === null) return "its link count cannot be read";
        return test(n) ? null : `its link count ${n} is not ${want} (--links)`;
      },
    });
  }
  const savedAs = compileSavedAs(o.saved_as ?? []);
  if (savedAs !== null) out.push(encodingCheck(savedAs, confine));
  const { uid, gid } = o;
  if (uid !== undefined || gid !== undefined) {
    out.push({
      stage: "owner",
      why: (e) => {
        const st = e.stats();
        if (!st) return "its owner cannot be read";
        if (uid !== undefined && st.uid !== uid) return `its owner uid ${st.uid} is not ${uid}`;
        if (gid !== undefined && st.gid !== gid) return `its group gid ${st.gid} is not ${gid}`;
        return null;
      },
    });
  }
  return out;
}

/**
 * The saved_as check (#37): the encoding a file's head is saved in and its line ends, or why it has none to test.
 * @param s the compiled saved_as
 * @param confine what an opened file must be
 * @returns the named check
 */
function encodingCheck(s: SavedAs, confine: Confinement): NamedCheck {
  const words = s.words.join(",");
  const read = (e: Entry, of: typeof fileEncoding): string => {
    try {
      return of(e, confine) ?? "";
    } catch (err) {
      return `?${fsErrorInfo(err, e.abs).message}`;
    }
  };
  return {
    stage: "encoding",
    why: (e) => {
      if (e.target !== "file")
        return `it is not a regular file (--saved-as ${words} reads files${e.type === "symlink" ? "; -L follows a link to one" : ""})`;
      const name = read(e, fileEncoding);
      if (name.startsWith("?")) return `its first bytes cannot be read: ${name.slice(1)}`;
      if (name === "binary" && (words.includes("!") || s.eol !== null))
        return `it is binary (a NUL byte in its first 8 KiB), not text: ${s.eol !== null ? `--saved-as ${words} names line ends, which only text files have` : `a '!' in --saved-as ${words} keeps text files only`}`;
      if (s.encoding !== null && !s.encoding(name))
        return `it is saved as ${name}, not selected by --saved-as ${words}`;
      if (s.eol === null) return null;
      const eol = read(e, fileEol);
      if (eol.startsWith("?")) return `its text cannot be read: ${eol.slice(1)}`;
      return s.eol(eol) ? null : `its line ends are ${eol}, not selected by --saved-as ${words}`;
    },
    pass: (e) =>
      `saved as ${read(e, fileEncoding)}${s.eol === null ? "" : `, line ends ${read(e, fileEol)}`} (--saved-as ${words})`,
  };
}

function shown(file: string, base: string): string {
  const rel = relativePath(base, file);
  return leavesDir(rel) ? file : toPosix(rel);
}

/** The most ignore files a "no rule matches" note names; the others are counted. */
const CONSULTED_NAMED = 8;

/**
 * Says that no ignore rule matches a path, and which ignore files were consulted, with how many rules each holds
 * (lines that are neither blank nor comments), as the walk consults them: the global excludes file and
 * .git/info/exclude, then each directory's .gitignore and .ignore from the top down.
 * @param chain the ignore files that apply to the path
 * @param base the request's base (the files are named relative to it)
 * @returns the detail
 */
function noRuleMatches(chain: readonly IgnoreFile[], base: string): string {
  if (chain.length === 0) return "no ignore rule matches it: no ignore file applies here";
  const rules = (f: IgnoreFile) => f.lines.filter((l) => l.trim() !== "" && !l.startsWith("#")).length;
  const total = chain.reduce((n, f) => n + rules(f), 0);
  const named = chain
    .slice(0, CONSULTED_NAMED)
    .map((f) => `${shown(f.file, base)} (${rules(f)})`)
    .join(", ");
  const more = chain.length > CONSULTED_NAMED ? ` and ${chain.length - CONSULTED_NAMED} more` : "";
  return `no ignore rule matches it: none of the ${total} ${total === 1 ? "rule" : "rules"} of ${named}${more}`;
}

/** The listings and ignore files one call reads, read once for all the paths it explains. */
interface ExplainMemo {
  list(dir: string): DirListing;
  ignoreFile(file: string, keyPrefix: string, report: (info: ErrorInfo) => void): IgnoreFile | null;
}

/**
 * Creates the memo of the directories and ignore files a call to explain reads (many paths share their
 * directories: each is listed, and each ignore file read, once).
 * @param plan the compiled walk (its confinement)
 * @returns the memo
 */
export function explainMemo(plan: WalkPlan): ExplainMemo {
  const listings = new Map<string, DirListing | { error: unknown }>();
  const files = new Map<string, IgnoreFile | null>();
  return {
    list(dir) {
      let l = listings.get(dir);
      if (l === undefined) {
        try {
          l = platform.listDir(dir, plan.confine);
        } catch (error) {
          l = { error };
        }
        listings.set(dir, l);
      }
      if ("error" in l) throw l.error;
      return l;
    },
    ignoreFile(file, keyPrefix, report) {
      const key = `${keyPrefix}\0${file}`;
      let f = files.get(key);
      if (f === undefined) {
        f = loadTreeIgnoreFile(file, keyPrefix, report, plan.confine) ?? null;
        files.set(key, f);
      }
      return f;
    },
  };
}

/** What the explanation of one path gathers: the reasons that keep it out, and notes on what let it in. */
interface Findings {
  readonly out: Reason[];
  readonly notes: Reason[];
  /** That no ignore rule matches the path, and the files consulted, said in the verdict when it is included. */
  unmatched?: string;
  /** Adds a reason that keeps the path out, the first of each stage only (the one nearest the root). */
  readonly block: (reason: Reason) => void;
}

/** Starts the findings of one path. */
function newFindings(): Findings {
  const out: Reason[] = [];
  const seen = new Set<ExplainStage>();
  return {
    out,
    notes: [],
    block: (reason) => {
      if (seen.has(reason.stage)) return;
      seen.add(reason.stage);
      out.push(reason);
    },
  };
}

/**
 * Judges the path's own entry, once every directory above it let it through: depth, then the predicates by
 * name, then whether directories can be selected at all.
 * @returns the verdict, with the findings of the directories above
 */
function verdictOnEntry(
  plan: WalkPlan,
  o: WalkOptions,
  checks: readonly NamedCheck[],
  e: Entry,
  isDir: boolean,
  found: Findings,
): PathVerdict {
  const { out, notes } = found;
  const depth = e.depth;
  if (depth > plan.maxDepth) {
    out.push({
      stage: "depth",
      detail: `too deep: at depth ${depth} below its root, max_depth is ${plan.maxDepth}`,
    });
  }
  if (depth < plan.minDepth) {
    out.push({
      stage: "depth",
      detail: `too shallow: at depth ${depth} below its root, min_depth is ${plan.minDepth}`,
    });
  }
  const selected = plan.select(e);
  if (!selected) {
    const failed = checks
      .map((c) => ({ stage: c.stage, why: c.why(e) }))
      .filter((x): x is { stage: ExplainStage; why: string } => x.why !== null);
    if (failed.length === 0)
      out.push({ stage: "patterns", detail: "not selected by the query's predicates" });
    for (const f of failed) out.push({ stage: f.stage, detail: f.why });
  }
  // The walk does not even test directories when --type cannot select one.
  if (isDir && !plan.selectDirs && !out.some((x) => x.stage === "types")) {
    out.push({ stage: "types", detail: `directories are not selected by --type ${o.types.join(",")}` });
  }
  if (out.length > 0) return { included: false, reasons: out };
  for (const c of checks) {
    const note = c.pass?.(e);
    if (note) notes.push({ stage: c.stage, detail: note });
  }
  // The "ignore" stage is kept for a rule that matched (its file, line and pattern): that none did is said here.
  const unmatched = found.unmatched === undefined ? "" : `; ${found.unmatched}`;
  notes.push({ stage: "selected", detail: `listed by find with these options${unmatched}` });
  return { included: true, reasons: notes };
}

/**
 * Tells which exclude glob (or negated glob) a component matches, when the plan's exclude does.
 * @returns the reason, or null when it is not excluded
 */
function excludeReason(
  plan: WalkPlan,
  o: WalkOptions,
  rel: string,
  name: string,
  isDir: boolean,
  what: string,
): Reason | null {
  if (!plan.exclude?.(rel, name, isDir)) return null;
  const cs = o.case_sensitive ?? defaultCaseSensitive();
  const g = o.exclude.find((x) => anyGlob([compileGlob(x, cs)])(rel, name, isDir));
  const neg = o.patterns.find(
    (x) => isNegated(x) && anyGlob([compileGlob(x.slice(1), cs)])(rel, name, isDir),
  );
  const detail =
    g === undefined && neg !== undefined
      ? `${what} matches the negated glob '${neg}'`
      : `${what} matches --exclude '${g ?? ""}'`;
  return { stage: "exclude", detail, pattern: g ?? neg ?? "" };
}

/**
 * Tests one component against the ignore chain as the walk does: only the component itself (its ancestors
 * below the root were tested as components already, and those above the root are not tested at all: a walk
 * that starts inside an ignored directory lists what is below it).
 * @returns the rule that ignores it (`block`) or re-includes the path itself (`note`), or null for no rule
 */
function ignoreFinding(
  chain: readonly IgnoreFile[],
  key: string,
  name: string,
  isDir: boolean,
  rel: string,
  last: boolean,
  base: string,
): { readonly block?: Reason; readonly note?: Reason } | null {
  const m = matchChain(chain, key, name, isDir);
  if (m === null) return null;
  const rule = { file: m.file.file, line: m.rule.line, pattern: m.rule.pattern };
  const where = `${shown(rule.file, base)}:${rule.line}`;
  if (!m.rule.negate) {
    const detail = last
      ? `ignored by ${where}: ${rule.pattern}`
      : `its directory '${rel}' is ignored by ${where}: ${rule.pattern}`;
    return { block: { stage: "ignore", detail, ...rule } };
  }
  return last
    ? { note: { stage: "ignore", detail: `re-included by ${where}: ${rule.pattern}`, ...rule } }
    : {};
}

/**
 * Returns a symlink's facts as reason fields, and its words: `rel -> target`.
 * @param compAbs the link's absolute path
 * @param rel its POSIX path relative to the base
 * @returns the fields and the words, or null when it cannot be read as a link
 */
function linkFacts(
  compAbs: string,
  rel: string,
): { readonly fields: Partial<Reason>; readonly info: LinkInfo; readonly words: string } | null {
  const info = linkOf({ abs: compAbs, rel, type: "symlink" });
  if (info === null) return null;
  return {
    info,
    words: `${rel} -> ${info.target}`,
    // Where it leads, broken or outside, is the explanation's real_path (said in the detail too).
    fields: { link: rel, link_target: info.target },
  };
}

/**
 * Tells whether the walk enters a directory component on the way to the path, and why not: it is not one, it is a
 * link not followed, or (following links) it is a filesystem loop; records its identity on the path. A component
 * the walk does not enter ends the replay: nothing below it is read (listing a link not followed as a directory
 * is what answered a false "cannot be listed: ENOTDIR").
 * @param onPath device/inode pairs of the directories from the root down (following links only)
 * @returns whether the walk enters it, and the reason when it does not (none when one was given already)
 */
function descent(
  plan: WalkPlan,
  type: EntryType,
  isDir: boolean,
  compAbs: string,
  rel: string,
  onPath: string[],
): { readonly enter: boolean; readonly reason?: Reason } {
  if (!isDir) {
    // Following links, a link the walk does not follow is one that leads outside a strict base (that reason is
    // given already) or leads nowhere (nothing can be below it).
    if (type === "symlink" && plan.follow) return { enter: false };
    if (type !== "symlink")
      return { enter: false, reason: { stage: "symlink", detail: `'${rel}' is not a directory` } };
    const facts = linkFacts(compAbs, rel);
    const words = facts === null ? "a symlink" : `the symlink ${facts.words}`;
    return {
      enter: false,
      reason: {
        stage: "symlink",
        detail: `its directory '${rel}' is ${words}, which is not followed (--follow follows it)`,
        ...facts?.fields,
      },
    };
  }
  const enters = descentIdentity(plan, compAbs, rel, onPath);
  return enters === null ? { enter: true } : { enter: false, reason: enters };
}

/**
 * Records a directory's identity on the path when following links, and tells a filesystem loop.
 * @returns the reason the walk does not enter it, or null when it does
 */
function descentIdentity(plan: WalkPlan, compAbs: string, rel: string, onPath: string[]): Reason | null {
  if (!plan.follow) return null;
  try {
    const st = platform.stat(compAbs);
    const id = `${st.dev}:${st.ino}`;
    const loop = onPath.includes(id);
    onPath.push(id);
    if (loop)
      return {
        stage: "symlink",
        detail: `its directory '${rel}' is a filesystem loop (already on the path); the walk does not enter it`,
      };
    return null;
  } catch (err) {
    return { stage: "unreadable", detail: `'${rel}' cannot be read: ${fsErrorInfo(err, compAbs).message}` };
  }
}

/**
 * Resolves a component's type as the walk sees it (from the listing, else lstat; a followed link's target), and
 * under a strict base turns a followed link that leads outside it into a link that is not followed.
 * @returns the type and target, or null when the component cannot be read (a reason is added)
 */
function componentTypes(
  plan: WalkPlan,
  listing: DirListing,
  name: string,
  compAbs: string,
  rel: string,
  what: string,
  last: boolean,
  found: Findings,
): { readonly type: EntryType; readonly target: EntryType } | null {
  let type: EntryType = typeIn(listing, name);
  let target: EntryType = type;
  try {
    if (type === "unknown") type = target = typeOfStats(platform.lstat(compAbs));
    if (type === "symlink" && plan.follow) target = followedType(compAbs);
  } catch (err) {
    found.block({
      stage: "unreadable",
      detail: `${what} cannot be read: ${fsErrorInfo(err, compAbs).message}`,
    });
    return null;
  }
  // As in the walk, a dangling link (target "symlink") is not judged: nothing is read through it.
  if (type === "symlink" && plan.follow && plan.strictBase && target !== "symlink") {
    let real = compAbs;
    try {
      real = platform.realpath(compAbs);
    } catch {}
    // As in the walk: such a link is listed as a link (link_escapes), never followed.
    if (!insideDir(real, plan.baseReal)) {
      target = "symlink";
      // A last component says so in its link note (underRoot).
      if (!last) {
        const facts = linkFacts(compAbs, rel);
        const words = facts === null ? "a symlink" : `the symlink ${facts.words}`;
        found.block({
          stage: "outside_base",
          detail: `${what} is ${words}, which leads outside the base (to ${real}) and is not followed under strict_base`,
          ...facts?.fields,
        });
      }
    }
  }
  return { type, target };
}

/**
 * Says what the path, a symlink, is: its text and where it leads, and how the walk takes it (as a link, or its
 * target when followed). A note: it lets nothing in or out by itself.
 * @param target the type the walk gives it ("symlink" when not followed)
 * @returns the note
 */
function linkNote(plan: WalkPlan, compAbs: string, rel: string, target: EntryType): Reason {
  const facts = linkFacts(compAbs, rel);
  if (facts === null) return { stage: "symlink", detail: "it is a symlink" };
  const { info } = facts;
  // Where it leads is said once, by the real path after this note (explainPath).
  let where = info.escapes ? ", which leads outside the base" : "";
  if (!info.exists) {
    let loop = false;
    try {
      platform.stat(compAbs);
    } catch (err) {
      loop = (err as { code?: unknown }).code === "ELOOP";
    }
    where = loop
      ? ", broken: the links loop"
      : `, broken${info.escapes ? " and leading outside the base" : ""}`;
  }
  const how =
    target !== "symlink"
      ? "followed (--follow): taken as what it leads to"
      : plan.follow && info.exists
        ? "listed as a link, not followed under strict_base"
        : "listed as a link";
  return { stage: "symlink", detail: `it is the symlink ${facts.words}${where}; ${how}`, ...facts.fields };
}

/**
 * Tells whether nothing is at a path (lstat fails with ENOENT or ENOTDIR), as opposed to one that cannot be read.
 * @param abs the path
 * @returns true when it does not exist
 */
function doesNotExist(abs: string): boolean {
  try {
    platform.lstat(abs);
    return false;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return code === "ENOENT" || code === "ENOTDIR";
  }
}

/**
 * The verdict on a path that does not exist: not listed, and whether the ignore rules would leave it out (the
 * reasons met on its way), or that none would, with the ignore files consulted.
 * @param absent the first component that does not exist, and where its reason goes among the others
 * @param rel the path, relative to the base
 * @returns the verdict
 */
function missingVerdict(
  absent: { readonly rel: string; readonly at: number },
  rel: string,
  found: Findings,
): PathVerdict {
  const where = absent.rel === rel ? "" : ` ('${absent.rel}' is not there)`;
  const blocked = found.out.length > 0;
  const unmatched = blocked || found.unmatched === undefined ? "" : `; ${found.unmatched}`;
  const reasons = [...found.out];
  reasons.splice(absent.at, 0, { stage: "missing", detail: `it does not exist${where}${unmatched}` });
  return { included: false, reasons, exists: false };
}

/**
 * Explains one path under one root: replays the walk's tests from the root down to the path.
 * @returns the verdict, or null when the path is not under this root
 */
function underRoot(
  plan: WalkPlan,
  o: WalkOptions,
  checks: readonly NamedCheck[],
  root: Root,
  r: number,
  abs: string,
  report: (info: ErrorInfo) => void,
  memo: ExplainMemo,
): PathVerdict | null {
  const found = newFindings();
  const { out, notes, block } = found;
  if (abs === root.abs) {
    if (root.type === "dir") {
      const what = root.abs === plan.base ? "the base" : "a root directory";
      return {
        included: false,
        reasons: [{ stage: "root", detail: `${what} itself is never listed, only what is below it` }],
      };
    }
    notes.push({ stage: "root", detail: "an explicit root: searched even when hidden or ignored" });
    const e = new Entry(root.abs, root.rel, basenamePath(root.abs), 0, root.type, root.type, r, plan.follow);
    return verdictOnEntry(plan, o, checks, e, false, found);
  }
  if (root.type !== "dir" || !insideDir(abs, root.abs)) return null;

  const parts = relativePath(root.abs, abs).split(path.sep);
  let dirAbs = root.abs;
  let relDir = root.rel;
  let keyPrefix = root.repoPrefix;
  let chain: readonly IgnoreFile[] = root.outer;
  let ignoredAbove = false;
  // Whether a rule matched a component on the way (one that re-included a directory too).
  let anyMatched = false;
  // The first component that does not exist, and where its reason goes among the others (#37: a path that does
  // not exist still has an ignore verdict, as git check-ignore --no-index gives one).
  let absent: { readonly rel: string; readonly at: number } | null = null;
  // Device/inode pairs of the directories from the root down, as the walk keeps them to detect loops.
  const onPath: string[] = [];
  if (plan.follow) {
    try {
      const st = platform.stat(root.abs);
      onPath.push(`${st.dev}:${st.ino}`);
    } catch {}
  }
  for (let i = 0; i < parts.length; i++) {
    const name = parts[i] as string;
    const last = i === parts.length - 1;
    const rel = relDir === "" ? name : `${relDir}/${name}`;
    const compAbs = joinPath(dirAbs, name);
    let listing: DirListing | null = null;
    if (absent === null) {
      try {
        listing = memo.list(dirAbs);
      } catch (err) {
        block({
          stage: "unreadable",
          detail: `its directory cannot be listed: ${fsErrorInfo(err, dirAbs).message}`,
        });
        return { included: false, reasons: out };
      }
      // The walk's chain there (a nested repository's root below the root included).
      chain = dirChain(plan, listing.names, dirAbs, i > 0, chain, keyPrefix, memo.ignoreFile, report);
      if (!listing.names.includes(name)) {
        if (!doesNotExist(compAbs)) {
          block({ stage: "unreadable", detail: `'${rel}' is not listed by its directory` });
          return { included: false, reasons: out };
        }
        absent = { rel, at: out.length };
        listing = null;
      }
    }
    const what = last ? "it" : `its directory '${rel}'`;
    if (VCS_DIRS.has(name))
      block({
        stage: "git_dir",
        detail: `${what} is a version-control directory (${name}), which is never listed`,
      });
    else if (!plan.hidden && name.charCodeAt(0) === 46) {
      block({
        stage: "hidden",
        detail: `${what} is hidden (name starts with '.') and hidden is off (--no-hidden)`,
      });
    }
    // Below a component that does not exist, each one is taken for a directory and the last for a file, as git
    // check-ignore takes a path that is not there (a rule 'dir/' needs a directory).
    const types: { readonly type: EntryType; readonly target: EntryType } | null =
      listing === null
        ? { type: last ? "file" : "dir", target: last ? "file" : "dir" }
        : componentTypes(plan, listing, name, compAbs, rel, what, last, found);
    if (types === null) return { included: false, reasons: out };
    const { type, target } = types;
    const isDir = target === "dir";
    const excluded = excludeReason(plan, o, rel, name, isDir, what);
    if (excluded !== null) block(excluded);
    if (!ignoredAbove && chain.length > 0) {
      const v = ignoreFinding(chain, keyPrefix + name, name, isDir, rel, last, plan.base);
      if (v !== null) anyMatched = true;
      if (v?.block !== undefined) {
        ignoredAbove = true;
        block(v.block);
      } else if (v?.note !== undefined) notes.push(v.note);
    }
    // No rule matches the path nor a directory on its way: said with the files consulted, so that a verdict of
    // "included" needs no reading of every ignore file to be trusted (#37).
    if (last && !anyMatched && plan.respectIgnore) found.unmatched = noRuleMatches(chain, plan.base);
    if (last && absent !== null) return missingVerdict(absent, rel, found);
    if (last) {
      if (type === "symlink") notes.push(linkNote(plan, compAbs, rel, target));
      const e = new Entry(compAbs, rel, name, i + 1, type, target, r, plan.follow);
      return verdictOnEntry(plan, o, checks, e, isDir, found);
    }
    const into =
      absent === null ? descent(plan, type, isDir, compAbs, rel, onPath) : { enter: true as const };
    if (!into.enter) {
      if (into.reason !== undefined) block(into.reason);
      return { included: false, reasons: out };
    }
    dirAbs = compAbs;
    relDir = rel;
    keyPrefix = `${keyPrefix}${name}/`;
  }
  return { included: false, reasons: out };
}

/**
 * Explains whether the walk of a plan lists a path, and why; for a path reached through a symlink (or one), also
 * where it really is and whether the walk lists it there, said in the reason about the link too.
 * @param plan the compiled walk (the same as find would use)
 * @param o the walk options the plan was compiled from (to name the failing predicate)
 * @param abs the absolute path (it exists)
 * @param report receives an ignore file that was refused (a symlink, a FIFO, one over the cap)
 * @returns the verdict with its reasons
 */
export function explainPath(
  plan: WalkPlan,
  o: WalkOptions,
  abs: string,
  report: (info: ErrorInfo) => void = () => {},
  memo: ExplainMemo = explainMemo(plan),
): PathVerdict {
  const v = verdictOf(plan, o, abs, report, memo);
  const rel = relativePath(plan.base, abs);
  if (leavesDir(rel)) return v;
  const { resolved, escapes } = whereItLeads(abs, plan.base);
  if (!escapes && resolved === (rel === "" ? "." : toPosix(rel))) return v;
  let included: boolean | undefined;
  let why = "";
  if (!escapes) {
    const realAbs = resolved === "." ? plan.base : joinPath(plan.base, ...resolved.split("/"));
    let exists = true;
    try {
      platform.lstat(realAbs);
    } catch {
      exists = false;
    }
    // The real path has no symlink on its way: its verdict says nothing of one, and never recurses.
    if (exists) {
      const there = verdictOf(plan, o, realAbs, report, memo);
      included = there.included;
      why = there.included
        ? `; its real path ${resolved} is included`
        : `; its real path ${resolved} is not included${v.included ? "" : " either"}: ${there.reasons[0]?.detail ?? ""}`;
    } else {
      // What the rules make of the place it leads to (#37: "would the target be ignored" is the question a
      // broken link raises): a path that does not exist has a verdict too.
      const there = verdictOf(plan, o, realAbs, report, memo);
      const left = there.reasons.find((x) => x.stage !== "missing");
      why = `; its real path ${resolved} does not exist${left === undefined ? "" : ` and would not be included: ${left.detail}`}`;
    }
  } else {
    let exists = true;
    try {
      platform.lstat(resolved);
    } catch {
      exists = false;
    }
    why = `; its real path is outside the base: ${resolved}${exists ? "" : " (it does not exist)"}`;
  }
  // The reason about the link (the one that stops the walk at it, or the note on a path that is one) says it too.
  const first = v.reasons.findIndex((x) => x.link !== undefined);
  const reasons = v.reasons.map((r, i) => (i === first ? { ...r, detail: `${r.detail}${why}` } : r));
  return { ...v, reasons, real: { path: resolved, ...(included === undefined ? {} : { included }) } };
}

/**
 * Gives the verdict of the walk of a plan on one path, and why (explainPath without the real path).
 * @returns the verdict with its reasons
 */
function verdictOf(
  plan: WalkPlan,
  o: WalkOptions,
  abs: string,
  report: (info: ErrorInfo) => void,
  memo: ExplainMemo,
): PathVerdict {
  const checks = namedChecks(o, plan.base, plan.confine);
  let first: PathVerdict | null = null;
  for (let r = 0; r < plan.roots.length; r++) {
    const v = underRoot(plan, o, checks, plan.roots[r] as Root, r, abs, report, memo);
    if (v === null) continue;
    if (v.included) return v;
    first ??= v;
  }
  if (first) return first;
  if (!insideDir(abs, plan.base)) {
    return {
      included: false,
      reasons: [{ stage: "outside_base", detail: `it is outside the base ${plan.base}` }],
    };
  }
  return {
    included: false,
    reasons: [
      {
        stage: "root",
        detail:
          plan.roots.length === 0
            ? "no root could be searched"
            : `it is not below any searched root (${plan.roots.map((x) => x.rel || ".").join(", ")})`,
      },
    ],
  };
}
