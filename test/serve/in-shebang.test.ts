/*! A served grep with `in` or `--by language` answers as the cold one on scripts named by their #! line only
 * (test/surface/grep-shebang.test.ts has the cold answers): the files the index rules out are counted as a cold
 * run counts them (skipped.unknown_language: a file whose name names a language no lexer knows, and one whose
 * name names none and whose #! line names no lexed language), where a served call left them uncounted. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { SCRIPTS } from "../surface/shebang-scripts.ts";
import { sameAsColdIn, serveSandbox, until } from "./sandbox.ts";

const { root, run, servers, serve, end } = serveSandbox("rglob-in-shebang-");
/** A served call waits for the server rather than running cold. */
const sameAsCold = sameAsColdIn({ root, run, servers }, { RGLOB_SERVE_WAIT_MS: "120000" });
let server: ReturnType<typeof Bun.spawn> | null = null;

beforeAll(async () => {
  for (const [rel, content] of Object.entries(SCRIPTS)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
  ({ server } = serve());
  expect(await until(() => servers().find((s) => s.root === root)?.state === "ready")).toBe(true);
}, 300_000);

afterAll(() => end(server));

test("served grep --in and --by language give the cold answer, from the index", () => {
  for (const args of [
    // Every file ruled out by the index: those that cannot be lexed are counted all the same.
    ["grep", "nowhere_at_all", "--in", "comment", "--json"],
    ["grep", "TODO", "--in", "comment", "--json"],
    ["grep", "deploy", "--in", "code,comment", "--json"],
    ["grep", "TODO", "--by", "language", "--json"],
    ["grep", "TODO", "--in", "comment"],
    ["grep", "nowhere_at_all", "--in", "code"],
  ]) {
    const out = sameAsCold(args);
    if (args.includes("--json")) {
      const o = JSON.parse(out.stdout.toString()) as { source?: string; skipped: Record<string, number> };
      expect({ args, source: o.source }).toEqual({ args, source: "index" });
      if (args.includes("--in")) expect(o.skipped.unknown_language).toBe(4);
    }
  }
}, 120_000);
