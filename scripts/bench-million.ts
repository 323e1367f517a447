/*! Benchmark: a million generated source files (#36). Builds the tree once (`--tree`, default /tmp/million:
 * 1,000,000 small TypeScript-like files in 10,400 directories, far under a user's inotify budget), then reports
 * (`--part=tree,index,server,restart`, default all), every figure with the machine's load (`uptime`):
 * - index: `rglob index` of the tree: wall and CPU time, peak RSS, the index file's size, and the memory bound
 *   of docs/warm-index.md for the tree's files, directories and text bytes (the peak must stay under it);
 * - server: `rglob mcp` on the tree (its cache emptied first): time to `ready`, peak RSS, the state and reason
 *   capabilities give, a selective literal's first page and count, a literal found nowhere, a find by a glob, and
 *   rg's count of the literal;
 * - restart: the server stopped and started again: time to `ready` (loaded from the cache and checked), to its
 *   first warm answer, and the same queries.
 * Every server started is stopped before the script ends. */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { benchArgs, cpuSecondsOf, loadAverage } from "./bench-args.ts";
import { RawMcpServer } from "./mcp-probe.ts";

const USAGE = "bun scripts/bench-million.ts [--part=tree,index,server,restart] [--tree=DIR] [--work=DIR]";
const args = benchArgs(USAGE, { part: "text", tree: "text", work: "text" }, 1);
const ROOT = path.resolve(import.meta.dir, "..");
const BIN = process.env.RGLOB_BIN ?? path.join(ROOT, "dist", "rglob");
const TREE = path.resolve(args.get("tree") ?? "/tmp/million");
const WORK = path.resolve(args.get("work") ?? path.join(os.tmpdir(), "rglob-bench-million"));
const parts = new Set((args.get("part") ?? "tree,index,server,restart").split(","));

const load = () => `load average ${loadAverage()}`;
const mib = (n: number) => `${(n / 1048576).toFixed(0)} MiB`;
const say = (s: string) => console.log(s);

// ---------------------------------------------------------------------------------------------------------
// The tree: 50 packages × 12 modules × 16 folders = 9,600 leaf folders of about 104 files each (10,413
// directories in all), each file one of a few shapes of source text with generated names and numbers, 120 B to
// a few KiB. A selective identifier (`quotaLimiterZebra`) is in about 1 file in 20,000.

const FILES = 1_000_000;
const WORDS = [
  "user",
  "order",
  "item",
  "cache",
  "store",
  "view",
  "model",
  "route",
  "auth",
  "util",
  "api",
  "event",
];
const MODULES = [
  "core",
  "http",
  "db",
  "jobs",
  "ui",
  "auth",
  "billing",
  "search",
  "mail",
  "files",
  "metrics",
  "admin",
];
const KINDS = ["Service", "Controller", "Helper", "Factory", "Repository", "Handler", "Config", "Schema"];
const TYPES = ["string", "number", "boolean", "Date", "Buffer", "unknown"];
export const SELECTIVE = "quotaLimiterZebra";
export const NOWHERE = "zqxNowhereLiteral";

let seed = 1;
const rand = (n: number) => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return (seed >>> 8) % n;
};
const pick = <T>(a: readonly T[]): T => a[rand(a.length)] as T;
const cap = (s: string) => (s[0] ?? "").toUpperCase() + s.slice(1);
// Syllables of generated identifiers (a project's own names: camelCase, snake_case, UPPER_CASE), so that the
// text has the variety of trigrams of real code, not only those of a dozen words.
const SYLLABLES =
  "ka ri to mu se va lo pe qui zan dor fel gim hox jun lek mir nop rus tav wex yol bri cra dre flo gru kle pra sto tri vex".split(
    " ",
  );
const ident = (parts: number) => {
  let s = pick(SYLLABLES);
  for (let i = 1; i < parts; i++) s += cap(pick(SYLLABLES));
  return s;
};
const HEX = "0123456789abcdef";

