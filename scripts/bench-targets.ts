/*! The targets of #23 from one run (a script, never a test): on each corpus, `find -t f` vs `fd --type f`, the
 * no-ignore listing vs `fd -u`, grep (common literal, rare literal, `-i -w`, a regex with classes) vs `rg -n`,
 * dupes vs `fdupes -qrn`, count vs `xargs wc -l` (with .git pruned, as rglob never lists it; beside the line
 * count's floor, a second row with the floor that classifies lines as rglob does; beside dupes' floor, a second
 * rows with the floor that runs rglob's own dupes engine and with the whole-file floor that makes rglob's checks
 * (floor-dupes --checked); beside find's and grep's, the floor split between two threads),
 * start-up vs
 * rg's, and the peak memory of `find --jsonl` on a small and a large generated tree (bench-memory.ts's trees; it
 * prints more sizes and commands). Beside each ratio: the
 * target, and the ratio of the floor program (the smallest Bun program doing the same work: floor-find.ts,
 * floor-grep.ts, floor-dupes.ts, floor-count.ts, compiled here with the binary's flags) from the same runs.
 * Runs alternate the commands one by one, output into a pipe; wall and CPU (user+sys, from /usr/bin/time) are
 * medians. Outputs are compared (find: bytes with the floor, the set of lines with fd; grep: the set of lines
 * with rg and with the floor; dupes: the groups of paths with fdupes, outside .git, and with the floor; count:
 * each file's line count with the floor), and a mismatch is printed in the table.
 * Usage: bun scripts/bench-targets.ts [--runs=N] [--repo=PATH] [--mem-files=N] [--only=find|grep|other|mem]
 *   --repo adds a checkout (e.g. babel) before this repository's node_modules; --mem-files (default 200000) is
 *   the size of the large generated tree (the small one is a tenth of it). */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchArgs, compileFloor, countsCompare, loadAverage } from "./bench-args.ts";
import { memTree } from "./bench-memory.ts";

const root = join(import.meta.dir, "..");
const args = benchArgs(
  "bun scripts/bench-targets.ts [--runs=N] [--repo=PATH] [--mem-files=N] [--only=find|grep|other|mem]",
  { repo: "text", "mem-files": "count", only: "text" },
  5,
);
const runs = args.runs;
const only = args.get("only");
const bin = process.env.RGLOB_BIN ?? join(root, "dist", "rglob");
if (!existsSync(bin)) {
  console.error(`no binary at ${bin}: run \`npm run build\` first`);
  process.exit(1);
}
const which = (cmd: string): string | null => {
  const r = spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
};
const fd = which("fd") ?? which("fdfind");
const rg = which("rg");
const fdupes = which("fdupes");
const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
const timeFile = join(tmpdir(), `rglob-bench-targets-${process.pid}`);

/** Whether this binary takes --no-hidden (hidden entries are included by default once it does). */
const takesNoHidden = spawnSync(bin, ["find", "--no-hidden", "--limit", "1"], { cwd: root }).status !== 2;
const noHidden = takesNoHidden ? ["--no-hidden"] : [];

interface Sample {
  wall: number;
  cpu: number;
  rss: number;
  out: Buffer;
}

