/*! Plan: turns validated walk options into a WalkPlan, once per request: resolves the base and roots,
 * compiles globs and predicates, finds the repository and its outer ignore files. Bad values throw RglobError
 * here, before anything is walked. */
import * as path from "node:path";
import { type ErrorInfo, fsErrorInfo, RglobError } from "../contract/errors.ts";
import type { Kind } from "../contract/records.ts";
import type { WalkOptions } from "../contract/walk-options.ts";
import { dirnamePath, relativePath, resolvePath } from "../platform/names.ts";
import { type Confinement, insideDir, platform, typeOfStats, typeWord } from "../platform/platform.ts";
import { compileSavedAs, type SavedAs, savedAsKeeps } from "./filter/encoding.ts";
import { compileFileTypes } from "./filter/filetype.ts";
import { compileLinkSelect, compileNlink, nlinkOf } from "./filter/links.ts";
import { compilePerm, permList } from "./filter/perm.ts";
import { fdSizeTest, sizeRange } from "./filter/size.ts";
import { parseTimePoint } from "./filter/time.ts";
import { compileTypes } from "./filter/type.ts";
import { type TypeRejectTests, typeRejectTests } from "./filter/type-rejects.ts";
import { anyGlob, compileGlob, defaultCaseSensitive, isNegated } from "./glob.ts";
import {
  defaultGitPlaces,
  type GitPlaces,
  type IgnoreSettings,
  ignoreNamesOf,
  type RepoContext,
  repoContext,
} from "./ignore.ts";
import { fileTypes } from "./languages.ts";
import { linkOf } from "./links.ts";
import type { Entry, PlanOptions, Root, WalkPlan } from "./walk-types.ts";

/** A compiled walk plus the problems found with its roots (reported at run time, not thrown). */
interface CompiledWalk {
  readonly plan: WalkPlan;
  readonly rootErrors: readonly ErrorInfo[];
}

/**
 * Converts a path to POSIX separators.
 * @param p a native path
 * @returns the path with '/' separators
 */
export function toPosix(p: string): string {
  return path.sep === "/" ? p : p.split(path.sep).join("/");
}

/**
 * Tells whether a path.relative result leaves the directory it was taken from: `..`, `../x`, or an absolute
 * path (another drive). A name that merely begins with two dots (`..foo`, `...`) is inside it.
 * @param rel a result of path.relative
 * @returns true when it points outside
 */
export function leavesDir(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
}

/**
 * Returns the plan options that say where git's config files are looked for, from a run context.
 * @param ctx the run context (its `git`, the Config's)
 * @returns `{ git }`, or nothing when the context has none (the engine's default)
 */
export function gitOf(ctx: { readonly git?: GitPlaces }): { git?: GitPlaces } {
  return ctx.git === undefined ? {} : { git: ctx.git };
}

/**
 * Compiles walk options into a plan.
 * @param o the validated walk options
 * @param opts what the operation decides (files only, cwd)
 * @returns the plan and root problems
 * @throws RglobError for a missing base, bad globs or bad predicate values
 */
