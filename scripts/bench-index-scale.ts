/*! Benchmark: the index at scale (#36). Parts (`--part=narrow,build,restart,1m`, default all):
 * - narrow: on a babel checkout, the candidates the index leaves to read for 20 identifiers of different kinds
 *   (camelCase, snake_case, UPPER_CASE, short words), with trigrams folded to lower case (the index before #36)
 *   and with exact-case trigrams (case-sensitive queries; a caseless query's candidates are those of the folded
 *   index), and the two indexes' sizes;
 * - build: on ten copies of the checkout side by side (copied, not linked; made once, reused with --tree), the
 *   build of `rglob index` (time, peak RSS, index size) and of `rglob mcp` (time to `ready`, peak RSS);
 * - restart: `rglob mcp` stopped and started again on that tree: time to its first answer from the index
 *   (`source: "index"`), which it loads from the cache and checks instead of building;
 * - 1m: a generated tree of a million small files (made once, reused with --tree1m): `rglob index` time and
 *   peak RSS (the warm server's budget leaves such a tree unindexed: its index would outweigh half its text).
 * Every figure is printed with the machine's load (`uptime`). */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { TrigramIndex } from "../src/engine/index/trigrams.ts";
import { benchArgs, cpuSecondsOf, loadAverage } from "./bench-args.ts";
import { RawMcpServer } from "./mcp-probe.ts";

const USAGE =
  "bun scripts/bench-index-scale.ts [--part=narrow,build,restart,1m] [--babel=DIR] [--tree=DIR] [--tree1m=DIR] [--work=DIR]";
const args = benchArgs(USAGE, { part: "text", babel: "text", tree: "text", tree1m: "text", work: "text" }, 1);
const ROOT = path.resolve(import.meta.dir, "..");
const BIN = process.env.RGLOB_BIN ?? path.join(ROOT, "dist", "rglob");
const BABEL = path.resolve(args.get("babel") ?? process.env.RGLOB_BENCH_TREE ?? "../babel");
const WORK = path.resolve(args.get("work") ?? path.join(os.tmpdir(), "rglob-bench-index-scale"));
const parts = new Set((args.get("part") ?? "narrow,build,restart,1m").split(","));

const load = () => `load average ${loadAverage()}`;
const mib = (n: number) => `${(n / 1048576).toFixed(0)} MiB`;
const say = (s: string) => console.log(s);

/** The 20 identifiers: camelCase, _camelCase, snake_case, UPPER_CASE and short words. */
const IDENTIFIERS = [
  "traverseFast",
  "isIdentifier",
  "assertNode",
  "getBindingIdentifiers",
  "buildCodeFrameError",
  "createParenthesizedExpressions",
  "toJSON",
  "_interopRequireDefault",
  "runtime_platform_actions",
  "stream_or_alias",
  "is_multifile_predicate",
  "FLIPPED_ALIAS_KEYS",
  "SCOPE_SET_TYPE",
  "BABEL_8_BREAKING",
  "NODE_ENV",
  "DEFAULT_EXTENSIONS",
  "TODO",
  "scope",
  "deopt",
  "path",
];

