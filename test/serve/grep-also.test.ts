/*! grep's `also` answered by a warm server (`rglob serve`): byte for byte the cold run's (stdout, stderr, exit
 * code), the index narrowing by the pattern only, in every mode; after an edit that makes a file meet a condition.
 * The compiled binary, a real tree, real processes. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sameAsColdIn, serveSandbox, until } from "./sandbox.ts";

const { root, run, servers, serve, end } = serveSandbox("rglob-grep-also-");
const sameAsCold = sameAsColdIn({ root, run, servers }, { RGLOB_SERVE_WAIT_MS: "120000" });
let server: ReturnType<typeof Bun.spawn> | null = null;

function put(rel: string, text: string): void {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), text);
}

beforeAll(async () => {
  put("svc/fetch.py", "import requests\n# TODO: retry\n");
  put("svc/upload.py", "import requests\n");
  put("svc/legacy.py", 'import requests\r\nMSG = "TODO"\r\n');
  put("svc/pipeline.py", "# requests elsewhere\n# TODO: split\n");
  for (let i = 0; i < 40; i++) put(`other/m${i}.py`, `def f${i}():\n    return ${i}  # note\n`);
  ({ server } = serve());
  expect(await until(() => servers().find((s) => s.root === root)?.state === "ready")).toBe(true);
}, 300_000);

afterAll(() => end(server));

const Q = ["grep", "-w", "requests", "--in", "code", "--also", "TODO", "--also-in", "comment"];

test("served answers with also are the cold run's, in every mode", () => {
  for (const extra of [["-l"], [], ["-c"], ["--json"], ["--files-without-match"]])
    sameAsCold([...Q, ...extra]);
  sameAsCold(["grep", "-l", "requests", "--without", "TODO", "--also-in", "comment"]);
  sameAsCold(["grep", "-c", "--include-zero", "return", "--also", "note"]);
  expect(sameAsCold([...Q, "-l"]).stdout.toString()).toBe("svc/fetch.py\n");
  // JSONL: the summary line says where the served answer came from and what it read; the rest is the cold one's.
  const strip = (text: string) => text.replace(/"bytes_read":\d+,/, "").replace(/"source":"[a-z_]+",/, "");
  const warm = run([...Q, "--jsonl"], root, { RGLOB_SERVE_WAIT_MS: "120000" });
  const cold = run([...Q, "--jsonl"], root, { RGLOB_SERVE: "0" });
  expect({ code: warm.code, out: strip(warm.stdout.toString()) }).toEqual({
    code: cold.code,
    out: strip(cold.stdout.toString()),
  });
  expect(warm.stdout.toString()).toContain('"left_out_by_also":2');
});

test("after an edit that makes a file meet its condition, the served answer is the cold one's", async () => {
  put("svc/upload.py", "import requests\n# TODO: chunked\n");
  let out = "";
  expect(
    await until(() => {
      out = sameAsCold([...Q, "-l"]).stdout.toString();
      return out.includes("upload.py");
    }, 200),
  ).toBe(true);
  expect(out).toBe("svc/fetch.py\nsvc/upload.py\n");
});
