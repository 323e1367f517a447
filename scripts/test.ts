/*! The test command: regenerates nothing, checks the generated schemas are fresh, builds dist/rglob (the tests
 * exercise the compiled binary), runs `bun test` with a JUnit report, and prints one closing line
 * `N passed, N failed` (CI reads it; bun's own summary is in another form). Keeps bun's exit code.
 * Extra arguments go to `bun test` (e.g. a file filter). */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const bun = process.execPath;
const build = spawnSync(bun, [join(root, "scripts", "build.ts")], { stdio: "inherit", cwd: root });
if (build.status !== 0) {
  console.log("0 passed, 1 failed");
  process.exit(build.status ?? 1);
}
const outDir = join(root, ".test-out");
mkdirSync(outDir, { recursive: true });
const report = join(outDir, "junit.xml");
const res = spawnSync(
  bun,
  ["test", "--timeout=60000", "--reporter=junit", `--reporter-outfile=${report}`, ...process.argv.slice(2)],
  { stdio: "inherit", cwd: root, env: { ...process.env, RGLOB_BIN: join(root, "dist", "rglob") } },
);
let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const xml = readFileSync(report, "utf8");
  const top = /<testsuites[^>]*>/.exec(xml)?.[0] ?? "";
  const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(top)?.[1] ?? 0);
  const tests = attr("tests");
  failed = attr("failures") + attr("errors");
  skipped = attr("skipped");
  passed = tests - failed - skipped;
} catch {
  failed = 1;
}
const code = res.status ?? 1;
if (code !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(code);