/** The files rg would search in a tree (hidden included, ignore rules on, .git left out). */
function filesOf(tree: string): string[] {
  const r = spawnSync("rg", ["--files", "--hidden", "-g", "!.git"], {
    cwd: tree,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  return r.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => path.join(tree, l));
}

const lower = (b: Buffer): Buffer => {
  const out = Buffer.from(b);
  for (let i = 0; i < out.length; i++) {
    const c = out[i] as number;
    if (c >= 65 && c <= 90) out[i] = c + 32;
  }
  return out;
};

function narrow(): void {
  say(`## narrowing: candidates per query on ${BABEL} (${load()})`);
  const files = filesOf(BABEL);
  const folded = new TrigramIndex();
  const exact = new TrigramIndex();
  const texts: Buffer[] = [];
  const names: string[] = [];
  const facts = { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };
  for (const f of files) {
    let b: Buffer;
    try {
      b = fs.readFileSync(f);
    } catch {
      continue;
    }
    if (b.length > 10 * 1024 * 1024 || b.subarray(0, 65536).includes(0)) continue;
    texts.push(b);
    names.push(f);
    folded.add(f, lower(b), facts);
    exact.add(f, b, facts);
  }
  folded.freeze();
  exact.freeze();
  const fs0 = folded.stats();
  const fs1 = exact.stats();
  say(`files indexed: ${fs0.files}, text ${mib(fs0.textBytes)}`);
  say(
    `index, folded trigrams: ${fs0.trigrams} trigrams, postings ${mib(fs0.postingBytes)}, memory ${mib(fs0.memoryBytes)}`,
  );
  say(
    `index, exact-case trigrams: ${fs1.trigrams} trigrams, postings ${mib(fs1.postingBytes)}, memory ${mib(fs1.memoryBytes)} (${((fs1.memoryBytes / fs0.memoryBytes - 1) * 100).toFixed(1)}%)`,
  );
  say(
    "| identifier | files holding it | candidates, folded | candidates, exact case | caseless, exact index |",
  );
  say("|---|---:|---:|---:|---:|");
  let sum0 = 0;
  let sum1 = 0;
  let sumTrue = 0;
  const count = (c: Uint8Array | null) => (c === null ? texts.length : c.reduce((n, x) => n + x, 0));
  for (const id of IDENTIFIERS) {
    const needle = Buffer.from(id);
    const holding = texts.filter((t) => t.includes(needle)).length;
    const c0 = count(folded.candidates({ literals: [id.toLowerCase()], traps: false, ignoreCase: false }));
    const m1 = exact.candidates({ literals: [id], traps: false, ignoreCase: false });
    const mi = exact.candidates({ literals: [id], traps: false, ignoreCase: true });
    // The index only narrows: every file holding the identifier (in any case, for the caseless query) is one.
    const low = Buffer.from(id.toLowerCase());
    texts.forEach((t, i) => {
      if ((t.includes(needle) && m1?.[i] !== 1) || (lower(t).includes(low) && mi?.[i] !== 1))
        throw new Error(`${id}: ${names[i]} holds it but is not a candidate`);
    });
    const c1 = count(m1);
    const ci = count(mi);
    sum0 += c0;
    sum1 += c1;
    sumTrue += holding;
    say(`| ${id} | ${holding} | ${c0} | ${c1} | ${ci} |`);
  }
  say(
    `| all 20 | ${sumTrue} | ${sum0} | ${sum1} (${(sum1 / sum0).toFixed(2)}x; false candidates ${sum0 - sumTrue} → ${sum1 - sumTrue}) | |`,
  );
}

/** Peak RSS of a process (VmHWM), in bytes, or 0. */
function peakRss(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? 0 : Number(m[1]) * 1024;
  } catch {
    return 0;
  }
}

/** Ten copies of the checkout side by side (copied, not linked), made once. */
function tree277k(): string {
  const given = args.get("tree");
  if (given !== undefined) return path.resolve(given);
  const dir = path.join(WORK, "t277k");
  if (!fs.existsSync(path.join(WORK, "t277k.done"))) {
    say(`making ${dir} (ten copies of ${BABEL})`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 10; i++)
      spawnSync("cp", ["-r", BABEL, path.join(dir, `babel-${i}`)], { stdio: "inherit" });
    fs.writeFileSync(path.join(WORK, "t277k.done"), "");
  }
  return dir;
}

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
const KINDS = ["Service", "Controller", "Helper", "Factory", "Repository", "Handler", "Config", "Schema"];

/** A generated tree of a million small source files (1,000 directories of 1,000), made once. */
function tree1m(): string {
  const given = args.get("tree1m");
  if (given !== undefined) return path.resolve(given);
  const dir = path.join(WORK, "t1m");
  if (!fs.existsSync(path.join(WORK, "t1m.done"))) {
    say(`making ${dir} (1,000,000 files)`);
    fs.rmSync(dir, { recursive: true, force: true });
    let seed = 1;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let d = 0; d < 1000; d++) {
      const sub = path.join(
        dir,
        `pkg-${WORDS[d % WORDS.length]}-${d}`,
        "src",
        WORDS[(d >> 3) % WORDS.length] as string,
      );
      fs.mkdirSync(sub, { recursive: true });
      for (let f = 0; f < 1000; f++) {
        const w = WORDS[rand(WORDS.length)] as string;
        const k = KINDS[rand(KINDS.length)] as string;
        const name = `${w}${k}${f}`;
        const text = `import { ${w}Util } from "../util/${w}";\n\nexport class ${name[0]?.toUpperCase()}${name.slice(1)} {\n  private readonly ${w}_id = ${rand(100000)};\n  // TODO: handle ${WORDS[rand(WORDS.length)]} ${rand(1000)}\n  get${k}(): string {\n    return ${w}Util.format(this.${w}_id, "${k.toUpperCase()}_${rand(999)}");\n  }\n}\n`;
        fs.writeFileSync(path.join(sub, `${name}.ts`), text);
      }
    }
    fs.writeFileSync(path.join(WORK, "t1m.done"), "");
  }
  return dir;
}