function sourceText(name: string, w: string, k: string): string {
  const lines: string[] = [];
  const imports = 1 + rand(4);
  for (let i = 0; i < imports; i++) {
    const o = pick(WORDS);
    lines.push(`import { ${o}${pick(KINDS)} } from "../${pick(MODULES)}/${o}-${rand(400)}";`);
  }
  const own = ident(2 + rand(3));
  const constant = ident(2)
    .replace(/[A-Z]/g, (c) => `_${c}`)
    .toUpperCase();
  lines.push(`const ${constant}_${rand(64)} = "${Array.from({ length: 8 }, () => HEX[rand(16)]).join("")}";`);
  lines.push("");
  const shape = rand(4);
  if (shape === 0) {
    lines.push(`export interface ${cap(name)}Options {`);
    for (let i = rand(8); i >= 0; i--) lines.push(`  ${pick(WORDS)}_${rand(50)}?: ${pick(TYPES)};`);
    lines.push(`  ${own}: ${cap(ident(2))};`);
    lines.push("}");
  } else {
    lines.push(`export class ${cap(name)} {`);
    lines.push(`  private readonly ${w}_id = ${rand(100000)};`);
    for (let m = rand(5); m >= 0; m--) {
      const t = pick(TYPES);
      lines.push(`  // TODO(${pick(WORDS)}): handle ${pick(WORDS)} ${rand(1000)}`);
      lines.push(
        `  async ${pick(["get", "set", "load", "save", "check"])}${cap(pick(WORDS))}${m}(arg: ${t}): Promise<${t}> {`,
      );
      lines.push(
        `    const v = await this.${w}.${pick(["find", "fetch", "resolve"])}(arg, "${k.toUpperCase()}_${rand(999)}");`,
      );
      if (rand(2) === 0) lines.push(`    const ${own}_${m} = ${ident(2)}(v, ${constant}_${rand(64)});`);
      if (rand(20000 / 3) === 0) lines.push(`    ${SELECTIVE}.check(v);`);
      lines.push(`    if (v === undefined) throw new Error("${w} ${rand(100)} not found");`);
      lines.push("    return v;");
      lines.push("  }");
    }
    lines.push("}");
  }
  return `${lines.join("\n")}\n`;
}

/** The tree, made once (a marker file says it is whole). */
function makeTree(): void {
  const done = path.join(TREE, ".bench-million-done");
  if (fs.existsSync(done)) return;
  say(`making ${TREE} (${FILES} files) (${load()})`);
  const t0 = performance.now();
  fs.rmSync(TREE, { recursive: true, force: true });
  let n = 0;
  let bytes = 0;
  const leaves = 50 * 12 * 16;
  for (let leaf = 0; leaf < leaves; leaf++) {
    const p = Math.floor(leaf / 192);
    const mod = MODULES[Math.floor(leaf / 16) % 12] as string;
    const dir = path.join(TREE, `pkg-${WORDS[p % 12]}-${p}`, "src", mod, `${pick(WORDS)}-${leaf % 16}`);
    fs.mkdirSync(dir, { recursive: true });
    const count = Math.floor(((leaf + 1) * FILES) / leaves) - Math.floor((leaf * FILES) / leaves);
    for (let f = 0; f < count; f++) {
      const w = pick(WORDS);
      const k = pick(KINDS);
      const name = `${w}${k}${n}`;
      const text = sourceText(name, w, k);
      fs.writeFileSync(path.join(dir, `${name}.ts`), text);
      bytes += text.length;
      n++;
    }
  }
  fs.writeFileSync(path.join(TREE, ".gitignore"), ".bench-million-done\n");
  fs.writeFileSync(done, `${n} ${bytes}\n`);
  say(
    `made ${n} files, ${mib(bytes)} of text in ${((performance.now() - t0) / 1000).toFixed(0)} s (${load()})`,
  );
}

/**
 * Files, directories and text bytes of the tree (the walk rglob indexes: the marker file is ignored).
 * @param sizes stat every file for the text's size (only the index part needs it; 0 otherwise)
 */
function shapeOf(sizes: boolean): { files: number; dirs: number; text: number } {
  let files = 0;
  let dirs = 0;
  let text = 0;
  const stack = [TREE];
  while (stack.length > 0) {
    const d = stack.pop() as string;
    dirs++;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === ".bench-million-done") continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else {
        files++;
        if (sizes) text += fs.statSync(p).size;
      }
    }
  }
  return { files, dirs, text };
}