function runOnce(cmd: readonly string[], cwd: string, shell = false): Sample {
  const argv = shell ? ["sh", "-c", cmd.join(" ")] : [...cmd];
  const full = gnuTime ? [gnuTime, "-f", "%U %S %M", "-o", timeFile, ...argv] : argv;
  const t0 = performance.now();
  const r = spawnSync(full[0] as string, full.slice(1), {
    cwd,
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const wall = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd.join(" ")} exited ${r.status}`);
  let cpu = Number.NaN;
  let rss = Number.NaN;
  if (gnuTime) {
    const last = readFileSync(timeFile, "utf8").trim().split("\n").pop() ?? "";
    const [user, sys, kb] = last.split(" ").map(Number);
    cpu = ((user ?? Number.NaN) + (sys ?? Number.NaN)) * 1000;
    rss = (kb ?? Number.NaN) / 1024;
  }
  return { wall, cpu, rss, out: r.stdout };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

interface Timed {
  wall: number;
  cpu: number;
  rss: number;
  out: Buffer;
}

/** Runs the commands `runs` times each, alternating, after one warm-up round; medians per command. */
function race(
  cmds: ReadonlyArray<readonly string[] | null>,
  cwd: string,
  shell = false,
): Array<Timed | null> {
  const live = cmds.map((c) => (c === null ? null : { c, s: [] as Sample[] }));
  for (const l of live) if (l) runOnce(l.c, cwd, shell);
  for (let i = 0; i < runs; i++) for (const l of live) if (l) l.s.push(runOnce(l.c, cwd, shell));
  return live.map((l) =>
    l === null
      ? null
      : {
          wall: median(l.s.map((s) => s.wall)),
          cpu: median(l.s.map((s) => s.cpu)),
          rss: median(l.s.map((s) => s.rss)),
          out: (l.s.at(-1) as Sample).out,
        },
  );
}

const sortedLines = (b: Buffer) => b.toString("utf8").split("\n").filter(Boolean).sort().join("\n");

/** How two outputs compare as sets of lines: "same lines", or how many lines only one of them has. */
function lineSets(a: Buffer, b: Buffer, name: string): string {
  const x = new Set(a.toString("utf8").split("\n").filter(Boolean));
  const y = new Set(b.toString("utf8").split("\n").filter(Boolean));
  let onlyA = 0;
  let onlyB = 0;
  for (const l of x) if (!y.has(l)) onlyA++;
  for (const l of y) if (!x.has(l)) onlyB++;
  return onlyA + onlyB === 0
    ? `${name}: same lines`
    : `${name}: ${onlyA} lines only rglob's, ${onlyB} only ${name}'s`;
}

/** Groups of paths from `rglob dupes --jsonl` (relative paths; each group sorted, then joined). */
function dupeGroupsOfJsonl(b: Buffer): Set<string> {
  const out = new Set<string>();
  for (const line of b.toString("utf8").split("\n")) {
    if (!line.startsWith('{"kind":"duplicate"')) continue;
    const r = JSON.parse(line) as { relative_paths: string[] };
    out.add([...r.relative_paths].sort().join("\n"));
  }
  return out;
}

/**
 * Groups of paths from text blocks separated by blank lines (fdupes' output: `./`-prefixed paths; the floor's:
 * a header line per block and a closing line of totals). Paths inside a VCS directory are left out (fdupes
 * walks .git, which rglob never lists), and a group left with one path with them.
 * @param header lines to drop at the start of each block
 */
function dupeGroupsOfText(b: Buffer, header: number): Set<string> {
  const out = new Set<string>();
  for (const block of b.toString("utf8").split("\n\n")) {
    const paths = block
      .split("\n")
      .filter(Boolean)
      .slice(header)
      .map((p) => p.replace(/^\.\//, ""))
      .filter((p) => !/(^|\/)\.git\//.test(p));
    if (paths.length > 1) out.add(paths.sort().join("\n"));
  }
  return out;
}

/** How two sets of duplicate groups compare: "same groups", or how many groups only one of them has. */
function groupSets(ours: Set<string>, theirs: Set<string>, name: string): string {
  let onlyA = 0;
  let onlyB = 0;
  for (const g of ours) if (!theirs.has(g)) onlyA++;
  for (const g of theirs) if (!ours.has(g)) onlyB++;
  return onlyA + onlyB === 0
    ? `${name}: same groups (${ours.size})`
    : `${name}: ${onlyA} groups only rglob's, ${onlyB} only ${name}'s`;
}

interface Row {
  corpus: string;
  what: string;
  rglob: Timed;
  peer: Timed | null;
  peerName: string;
  target: string;
  floor: Timed | null;
  check: string;
}
const rows: Row[] = [];
const ratio = (a: number, b: number | undefined) =>
  b === undefined || !Number.isFinite(a / b) ? "-" : `${(a / b).toFixed(2)}×`;

const loadNow = loadAverage;

const corpora: Array<[string, string]> = [];
const repo = args.get("repo");
if (repo) corpora.push([repo.replace(/\/+$/, "").split("/").pop() ?? repo, repo]);
if (existsSync(join(root, "node_modules"))) corpora.push(["node_modules", join(root, "node_modules")]);

const floorFind = only === undefined || only === "find" ? compileFloor("find") : null;
const floorFindThreads =
  only === undefined || only === "find" ? compileFloor("find-threads", ["floor-find-thread"]) : null;
const floorGrep = only === undefined || only === "grep" ? compileFloor("grep", ["floor-grep-thread"]) : null;
const floorDupes = only === undefined || only === "other" ? compileFloor("dupes") : null;
const floorCount = only === undefined || only === "other" ? compileFloor("count") : null;
console.log(`load average at start: ${loadNow()} (${runs} alternating runs per command, medians)`);
for (const [name, dir] of corpora) {
  if (only === undefined || only === "find") {
    const [ours, peer, fl, fl2t] = race(
      [
        [bin, "find", "-t", "f", ...noHidden],
        fd ? [fd, "--type", "f"] : null,
        floorFind ? [floorFind] : null,
        floorFindThreads ? [floorFindThreads] : null,
      ],
      dir,
    );
    const same = fl ? ((ours as Timed).out.equals(fl.out) ? "floor = rglob" : "FLOOR DIFFERS") : "";
    const setSame = peer ? lineSets((ours as Timed).out, peer.out, "fd") : "";
    rows.push({
      corpus: name,
      what: "find -t f",
      rglob: ours as Timed,
      peer: peer ?? null,
      peerName: "fd --type f",
      target: "≤ 0.8×",
      floor: fl ?? null,
      check: [same, setSame].filter(Boolean).join(", "),
    });
    // The same run against the floor split between two threads (the best case of a parallel walk).
    rows.push({
      corpus: name,
      what: "find -t f, floor in two threads",
      rglob: ours as Timed,
      peer: peer ?? null,
      peerName: "fd --type f",
      target: "≤ 0.8×",
      floor: fl2t ?? null,
      check: fl2t ? lineSets((ours as Timed).out, fl2t.out, "floor") : "",
    });
    const [ours2, peer2, fl2] = race(
      [
        [bin, "find", "-t", "f", "--no-ignore", "--hidden"],
        fd ? [fd, "-u", "--type", "f", "--exclude", ".git"] : null,
        floorFind ? [floorFind, "--no-ignore", "--hidden"] : null,
      ],
      dir,
    );
    const same2 = [
      fl2 ? ((ours2 as Timed).out.equals(fl2.out) ? "floor = rglob" : "FLOOR DIFFERS") : "",
      peer2 ? lineSets((ours2 as Timed).out, peer2.out, "fd") : "",
    ]
      .filter(Boolean)
      .join(", ");
    rows.push({
      corpus: name,
      what: "find -t f --no-ignore --hidden",
      rglob: ours2 as Timed,
      peer: peer2 ?? null,
      peerName: "fd -u --type f -E .git",
      target: "≤ 0.9×",
      floor: fl2 ?? null,
      check: same2,
    });
  }
  if (only === undefined || only === "grep") {
    // [what, pattern and flags, whether rglob and the floor get -F (rg needs none for these literals), the
    // floor's prefilter (the literal rglob derives from the regex)]
    const cases: Array<[string, string[], boolean, string[]]> = [
      ["grep common literal", ["function"], true, []],
      ["grep rare literal", ["needle_zqx_rare"], true, []],
      ["grep -i -w", ["-i", "-w", "error"], false, []],
      ["grep regex with classes", ["[A-Z][a-z]+Error"], false, ["--literal=Error"]],
    ];
    for (const [what, pat, lit, pre] of cases) {
      const fixed = lit ? ["-F"] : [];
      const [ours, peer, fl, fl2t] = race(
        [
          [bin, "grep", ...noHidden, ...fixed, ...pat],
          rg ? [rg, "-n", ...pat] : null,
          floorGrep ? [floorGrep, ...fixed, ...pat, ...pre] : null,
          floorGrep ? [floorGrep, ...fixed, ...pat, ...pre, "--threads"] : null,
        ],
        dir,
      );
      const o = sortedLines((ours as Timed).out);
      const checks = [peer ? lineSets((ours as Timed).out, peer.out, "rg") : ""];
      if (fl)
        checks.push(
          o === sortedLines(fl.out) ? "floor: same lines" : lineSets((ours as Timed).out, fl.out, "floor"),
        );
      rows.push({
        corpus: name,
        what,
        rglob: ours as Timed,
        peer: peer ?? null,
        peerName: "rg -n",
        target: "≤ 1.0×",
        floor: fl ?? null,
        check: checks.filter(Boolean).join(", "),
      });
      // The same run against the floor split between two threads (rg searches in two on two cores).
      rows.push({
        corpus: name,
        what: `${what}, floor in two threads`,
        rglob: ours as Timed,
        peer: peer ?? null,
        peerName: "rg -n",
        target: "≤ 1.0×",
        floor: fl2t ?? null,
        check: fl2t ? lineSets((ours as Timed).out, fl2t.out, "floor") : "",
      });
    }
  }
  if (only === undefined || only === "other") {
    const [d, f, fl, fle, flw] = race(
      [
        [bin, "dupes", "--no-ignore", "--hidden", "--jsonl"],
        fdupes ? [fdupes, "-qrn", "."] : null,
        floorDupes ? [floorDupes, "--no-ignore", "--hidden"] : null,
        floorDupes ? [floorDupes, "--no-ignore", "--hidden", "--engine"] : null,
        floorDupes ? [floorDupes, "--no-ignore", "--hidden", "--checked"] : null,
      ],
      dir,
    );
    const ours = dupeGroupsOfJsonl((d as Timed).out);
    const checks: string[] = [];
    if (f) checks.push(groupSets(ours, dupeGroupsOfText(f.out, 0), "fdupes"));
    if (fl) checks.push(groupSets(ours, dupeGroupsOfText(fl.out, 1), "floor"));
    rows.push({
      corpus: name,
      what: "dupes --no-ignore --hidden",
      rglob: d as Timed,
      peer: f ?? null,
      peerName: "fdupes -qrn",
      target: "≤ 0.7×",
      floor: fl ?? null,
      check: checks.join(", "),
    });
    // The same run against the floor that puts the same candidates through rglob's own engine (edges first,
    // files opened without a symlink on the way, members checked unchanged after they were read).
    rows.push({
      corpus: name,
      what: "dupes, floor with rglob's engine",
      rglob: d as Timed,
      peer: f ?? null,
      peerName: "fdupes -qrn",
      target: "≤ 0.7×",
      floor: fle ?? null,
      check: fle ? groupSets(ours, dupeGroupsOfText(fle.out, 1), "floor") : "",
    });
    // And against the whole-file floor that makes rglob's checks (files opened with no symlink on the way,
    // members stat'ed again after the reads): the same work by the simplest route.
    rows.push({
      corpus: name,
      what: "dupes, whole-file floor with rglob's checks",
      rglob: d as Timed,
      peer: f ?? null,
      peerName: "fdupes -qrn",
      target: "≤ 0.7×",
      floor: flw ?? null,
      check: flw ? groupSets(ours, dupeGroupsOfText(flw.out, 1), "floor") : "",
    });
    const [c, w, flc, flk] = race(
      [
        [bin, "count", "--no-ignore", "--hidden", "--jsonl"],
        // .git pruned: rglob never lists a VCS directory (a pack file is hundreds of MB of work it never does).
        [
          "find",
          ".",
          "-name",
          ".git",
          "-prune",
          "-o",
          "-type",
          "f",
          "-print0",
          "|",
          "xargs",
          "-0",
          "wc",
          "-l",
        ],
        floorCount ? [floorCount, "--no-ignore", "--hidden"] : null,
        floorCount ? [floorCount, "--no-ignore", "--hidden", "--classify"] : null,
      ],
      dir,
      true,
    );
    rows.push({
      corpus: name,
      what: "count --no-ignore --hidden",
      rglob: c as Timed,
      peer: w ?? null,
      peerName: "xargs wc -l",
      target: "≤ 0.3×",
      floor: flc ?? null,
      check: flc ? countsCompare((c as Timed).out, flc.out, false) : "",
    });
    // The same run against the floor that also tells code, comment and blank lines apart (rglob's work).
    rows.push({
      corpus: name,
      what: "count, floor classifying too",
      rglob: c as Timed,
      peer: w ?? null,
      peerName: "xargs wc -l",
      target: "≤ 0.3×",
      floor: flk ?? null,
      check: flk ? countsCompare((c as Timed).out, flk.out, true) : "",
    });
  }
}
if (only === undefined || only === "other") {
  const [v, r] = race([[bin, "--version"], rg ? [rg, "--version"] : null], root);
  rows.push({
    corpus: "-",
    what: "--version (start-up)",
    rglob: v as Timed,
    peer: r ?? null,
    peerName: "rg --version",
    target: "≤ 2×",
    floor: null,
    check: "",
  });
}

let mem = "";
if ((only === undefined || only === "mem") && gnuTime) {
  const big = args.count("mem-files", 200_000);
  const small = Math.max(1, Math.floor(big / 10));
  // Also with the walk in one thread (`env` execs the binary, so the peak is the binary's): the walk workers
  // run ahead of the output and have heaps of their own (docs/decisions/0009-parallel-walk.md).
  const oneThread = ["env", "RGLOB_WALK_SPLIT=0", bin, "find", "--jsonl"];
  const [s, s1] = race([[bin, "find", "--jsonl"], oneThread], memTree(small));
  const [b, b1] = race([[bin, "find", "--jsonl"], oneThread], memTree(big));
  if (s && b && s1 && b1)
    mem =
      `peak RSS of find --jsonl: ${s.rss.toFixed(0)} MB at ${small} files, ${b.rss.toFixed(0)} MB at ${big} files ` +
      `(${ratio(b.rss, s.rss)} for 10× the entries; target: flat); walk in one thread (RGLOB_WALK_SPLIT=0): ` +
      `${s1.rss.toFixed(0)} → ${b1.rss.toFixed(0)} MB (${ratio(b1.rss, s1.rss)})`;
}

console.log(`load average at end: ${loadNow()}\n`);
console.log(
  "| corpus | command | rglob ms (cpu) | peer | peer ms (cpu) | ratio wall (cpu) | target | floor ms (cpu) | floor ratio wall (cpu) | output |",
);
console.log("|---|---|---:|---|---:|---:|---|---:|---:|---|");
for (const r of rows) {
  const p = r.peer;
  const f = r.floor;
  console.log(
    `| ${r.corpus} | ${r.what} | ${r.rglob.wall.toFixed(0)} (${r.rglob.cpu.toFixed(0)}) | ${r.peerName} | ${p ? `${p.wall.toFixed(0)} (${p.cpu.toFixed(0)})` : "missing"} | ${p ? `${ratio(r.rglob.wall, p.wall)} (${ratio(r.rglob.cpu, p.cpu)})` : "-"} | ${r.target} | ${f ? `${f.wall.toFixed(0)} (${f.cpu.toFixed(0)})` : "-"} | ${f && p ? `${ratio(f.wall, p.wall)} (${ratio(f.cpu, p.cpu)})` : "-"} | ${r.check} |`,
  );
}
if (mem) console.log(`\n${mem}`);
rmSync(timeFile, { force: true });