/** `rglob index` of a tree: wall time, peak RSS (GNU time), the index's size. */
function cliIndex(tree: string, cache: string): void {
  fs.rmSync(cache, { recursive: true, force: true });
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M %U %S", BIN, "index", "--json"], {
    cwd: tree,
    env: { ...process.env, RGLOB_CACHE_DIR: cache },
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const t = r.stderr.trim().split("\n").pop()?.split(" ").map(Number) ?? [];
  const rec = JSON.parse(r.stdout) as { results: Array<Record<string, number>> };
  const info = rec.results[0] ?? {};
  say(
    `rglob index: ${t[0]} s wall (${((t[2] ?? 0) + (t[3] ?? 0)).toFixed(1)} s CPU), peak RSS ${mib((t[1] ?? 0) * 1024)}, ${info.files} files, ${info.trigrams} trigrams, index file ${mib(info.index_bytes ?? 0)}, text ${mib(info.text_bytes ?? 0)} (${load()})`,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the server until its index is ready (or not kept): the time since `t0`. */
async function untilReady(
  s: RawMcpServer,
  t0: number,
): Promise<{ ms: number; status: Record<string, unknown> }> {
  for (;;) {
    const st = await s.warm();
    if (st.state !== "building") return { ms: performance.now() - t0, status: st };
    await sleep(200);
  }
}

async function serverBuild(tree: string, cache: string): Promise<void> {
  fs.rmSync(cache, { recursive: true, force: true });
  const t0 = performance.now();
  const s = new RawMcpServer(BIN, tree, cache, "bench-index-scale");
  await s.start();
  const { ms, status } = await untilReady(s, t0);
  const first = (await s.grep({ pattern: "traverseFast", limit: 100 })).r;
  say(
    `rglob mcp: index ${status.state} in ${(ms / 1000).toFixed(1)} s (${status.files} files, index ${mib(Number(status.index_bytes ?? 0))}, build_ms ${status.build_ms}${status.reason ? `, ${status.reason}` : ""}), peak RSS ${mib(peakRss(s.pid))}; first grep source ${first.source} (${load()})`,
  );
  // Let the index reach the cache (it is written after the build, in the background).
  const file = path.join(cache, "index");
  for (let i = 0; i < 1200; i++) {
    if (fs.existsSync(file) && fs.readdirSync(file).some((f) => f.endsWith(".rgi"))) break;
    await sleep(100);
  }
  await sleep(1000);
  await s.stop();
}

async function restart(tree: string, cache: string): Promise<void> {
  for (let run = 0; run < 2; run++) {
    const t0 = performance.now();
    const s = new RawMcpServer(BIN, tree, cache, "bench-index-scale");
    await s.start();
    // Capabilities are polled (a grep meanwhile would walk the whole tree cold and hold the load back), then
    // one grep: its answer is the first warm one (the server answers from the index before its watch is set up,
    // stat'ing each file the index rules out: ADR 0035).
    const { ms: readyMs, status: st } = await untilReady(s, t0);
    const answer = (await s.grep({ pattern: "traverseFast", limit: 100 })).r;
    const ms = performance.now() - t0;
    say(
      `restart ${run + 1}: ${st.state} after ${(readyMs / 1000).toFixed(2)} s, first answer after ${(ms / 1000).toFixed(2)} s (source ${answer.source}; ${st.reason ?? "no reason"}), server CPU ${cpuSecondsOf(s.pid).toFixed(1)} s (${load()})`,
    );
    // Then the watch: set up, every indexed file stat'ed again, and the watch trusted (checks.mode "watch").
    for (;;) {
      const w = await s.warm();
      if (w.watching === true) break;
      await sleep(200);
    }
    const watched = performance.now() - t0;
    // Capabilities' reason says when every indexed file was stat'ed again after the set-up (then the watch vouches).
    for (;;) {
      const w = await s.warm();
      if (/checked (again|once watched)/.test(String(w.reason))) break;
      await sleep(200);
    }
    const trusted = performance.now() - t0;
    const times: string[] = [];
    let mode = "";
    for (let i = 0; i < 3; i++) {
      const q0 = performance.now();
      const r = (await s.grep({ pattern: "zqxNowhereLiteral", limit: 100 })).r;
      times.push(`${(performance.now() - q0).toFixed(1)} ms (${r.source})`);
      mode = String(((await s.warm()).checks as { mode?: string } | undefined)?.mode);
    }
    say(
      `  watch set up after ${(watched / 1000).toFixed(1)} s, trusted (files stat'ed again) after ${(trusted / 1000).toFixed(1)} s; then a literal found nowhere: ${times.join(", ")}, checks ${mode}; server CPU ${cpuSecondsOf(s.pid).toFixed(1)} s, peak RSS ${mib(peakRss(s.pid))} (${load()})`,
    );
    await s.stop();
  }
}

say(`# bench-index-scale (${new Date().toISOString()}, ${os.cpus().length} cores, ${load()})`);
if (parts.has("narrow")) narrow();
if (parts.has("build") || parts.has("restart")) {
  const tree = tree277k();
  const cache = path.join(WORK, "cache-277k");
  say(`## 277k tree: ${tree}`);
  if (parts.has("build")) {
    cliIndex(tree, path.join(WORK, "cache-cli"));
    await serverBuild(tree, cache);
  }
  if (parts.has("restart")) await restart(tree, cache);
}
if (parts.has("1m")) {
  const tree = tree1m();
  say(`## 1M tree: ${tree}`);
  cliIndex(tree, path.join(WORK, "cache-1m"));
}