/**
 * The memory bound of `rglob index` (docs/warm-index.md, "A million files"), in bytes, for F files, D
 * directories, posting lists of P bytes and an index file of I bytes.
 */
const boundOf = (f: number, d: number, p: number, i: number) => (132 << 20) + 2 * p + 2048 * (f + d) + i;

/** The header of an index file (its JSON after the 32-byte prefix). */
function headerOf(file: string): Record<string, number> {
  const fd = fs.openSync(file, "r");
  try {
    const pre = Buffer.alloc(32);
    fs.readSync(fd, pre, 0, 32, 0);
    const json = Buffer.alloc(pre.readUInt32LE(12));
    fs.readSync(fd, json, 0, json.length, 32);
    return JSON.parse(json.toString("utf8")) as Record<string, number>;
  } finally {
    fs.closeSync(fd);
  }
}

/** `rglob index` of the tree: wall and CPU time, peak RSS (GNU time), the index's size, and the bound. */
function cliIndex(shape: { files: number; dirs: number; text: number }): void {
  const cache = path.join(WORK, "cache-cli");
  fs.rmSync(cache, { recursive: true, force: true });
  say(`## rglob index (${load()})`);
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M %U %S", BIN, "index", "--json"], {
    cwd: TREE,
    env: { ...process.env, RGLOB_CACHE_DIR: cache, RGLOB_SERVE: "0" },
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const t = r.stderr.trim().split("\n").pop()?.split(" ").map(Number) ?? [];
  const info = ((JSON.parse(r.stdout) as { results: Array<Record<string, unknown>> }).results[0] ??
    {}) as Record<string, number>;
  const h = headerOf(String(info.index_path));
  const peak = (t[1] ?? 0) * 1024;
  const bound = boundOf(shape.files, shape.dirs, h.posting_bytes ?? 0, info.index_bytes ?? 0);
  say(
    `rglob index: ${t[0]} s wall, ${((t[2] ?? 0) + (t[3] ?? 0)).toFixed(1)} s CPU (user ${t[2]}, system ${t[3]}), peak RSS ${mib(peak)}; ${info.files} files, ${h.trigrams} trigrams, text ${mib(info.text_bytes ?? 0)}, posting lists P = ${mib(h.posting_bytes ?? 0)} (${((h.posting_bytes ?? 0) / (info.text_bytes ?? 1)).toFixed(2)} of the text), index file ${mib(info.index_bytes ?? 0)} (${load()})`,
  );
  say(
    `memory bound 132 MiB + 2P + 2 KiB x (F + D) + file = ${mib(bound)} for F = ${shape.files}, D = ${shape.dirs}: peak ${mib(peak)} ${peak <= bound ? "holds it" : "DOES NOT hold it"} (${((peak / bound) * 100).toFixed(0)}%)`,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Peak RSS of a process (VmHWM), in bytes, or 0. */
function peakRss(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? 0 : Number(m[1]) * 1024;
  } catch {
    return 0;
  }
}

/**
 * Polls the server until its index is no longer building: the seconds since t0 and its status. Every 5 s: each
 * read of rglob://capabilities builds the tool list again (about 0.2 s of CPU at load 9 on the 40,000-file
 * subset), and a poll every second took most of the CPU of a build that lasts many minutes on a loaded machine.
 */
async function untilReady(s: RawMcpServer, t0: number): Promise<{ s: number; st: Record<string, unknown> }> {
  for (;;) {
    const st = await s.warm();
    if (st.state !== "building") return { s: (performance.now() - t0) / 1000, st };
    await sleep(5000);
  }
}

/** What `rglob index --status` says of the tree's index and of the running server. */
function status(cache: string): string {
  const r = spawnSync(BIN, ["index", "--status", "--json"], {
    cwd: TREE,
    env: { ...process.env, RGLOB_CACHE_DIR: cache, RGLOB_SERVE: "0" },
    encoding: "utf8",
  });
  try {
    const rec = (JSON.parse(r.stdout) as { results: Array<Record<string, unknown>> }).results[0] ?? {};
    const servers = (rec.servers as Array<Record<string, unknown>> | null) ?? [];
    const mine = servers.filter((x) => x.root === TREE).map((x) => `pid ${x.pid} ${x.state}`);
    return `index --status: ${rec.state}, ${rec.files} files, changed ${rec.changed_files}; servers of the tree: ${mine.join(", ") || "none"}`;
  } catch {
    return `index --status: ${r.stdout.slice(0, 200)} ${r.stderr.slice(0, 200)}`;
  }
}

/** A glob that names few of the tree's files (every `orderHandler99…` file: about 1 in 900). */
export const GLOB = "**/orderHandler99*.ts";

/**
 * The queries: a selective literal's first page and its count, a literal found nowhere, a find by a glob (twice
 * each); then, once, rg's count of the same literal (a process over the whole tree: the cold reference).
 */
async function queries(s: RawMcpServer, label: string): Promise<void> {
  const out: string[] = [];
  for (let i = 0; i < 2; i++) {
    const page = await s.grep({ pattern: SELECTIVE, limit: 100 });
    const count = await s.grep({ pattern: SELECTIVE, count: true });
    const none = await s.grep({ pattern: NOWHERE, limit: 100 });
    const found = await s.call("find_files", { patterns: [GLOB], limit: 100 });
    const checks = (await s.warm()).checks as Record<string, unknown> | undefined;
    out.push(
      `first page ${page.ms.toFixed(0)} ms (${(page.r.results as unknown[]).length} records, ${page.r.source}), count ${count.ms.toFixed(0)} ms (${count.r.matched_lines} lines in ${count.r.files_with_matches} files, ${count.r.source}), found nowhere ${none.ms.toFixed(0)} ms (${(none.r.results as unknown[]).length} records, ${none.r.source}; checks ${checks?.mode}, ${checks?.given} given), find ${GLOB} first page ${found.ms.toFixed(0)} ms (${(found.r.results as unknown[]).length} records)`,
    );
  }
  for (const [i, o] of out.entries()) say(`  ${label}, run ${i + 1}: ${o}`);
  const t0 = performance.now();
  const rg = spawnSync("rg", ["--count-matches", "--no-filename", SELECTIVE], {
    cwd: TREE,
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const lines = rg.stdout.split("\n").reduce((n, l) => n + (Number(l) || 0), 0);
  say(
    `  rg --count-matches ${SELECTIVE}: ${((performance.now() - t0) / 1000).toFixed(1)} s (${rg.error === undefined ? `${lines} matches` : "rg not found"}) (${load()})`,
  );
}

/** The servers' stderr (their log lines: a watch given up, a queue that overflowed), appended to WORK/server.log. */
function serverLog(): number {
  fs.mkdirSync(WORK, { recursive: true });
  return fs.openSync(path.join(WORK, "server.log"), "a");
}

async function server(restartToo: boolean): Promise<void> {
  const cache = path.join(WORK, "cache-server");
  if (parts.has("server")) {
    fs.rmSync(cache, { recursive: true, force: true });
    say(`## rglob mcp, building (${load()})`);
    const t0 = performance.now();
    const s = new RawMcpServer(BIN, TREE, cache, "bench-million", serverLog());
    try {
      await s.start();
      const { s: secs, st } = await untilReady(s, t0);
      const cpuAtReady = cpuSecondsOf(s.pid);
      say(
        `ready: ${st.state} after ${secs.toFixed(1)} s (build_ms ${st.build_ms}; ${st.files} files, ${st.trigrams} trigrams, index ${mib(Number(st.index_bytes ?? 0))}, text ${mib(Number(st.text_bytes ?? 0))}; reason: ${st.reason}), peak RSS ${mib(peakRss(s.pid))}, CPU ${cpuAtReady.toFixed(1)} s (${load()})`,
      );
      say(`  ${status(cache)}`);
      await queries(s, "built");
      // The index reaches the cache after the build, in the background.
      const dir = path.join(cache, "index");
      for (let i = 0; i < 6000; i++) {
        if (fs.existsSync(dir) && fs.readdirSync(dir).some((f) => f.endsWith(".rgi"))) break;
        await sleep(200);
      }
      await sleep(2000);
      const written = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith(".rgi")) : undefined;
      const peak = peakRss(s.pid);
      say(
        `  written to the cache after ${((performance.now() - t0) / 1000).toFixed(1)} s; peak RSS ${mib(peak)}, CPU ${cpuSecondsOf(s.pid).toFixed(1)} s (${load()})`,
      );
      if (written !== undefined) {
        const file = path.join(dir, written);
        const h = headerOf(file);
        const size = fs.statSync(file).size;
        const f = Number(st.files ?? 0);
        const bound = boundOf(f, shape.dirs, h.posting_bytes ?? 0, size);
        say(
          `  server build: ${secs.toFixed(1)} s wall to ready, CPU ${cpuAtReady.toFixed(1)} s at ready; memory bound 132 MiB + 2P + 2 KiB x (F + D) + file = ${mib(bound)} for F = ${f}, D = ${shape.dirs}, P = ${mib(h.posting_bytes ?? 0)}, file ${mib(size)}: peak ${mib(peak)} ${peak <= bound ? "holds it" : "DOES NOT hold it"} (${((peak / bound) * 100).toFixed(0)}%)`,
        );
      } else say("  no index file was written to the cache");
    } finally {
      await s.stop();
    }
  }
  if (!restartToo) return;
  say(`## rglob mcp, restarted (${load()})`);
  const t0 = performance.now();
  const s = new RawMcpServer(BIN, TREE, cache, "bench-million", serverLog());
  try {
    await s.start();
    const { s: secs, st } = await untilReady(s, t0);
    const first = await s.grep({ pattern: SELECTIVE, limit: 100 });
    const firstAt = (performance.now() - t0) / 1000;
    const firstChecks = ((await s.warm()).checks as Record<string, unknown> | undefined)?.mode;
    say(
      `ready: ${st.state} after ${secs.toFixed(1)} s (${st.reason}); time to first warm answer (a selective literal's first page, from the index): ${firstAt.toFixed(1)} s after start (the call ${first.ms.toFixed(0)} ms, ${(first.r.results as unknown[]).length} records, source ${first.r.source}, checks ${firstChecks}); CPU ${cpuSecondsOf(s.pid).toFixed(1)} s (${load()})`,
    );
    // The watch set up and every file checked once (the reason says so), or given up (not watching).
    let w: Record<string, unknown> = {};
    for (let i = 0; i < 3600; i++) {
      w = await s.warm();
      if (/checked once watched|checked again|not watching/.test(String(w.reason))) break;
      await sleep(5000);
    }
    const trusted = await s.grep({ pattern: SELECTIVE, limit: 100 });
    const trustedChecks = ((await s.warm()).checks as Record<string, unknown> | undefined)?.mode;
    say(
      `  watched and checked after ${((performance.now() - t0) / 1000).toFixed(1)} s (${w.state}; ${w.reason}); the first page then ${trusted.ms.toFixed(0)} ms (checks ${trustedChecks}), answered ${((performance.now() - t0) / 1000).toFixed(1)} s after start; CPU ${cpuSecondsOf(s.pid).toFixed(1)} s (${load()})`,
    );
    say(`  ${status(cache)}`);
    await queries(s, "restarted");
    say(`  peak RSS ${mib(peakRss(s.pid))}, CPU ${cpuSecondsOf(s.pid).toFixed(1)} s`);
  } finally {
    await s.stop();
  }
}

say(
  `# bench-million (${new Date().toISOString()}, ${os.cpus().length} cores, nice ${os.getPriority()}, ${load()})`,
);
if (parts.has("tree") || parts.has("index")) makeTree();
const shape = shapeOf(parts.has("index"));
say(
  `tree ${TREE}: ${shape.files} files, ${shape.dirs} directories${parts.has("index") ? `, ${mib(shape.text)} of text` : ""}`,
);
if (parts.has("index")) cliIndex(shape);
if (parts.has("server") || parts.has("restart")) await server(parts.has("restart"));
