// Very large files (issue #8): a 2 GiB sparse file and a 1 GiB single-line file are searched in bounded
// memory, counted, and skipped cleanly by --max-file-size. Peak memory is read from /proc while the binary runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "../helpers.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "rglob-big-")));
const GiB = 1024 ** 3;
const LIMIT_KIB = 600 * 1024; // bounded: far below the file sizes

beforeAll(() => {
  // 2 GiB, sparse: a text line, then a hole of NUL bytes.
  const sparse = join(dir, "sparse.bin");
  const fd = openSync(sparse, "w");
  writeSync(fd, "header needle line\n");
  closeSync(fd);
  truncateSync(sparse, 2 * GiB);
  // 1 GiB on one line of text, the needle at its very end.
  const line = join(dir, "oneline.txt");
  const out = openSync(line, "w");
  const block = Buffer.alloc(1024 * 1024, "a");
  for (let i = 0; i < 1023; i++) writeSync(out, block);
  const last = Buffer.alloc(1024 * 1024, "a");
  last.write("needle\n", last.length - 7);
  writeSync(out, last);
  closeSync(out);
}, 120_000);
afterAll(() => {
  Bun.spawnSync(["rm", "-rf", dir]);
});

/** Samples a process's resident memory every 20 ms; the returned function stops and gives the peak in KiB. */
function watchPeak(pid: number): () => number {
  let peakKiB = 0;
  const timer = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      peakKiB = Math.max(peakKiB, Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {}
  }, 20);
  return () => {
    clearInterval(timer);
    return peakKiB;
  };
}

async function runMeasured(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string; peakKiB: number }> {
  const proc = Bun.spawn([BIN, ...args], {
    cwd: dir,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const peak = watchPeak(proc.pid);
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  const code = await proc.exited;
  return { code, stdout, stderr, peakKiB: peak() };
}

describe("very large files", () => {
  test("a 2 GiB sparse file: skipped as binary by default, searched as text with -a in bounded memory", async () => {
    // Met by the walk (a glob, not a named file, which is searched as rg searches it: #22).
    const skipped = JSON.parse((await runMeasured(["grep", "needle", "-g", "sparse.bin", "--json"])).stdout);
    expect(skipped.results).toEqual([]);
    // Counted in the skip ledger, not listed as an error record (#37; --list-binary lists it).
    expect(skipped.errors).toEqual([]);
    expect(skipped.skipped.binary).toBe(1);
    const r = await runMeasured(["grep", "-a", "needle", "sparse.bin", "--json", "--max-columns", "200"]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.results.map((m: { line_number: number }) => m.line_number)).toEqual([1]);
    expect(r.peakKiB).toBeLessThan(LIMIT_KIB);
  }, 180_000);

  test("a 1 GiB single-line file: the match at its end is found, clipped, in bounded memory", async () => {
    const r = await runMeasured(["grep", "-F", "needle", "oneline.txt", "--json", "--max-columns", "100"]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.results).toHaveLength(1);
    expect(json.results[0].line_number).toBe(1);
    expect(json.results[0].clipped).toBe(true);
    expect(json.results[0].content.length).toBeLessThanOrEqual(200);
    expect(r.peakKiB).toBeLessThan(LIMIT_KIB);
  }, 180_000);

  test("count reads them in bounded memory; --max-file-size skips them cleanly", async () => {
    const c = await runMeasured(["count", "--json"]);
    expect(c.code).toBe(0);
    expect(c.peakKiB).toBeLessThan(LIMIT_KIB);
    const counted = JSON.parse(c.stdout) as {
      results: Array<{ relative_path: string; lines: number; bytes: number }>;
    };
    expect(counted.results).toEqual([
      expect.objectContaining({ relative_path: "oneline.txt", lines: 1, bytes: GiB }),
    ]);
    const r = await runMeasured(["grep", "-a", "needle", "--max-file-size", "1M", "--json"]);
    const json = JSON.parse(r.stdout);
    expect(json.results).toEqual([]);
    expect(json.errors.map((e: { code: string }) => e.code).sort()).toEqual(["TOO_LARGE", "TOO_LARGE"]);
    expect(r.code).toBe(1);
  }, 180_000);
});

describe("a file with millions of matching lines", () => {
  const logDir = realpathSync(mkdtempSync(join(tmpdir(), "rglob-hits-")));
  const LINES = 2_000_000;
  beforeAll(() => {
    // 76 MB, every line a match: its hits must stream out, not pile up (they took 1.3 KB of memory each).
    const fd = openSync(join(logDir, "app.log"), "w");
    const block = Buffer.from("ERROR something happened here code=42\n".repeat(100_000));
    for (let i = 0; i < LINES / 100_000; i++) writeSync(fd, block);
    closeSync(fd);
  }, 60_000);
  afterAll(() => {
    Bun.spawnSync(["rm", "-rf", logDir]);
  });

  for (const threads of ["0", "2"]) {
    test(`-j${threads}: every line is printed and memory stays bounded`, async () => {
      const proc = Bun.spawn([BIN, "grep", "ERROR", "app.log", "--stats", "-j", threads], {
        cwd: logDir,
        stdout: "pipe",
        stderr: "pipe",
      });
      const peak = watchPeak(proc.pid);
      // Count the output lines as they come instead of holding them.
      let lines = 0;
      for await (const part of proc.stdout) for (const b of part) if (b === 10) lines++;
      const stderr = await new Response(proc.stderr).text();
      expect(await proc.exited).toBe(0);
      const peakKiB = peak();
      expect(lines).toBe(LINES);
      expect(stderr).toContain(`${LINES} matched lines`);
      expect(peakKiB).toBeLessThan(LIMIT_KIB);
    }, 180_000);
  }

  test("--json writes the document as its records come: memory stays bounded", async () => {
    // Held as objects until the end, 581k records took 1.1 GB; these 2 million would take several.
    const proc = Bun.spawn([BIN, "grep", "ERROR", "app.log", "--json"], {
      cwd: logDir,
      stdout: "pipe",
      stderr: "pipe",
    });
    const peak = watchPeak(proc.pid);
    // Count the records (each has one "line_number" key) as they come; keep the document's two ends.
    const key = Buffer.from('"line_number":');
    let records = 0;
    let head = "";
    let tail = Buffer.alloc(0);
    for await (const part of proc.stdout) {
      if (head.length < 13) head += Buffer.from(part).toString("latin1", 0, 13 - head.length);
      const chunk = Buffer.concat([tail, Buffer.from(part)]);
      for (let at = chunk.indexOf(key); at >= 0; at = chunk.indexOf(key, at + key.length)) {
        // A key that ends in the kept tail was counted with the previous chunk.
        if (at + key.length > tail.length) records++;
      }
      tail = chunk.subarray(Math.max(0, chunk.length - 512));
    }
    expect(await proc.exited).toBe(0);
    const peakKiB = peak();
    expect(head).toBe('{"results":[{');
    expect(records).toBe(LINES);
    const end = tail.toString("latin1");
    expect(end).toContain(`"matched_lines":${LINES},`);
    expect(end.endsWith("}\n")).toBe(true);
    expect(peakKiB).toBeLessThan(LIMIT_KIB);
  }, 180_000);
});