export function compileWalk(o: WalkOptions, opts: PlanOptions = {}): CompiledWalk {
  const cwd = opts.cwd ?? process.cwd();
  const now = opts.now ?? Date.now();
  const git = opts.git ?? defaultGitPlaces();
  const { base, baseReal } = openBase(resolvePath(cwd, o.base));
  const caseSensitive = o.case_sensitive ?? defaultCaseSensitive();
  const ignore: IgnoreSettings = {
    respect: o.respect_gitignore,
    vcs: o.ignore_vcs,
    dot: o.ignore_dot,
    parent: o.ignore_parent,
    global: o.global_ignore_file,
    extra: o.ignore_files.map((f) => path.resolve(base, f)),
    extraAnchor: base,
    git,
  };
  const { roots, rootErrors } = resolveRoots(o, opts, { base, baseReal }, ignore);
  const names = namePredicates(o, opts, caseSensitive);
  const rejects = names.rejects;
  const statTests = statPredicates(o, base, now);
  const preds = [...names.preds, ...statTests];
  const confine: Confinement = {
    // The deepest root first: a path under two roots (`.` and a link `./sym` named after it) is checked against
    // the one it was walked from, the link's target, not against `.`'s real path.
    roots: roots.map((r) => [r.abs, r.real] as const).sort((a, b) => b[0].length - a[0].length),
    inside: o.strict_base ? baseReal : null,
    follow: o.follow_symlinks,
  };
  // saved_as reads a file's head (its line ends: the whole file): the last test, after the cheaper ones.
  const savedAs = compileSavedAs(o.saved_as ?? []);
  if (savedAs !== null) preds.push(savedAsTest(savedAs, confine));
  // Every predicate but globs and plain types reads an entry's stats (x and e need its mode and size); saved_as
  // reads its contents, which no recorded walk may answer for either (walk-key.ts).
  const readsStats =
    statTests.length > 0 ||
    savedAs !== null ||
    names.typeKinds.includes("x") ||
    names.typeKinds.includes("e");
  let select: (e: Entry) => boolean;
  if (preds.length === 0) select = () => true;
  else if (preds.length === 1) select = preds[0] as (e: Entry) => boolean;
  else select = (e) => preds.every((p) => p(e));

  const excludes = [...o.exclude, ...names.negated];
  const exclude = excludes.length > 0 ? anyGlob(excludes.map((g) => compileGlob(g, caseSensitive))) : null;
  const minDepth = o.min_depth ?? 0;
  const maxDepth = o.max_depth ?? Number.POSITIVE_INFINITY;
  if (minDepth > maxDepth) throw new RglobError("BAD_PREDICATE", "min_depth is greater than max_depth");
  const kinds = names.kinds;
  const plan: WalkPlan = {
    base,
    baseReal,
    roots,
    confine,
    hidden: o.hidden,
    respectIgnore: o.respect_gitignore,
    ignoreNames: ignoreNamesOf(ignore),
    nestedRepos: ignore.respect && ignore.vcs,
    follow: o.follow_symlinks,
    strictBase: o.strict_base,
    maxDepth,
    minDepth,
    exclude,
    select,
    selectDirs:
      !opts.filesOnly &&
      (kinds.length === 0 || kinds.includes("d") || kinds.includes("e") || kinds.includes("l")),
    readsStats,
    rootDevices: o.one_file_system
      ? roots.map((root) => {
          try {
            return platform.stat(root.abs).dev;
          } catch {
            return null;
          }
        })
      : null,
    admit: rejects?.admit ?? null,
    typeRejects: rejects?.rejects ?? null,
    // A walk worker lets the files of no known type through; the calling thread keeps them (type-rejects.ts).
    source: {
      options: o,
      plan: { ...opts, ...(opts.typeRejects === "keep" ? { typeRejects: "pass" } : {}), cwd, now, git },
    },
  };
  return { plan, rootErrors };
}

/**
 * The saved_as predicate on walk entries: a regular file (a followed link to one) whose head's encoding and whose
 * line ends the tests keep. A file that cannot be read is not kept, and its problem is left on the entry for the
 * walk to report.
 * @param savedAs the compiled saved_as
 * @param confine what an opened file must be
 * @returns the predicate
 */
function savedAsTest(savedAs: SavedAs, confine: Confinement): (e: Entry) => boolean {
  return (e) => {
    try {
      return savedAsKeeps(savedAs, e, confine);
    } catch (err) {
      e.statError = err;
      return false;
    }
  };
}

/** The request's base directory, checked to exist and be a directory, with its real path. */
interface Base {
  readonly base: string;
  readonly baseReal: string;
}

/**
 * Checks the base directory and resolves its real path.
 * @param base the absolute base
 * @returns the base and its real path
 * @throws RglobError when it is missing, unreadable or not a directory
 */
function openBase(base: string): Base {
  let baseStat: ReturnType<typeof platform.stat>;
  try {
    baseStat = platform.stat(base);
  } catch (err) {
    const info = fsErrorInfo(err, base);
    const why = info.code === "NOT_FOUND" ? "does not exist" : info.message;
    throw new RglobError(info.code, `base directory: ${why}`, { path: base });
  }
  if (!baseStat.isDirectory())
    throw new RglobError("BAD_PREDICATE", `base is not a directory: ${base}`, { path: base });
  return { base, baseReal: platform.realpath(base) };
}

/**
 * Resolves the requested paths (the base when none) into walk roots, each with its type, real path and the
 * ignore files of the repository around it; a root that is missing, unreadable, not a regular file where one is
 * read, or outside a strict base becomes a root problem instead.
 * @param o the validated walk options
 * @param opts what the operation decides
 * @param where the base and its real path
 * @param ignore the ignore settings
 * @returns the roots in the order given and the problems found
 */
