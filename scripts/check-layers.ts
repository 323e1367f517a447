/*! The layering check (`bun scripts/check-layers.ts`, run by `npm run lint`): reads every import of `src/`
 * (static, `export … from`, and dynamic `import()`; type-only imports count too, since they are arrows a reader
 * follows) and reports the arrows the codemap forbids and every import cycle. `src/engine/` may import only
 * `src/contract/`, `src/platform/`, `src/generated/` and itself; a cycle is a strongly connected set of files.
 * It also parses every file (the TypeScript compiler's parser) and reports each function, method or arrow longer
 * than `MAX_FUNCTION_LINES` lines, nested functions counted in their owner's length, outside `src/generated/`.
 * What is already known stands in `scripts/layers-known.json` (the renovation removes it line by line): the check
 * fails on an arrow, cycle or long function not listed there, and on a listed one that is gone (so the list only
 * shrinks). `--write` rewrites that list from the tree. Never edits `src/`.
 * The door: outside `src/platform/`, no file touches the file system, processes, workers or native calls itself
 * (node:fs, node:child_process, node:worker_threads, node:net, bun:ffi, Bun's file, mmap, write, spawn, listen
 * and connect, `new Worker`, `typeof Bun`), save the exceptions named in DOOR_EXCEPTIONS with their reason; and
 * no file but `src/config.ts` reads the environment (process.env, Bun.env, import.meta.env), with no exception:
 * a value the environment gives is a field of the Config or the Host that an entry reads once and passes in. */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const root = join(import.meta.dir, "..");
const src = join(root, "src");
const knownFile = join(import.meta.dir, "layers-known.json");

/** Where `src/engine/` may point (besides itself). */
const ENGINE_MAY_IMPORT = ["src/contract/", "src/platform/", "src/generated/", "src/engine/"];

