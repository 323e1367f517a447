// dupes under pressure (#21 items 5 and 10): hashing many files honours --timeout (it stopped only after every
// file was hashed), and a file rewritten while dupes runs is an error record, never a group member (a file of at
// most 8 KiB was grouped with its old twin under the old digest). Real trees, the compiled binary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, tempTree } from "../helpers.ts";

describe("dupes and the deadline (#21 item 5)", () => {
  const t = tempTree({});
  afterAll(() => t.cleanup());
  beforeAll(() => {
    for (let d = 0; d < 75; d++) {
      const dir = join(t.dir, `d${d}`);
      mkdirSync(dir);
      for (let i = 0; i < 2000; i++) writeFileSync(join(dir, `f${i}`), "");
    }
  }, 120_000);

  test("150,000 empty files with --timeout 1: truncated by timeout, and the process ends well before a kill guard", () => {
    const res = Bun.spawnSync(
      [BIN, "dupes", "--include-empty", "--timeout", "1", "--json", "--base", t.dir],
      {
        stdout: "pipe",
        stderr: "pipe",
        timeout: 6_000, // the guard: hashing every file past the deadline took far longer than this
      },
    );
    expect(res.signalCode ?? null).toBeNull();
    const body = JSON.parse(res.stdout.toString()) as { truncated: boolean; truncated_reason: string | null };
    expect(body.truncated).toBe(true);
    expect(body.truncated_reason).toBe("timeout");
  });
});

describe("dupes and files that change during the run (#21 item 10)", () => {
  const A = "A".repeat(1000);
  const B = "B".repeat(1000);
  const spec: Record<string, string> = {};
  for (let i = 0; i < 20; i++) {
    spec[`twin${i}.txt`] = A.slice(0, 999) + String.fromCharCode(97 + i); // one twin per size class
    spec[`moving${i}.txt`] = A.slice(0, 999) + String.fromCharCode(97 + i);
  }
  const t = tempTree(spec);
  afterAll(() => t.cleanup());

  test("a file rewritten (same size) during runs is never grouped with its twin", async () => {
    // The rewriter alternates each moving file between its twin's contents and other contents of the same size.
    const script = `
      const { writeFileSync } = require("node:fs");
      const { join } = require("node:path");
      const dir = ${JSON.stringify(t.dir)};
      const A = ${JSON.stringify(A)}, B = ${JSON.stringify(B)};
      for (let n = 0; ; n++) {
        for (let i = 0; i < 20; i++) {
          const tail = String.fromCharCode(97 + i);
          writeFileSync(join(dir, "moving" + i + ".txt"), (n % 2 ? B : A).slice(0, 999) + tail);
        }
      }`;
    const writer = Bun.spawn([process.execPath, "-e", script], { stdout: "ignore", stderr: "inherit" });
    try {
      await Bun.sleep(200);
      let grouped = 0;
      let changedErrors = 0;
      for (let run = 0; run < 12; run++) {
        const proc = Bun.spawn([BIN, "dupes", "--json", "--base", t.dir], { stdout: "pipe", stderr: "pipe" });
        const guard = setTimeout(() => proc.kill(), 30_000);
        const out = await new Response(proc.stdout).text();
        await proc.exited;
        clearTimeout(guard);
        const body = JSON.parse(out) as {
          results: Array<{ relative_paths: string[] }>;
          errors: Array<{ path: string; message: string }>;
        };
        for (const g of body.results) if (g.relative_paths.some((p) => p.startsWith("moving"))) grouped++;
        changedErrors += body.errors.filter((e) => e.path.includes("moving")).length;
      }
      expect(grouped).toBe(0);
      expect(changedErrors).toBeGreaterThan(0);
    } finally {
      writer.kill();
      await writer.exited;
    }
  });
});