function resolveRoots(
  o: WalkOptions,
  opts: PlanOptions,
  where: Base,
  ignore: IgnoreSettings,
): { roots: Root[]; rootErrors: ErrorInfo[] } {
  const { base, baseReal } = where;
  const rootErrors: ErrorInfo[] = [];
  const roots: Root[] = [];
  const wanted = o.paths.length === 0 ? [base] : o.paths.map((p) => resolvePath(base, p));
  const repoCache = new Map<string, RepoContext>();
  const seenErrors = new Set<string>();
  for (const abs of wanted) {
    let type: ReturnType<typeof typeOfStats>;
    try {
      const st = o.follow_symlinks || abs === base ? platform.stat(abs) : platform.lstat(abs);
      type = typeOfStats(st);
      if (type === "symlink") type = typeOfStats(platform.stat(abs)); // an explicit root is always followed
    } catch (err) {
      rootErrors.push(fsErrorInfo(err, abs));
      continue;
    }
    if (opts.filesOnly && type !== "file" && type !== "dir") {
      // A FIFO, socket or device named as a root of an operation that reads contents is never opened.
      rootErrors.push({
        code: "UNREADABLE",
        message: `is a ${typeWord(type)}, not a regular file: not read`,
        path: abs,
      });
      continue;
    }
    let real: string;
    try {
      real = abs === base ? baseReal : platform.realpath(abs);
    } catch (err) {
      rootErrors.push(fsErrorInfo(err, abs));
      continue;
    }
    if (o.strict_base) {
      if (!insideDir(real, baseReal)) {
        rootErrors.push({ code: "PERM", message: `outside the base ${base}; not searched`, path: abs });
        continue;
      }
    }
    const dir = type === "dir" ? abs : dirnamePath(abs);
    let ctxRepo = repoCache.get(dir);
    if (!ctxRepo) {
      ctxRepo =
        ignore.respect || ignore.extra.length > 0
          ? repoContext(dir, ignore)
          : { root: null, anchor: dir, outer: [], errors: [] };
      repoCache.set(dir, ctxRepo);
      for (const e of ctxRepo.errors) {
        const k = `${e.path}\0${e.message}`;
        if (!seenErrors.has(k)) {
          seenErrors.add(k);
          rootErrors.push(e);
        }
      }
    }
    const repoPrefix = toPosix(relativePath(ctxRepo.anchor, dir));
    roots.push({
      abs,
      real,
      rel: toPosix(relativePath(base, abs)),
      type,
      outer: ctxRepo.outer,
      repoPrefix: repoPrefix === "" ? "" : `${repoPrefix}/`,
    });
  }
  return { roots, rootErrors };
}

/** The predicates on an entry's name and type (no stats read), with what the rest of the plan needs of them. */
interface NamePredicates {
  readonly preds: Array<(e: Entry) => boolean>;
  /** The entry kinds selected (files only for an operation that reads files). */
  readonly kinds: readonly Kind[];
  /** The kinds the type predicate tests. */
  readonly typeKinds: readonly Kind[];
  /** The globs given with a leading '!', without it: excludes. */
  readonly negated: readonly string[];
  /** With file types and `typeRejects`: the tests that keep the files they leave out of no known type. */
  readonly rejects: TypeRejectTests<Entry> | null;
}

/**
 * Compiles the predicates that look at an entry's name and type only: globs, types, extensions, file types.
 * @param o the validated walk options
 * @param opts what the operation decides
 * @param caseSensitive whether globs match case-sensitively
 * @returns the predicates and the kinds
 * @throws RglobError for a bad glob, type or extension
 */
function namePredicates(o: WalkOptions, opts: PlanOptions, caseSensitive: boolean): NamePredicates {
  const preds: Array<(e: Entry) => boolean> = [];
  // A glob that begins with '!' is a negation, as in rg -g '!*.md': it excludes what it matches (a directory is
  // not entered), like --exclude. '\!' begins a glob with a literal '!'.
  const positive = o.patterns.filter((g) => !isNegated(g));
  const negated = o.patterns.filter(isNegated).map((g) => g.slice(1));
  for (const g of o.exclude)
    if (isNegated(g))
      throw new RglobError(
        "BAD_PREDICATE",
        `bad glob '${g}': an exclude cannot be negated; to keep only what matches, give it as a glob ('${g.slice(1)}')`,
      );
  if (positive.length > 0) {
    const match = anyGlob(positive.map((g) => compileGlob(g, caseSensitive)));
    // A root that is a file is the only entry at depth 0.
    if (opts.namedFilesPastGlobs)
      preds.push((e) => e.depth === 0 || match(e.rel, e.name, e.target === "dir"));
    else preds.push((e) => match(e.rel, e.name, e.target === "dir"));
  }
  const kinds: Kind[] = opts.filesOnly ? ["f"] : o.types;
  if (opts.filesOnly && o.types.length > 0) {
    const extra = o.types.filter((t) => t !== "f" && t !== "x" && t !== "e");
    if (extra.length > 0) {
      throw new RglobError("BAD_PREDICATE", `types: only f, x and e apply to an operation that reads files`);
    }
  }
  if (opts.filesOnly) preds.push((e) => e.target === "file");
  const typeKinds = opts.filesOnly ? o.types : kinds;
  if (typeKinds.length > 0) preds.push(compileTypes(typeKinds, o.follow_symlinks));
  if (o.extensions.length > 0) {
    // fd's --extension: the name ends in '.EXT', letters in either case (fd matches it case-insensitively).
    const ends = o.extensions.map((x) => `.${x.replace(/^\./, "").toLowerCase()}`);
    for (const x of ends)
      if (x === ".") throw new RglobError("BAD_PREDICATE", "extensions: an extension cannot be empty");
    preds.push((e) => {
      const name = e.name.toLowerCase();
      return ends.some((x) => name.endsWith(x) && name.length > x.length);
    });
  }
  const fileType = compileFileTypes(o.file_types, o.file_types_not, o.type_add, caseSensitive);
  let rejects: TypeRejectTests<Entry> | null = null;
  if (fileType !== null && opts.typeRejects !== undefined && o.file_types.length > 0) {
    // As the --lang shebang note's own walk took them: no built-in type, and a regular file (`-t f`) unless the
    // query names its kinds (src/surface/shebangs.ts).
    const names = fileTypes().map((t) => t.name);
    const unknown = compileFileTypes([], names, o.type_add, caseSensitive) as (
      n: string,
      f: boolean,
    ) => boolean;
    const isFile = o.types.length > 0 ? () => true : compileTypes(["f"], o.follow_symlinks);
    rejects = typeRejectTests(fileType, unknown, isFile, opts.typeRejects === "keep");
    preds.push(rejects.select);
  } else if (fileType !== null) preds.push((e) => fileType(e.name, e.target === "file"));
  return { preds, kinds, typeKinds, negated, rejects };
}