/** What only `src/platform/` may use: a name for the report, and its pattern. */
const DOOR: readonly (readonly [string, RegExp])[] = [
  ["node:fs", /["']node:fs(?:\/promises)?["']/],
  ["node:child_process", /["']node:child_process["']/],
  ["node:worker_threads", /["']node:worker_threads["']/],
  ["node:net", /["']node:net["']/],
  ["bun:ffi", /["']bun:ffi["']/],
  ["Bun.file/mmap/write/spawn", /\bBun\.(?:file|mmap|write|spawn|spawnSync)\b/],
  ["Bun.listen/connect", /\bBun\.(?:listen|connect)\b/],
  ["new Worker", /\bnew Worker\b/],
  ["typeof Bun", /\btypeof Bun\b/],
];

/**
 * The files outside `src/platform/` allowed a door's use, each with its reason (`file what` → why). Keep it
 * short: a new use belongs in a named function under `src/platform/`.
 */
const DOOR_EXCEPTIONS: Readonly<Record<string, string>> = {
  "src/agent/served.ts node:net":
    "the library's client of the warm server under Node as well as Bun (node:net is what both have); its framing is the protocol's, not a file system call",
  "src/surface/serve/server.ts Bun.listen/connect":
    "the warm server's Unix socket and its probe of a socket found in place: Bun's socket API, whose callbacks are the server's protocol",
  "src/surface/serve/client.ts Bun.listen/connect":
    "the served call's client on the CLI's start path: one Bun.connect whose callbacks are the protocol",
};

/** Reads of the environment: only src/config.ts reads it (into a Config passed in). */
const ENV_READ = /\bprocess\.env\b|\bBun\.env\b|\bimport\.meta\.env\b/;

/** The longest a function may be, in lines from its first to its last (its nested functions included). */
const MAX_FUNCTION_LINES = 150;

interface Known {
  readonly arrows: readonly string[];
  readonly cycles: readonly string[];
  readonly longFunctions?: readonly string[];
}

/** Lists every `.ts` file under a directory, as POSIX paths relative to the repository. */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...tsFiles(full));
    else if (name.endsWith(".ts")) out.push(relative(root, full).split("\\").join("/"));
  }
  return out;
}

const IMPORT_RE = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

/** Reads the relative imports of one file, resolved to repository paths of files that exist. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  const out = new Set<string>();
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? "";
    if (!spec.startsWith(".")) continue;
    const target = resolve(dirname(join(root, file)), spec);
    const candidates = [target, `${target}.ts`, join(target, "index.ts")];
    const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile());
    if (hit !== undefined) out.add(relative(root, hit).split("\\").join("/"));
  }
  return [...out].sort();
}

/** Finds the strongly connected sets of more than one file (Tarjan), each sorted, the sets sorted. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const set: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1) found.push(set.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/** Names a function node: its own name, else the variable or property it is assigned to, else `<anonymous>`. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name !== undefined && ts.isIdentifier(node.name)) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name))
    return parent.name.text;
  return "<anonymous>";
}

/** Lists the functions of one file longer than MAX_FUNCTION_LINES, as `file owner.name` lines. */
function longFunctionsOf(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node, owner: string): void => {
    let name = owner;
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const fn = node as ts.FunctionLikeDeclaration;
      name = owner === "" ? functionName(fn) : `${owner}.${functionName(fn)}`;
      const first = sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(fn.end).line;
      if (last - first + 1 > MAX_FUNCTION_LINES) out.push(`${file} ${name}`);
    } else if (ts.isClassDeclaration(node) && node.name !== undefined) {
      name = owner === "" ? node.name.text : `${owner}.${node.name.text}`;
    }
    ts.forEachChild(node, (child) => visit(child, name));
  };
  visit(sf, "");
  return out;
}

const files = tsFiles(src);
const graph = new Map(files.map((f) => [f, importsOf(f)] as const));
const arrows: string[] = [];
for (const [file, targets] of graph) {
  if (!file.startsWith("src/engine/")) continue;
  for (const t of targets) {
    if (!ENGINE_MAY_IMPORT.some((p) => t.startsWith(p))) arrows.push(`${file} -> ${t}`);
  }
}
const cycleLines = cycles(graph).map((set) => set.join(" "));

/** The lines of a file that are code (not a comment line), with their numbers. */
function codeLines(file: string): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  readFileSync(join(root, file), "utf8")
    .split("\n")
    .forEach((line, i) => {
      const t = line.trimStart();
      if (!t.startsWith("*") && !t.startsWith("//") && !t.startsWith("/*")) out.push([i + 1, line]);
    });
  return out;
}

/** Each use of the door outside src/platform/ that DOOR_EXCEPTIONS does not name, as `file:line what`. */
const doorUses: string[] = [];
/** Each read of the environment outside src/config.ts, as `file:line`. */
const envReads: string[] = [];
const exceptionsUsed = new Set<string>();
for (const file of files) {
  if (file.startsWith("src/platform/") || file.startsWith("src/generated/")) continue;
  for (const [n, line] of codeLines(file)) {
    for (const [what, re] of DOOR) {
      if (!re.test(line)) continue;
      const key = `${file} ${what}`;
      if (key in DOOR_EXCEPTIONS) exceptionsUsed.add(key);
      else doorUses.push(`${file}:${n} ${what}`);
    }
    if (file !== "src/config.ts" && ENV_READ.test(line)) envReads.push(`${file}:${n}`);
  }
}
const staleExceptions = Object.keys(DOOR_EXCEPTIONS).filter((k) => !exceptionsUsed.has(k));
const longFunctions = files.filter((f) => !f.startsWith("src/generated/")).flatMap(longFunctionsOf);

if (process.argv.includes("--write")) {
  writeFileSync(knownFile, `${JSON.stringify({ arrows, cycles: cycleLines, longFunctions }, null, 2)}\n`);
  console.log(
    `check-layers: wrote ${arrows.length} arrows, ${cycleLines.length} cycles and ${longFunctions.length} long functions as known`,
  );
  process.exit(0);
}

const known: Known = existsSync(knownFile)
  ? (JSON.parse(readFileSync(knownFile, "utf8")) as Known)
  : { arrows: [], cycles: [] };
const problems: string[] = [];
const compare = (what: string, now: readonly string[], before: readonly string[]): void => {
  const was = new Set(before);
  const is = new Set(now);
  for (const line of now) if (!was.has(line)) problems.push(`new ${what}: ${line}`);
  for (const line of before)
    if (!is.has(line)) problems.push(`${what} gone (remove it from the known list): ${line}`);
};
compare("engine arrow", arrows, known.arrows);
compare("import cycle", cycleLines, known.cycles);
compare(`function over ${MAX_FUNCTION_LINES} lines`, longFunctions, known.longFunctions ?? []);
for (const read of envReads)
  problems.push(
    `${read} reads the environment outside src/config.ts: read it there into the Config or the Host, and pass it in`,
  );
for (const use of doorUses)
  problems.push(`${use} outside src/platform/: call a named function of src/platform/ instead`);
for (const key of staleExceptions) problems.push(`door exception no longer used (remove it): ${key}`);
if (problems.length > 0) {
  for (const p of problems) console.error(`check-layers: ${p}`);
  console.error(
    `check-layers: src/engine may import only contract/, platform/, generated/ and itself, no file may be in an import cycle, no function may be over ${MAX_FUNCTION_LINES} lines, only src/platform/ touches the file system, processes, workers and native calls, and only src/config.ts reads the environment (docs/architecture.md)`,
  );
  process.exit(1);
}
console.log(
  `check-layers: ${files.length} files; ${arrows.length} known engine arrows, ${cycleLines.length} known cycles, ${longFunctions.length} known long functions remain, no environment read outside src/config.ts, ${exceptionsUsed.size} door exceptions, nothing new`,
);