/**
 * Compiles the predicates that read an entry's stats or its link: sizes, times, permissions, links, owners.
 * @param o the validated walk options
 * @param base the base a reference file resolves against
 * @param now the instant relative times count back from
 * @returns the predicates, in a fixed order
 * @throws RglobError for a bad value or a reference file that cannot be read
 */
function statPredicates(o: WalkOptions, base: string, now: number): Array<(e: Entry) => boolean> {
  const preds: Array<(e: Entry) => boolean> = [];
  const range = sizeRange(o.min_size, o.max_size);
  if (range) {
    const [lo, hi] = range;
    // Files only, as fd: a directory (its 4096 bytes) or a link not followed has no size to compare.
    preds.push((e) => {
      if (e.target !== "file") return false;
      const st = e.stats();
      return st !== null && st.size >= lo && st.size <= hi;
    });
  }
  const fdSize = fdSizeTest(o.size);
  if (fdSize !== null)
    preds.push((e) => {
      if (e.target !== "file") return false;
      const st = e.stats();
      return st !== null && fdSize(st.size);
    });
  if (o.newer_than !== undefined) {
    const t = parseTimePoint(o.newer_than, "newer_than", now);
    preds.push((e) => (e.stats()?.mtimeMs ?? Number.NEGATIVE_INFINITY) > t);
  }
  if (o.older_than !== undefined) {
    const t = parseTimePoint(o.older_than, "older_than", now);
    preds.push((e) => (e.stats()?.mtimeMs ?? Number.POSITIVE_INFINITY) < t);
  }
  if (o.newer_than_file !== undefined) {
    const ref = path.resolve(base, o.newer_than_file);
    let t: number;
    try {
      t = platform.stat(ref).mtimeMs;
    } catch (err) {
      const info = fsErrorInfo(err, ref);
      throw new RglobError(info.code, `newer_than_file: ${info.message}`, { path: ref });
    }
    preds.push((e) => (e.stats()?.mtimeMs ?? Number.NEGATIVE_INFINITY) > t);
  }
  // Several modes are AND'd, as GNU find's repeated -perm tests (#37).
  for (const mode of permList(o.perm)) {
    const test = compilePerm(mode);
    preds.push((e) => {
      const st = e.stats();
      return st !== null && test(st.mode);
    });
  }
  const links = o.links ?? [];
  if (links.length > 0) {
    const select = compileLinkSelect(links);
    preds.push((e) => select(linkOf(e)));
  }
  if (o.nlink !== undefined) {
    const test = compileNlink(o.nlink);
    preds.push((e) => {
      const n = nlinkOf(e);
      return n !== null && test(n);
    });
  }
  if (o.uid !== undefined || o.gid !== undefined) {
    if (process.platform === "win32") {
      throw new RglobError("UNSUPPORTED_PLATFORM", "uid/gid filters are POSIX-only");
    }
    const { uid, gid } = o;
    if (uid !== undefined) preds.push((e) => e.stats()?.uid === uid);
    if (gid !== undefined) preds.push((e) => e.stats()?.gid === gid);
  }
  return preds;
}
