/*! The test command: regenerates nothing, checks the generated schemas are fresh, builds dist/rglob (the tests
 * exercise the compiled binary), runs `bun test` with a JUnit report, and prints one closing line
 * `N passed, N failed, N skipped` (CI reads it; bun's own summary is in another form), after it every skipped
 * test by file and title (a test that cannot run here is declared skipped with its reason in its title:
 * test/helpers.ts skipWhen), so that a CI log says what did not run and why. Keeps bun's exit code.
 * Extra arguments go to `bun test` (e.g. a file filter). `--summary FILE` prints the summary of a JUnit report
 * already written, and runs nothing. */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const bun = process.execPath;

/** Reads what a JUnit report's five XML entities stand for. */
function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) =>
    e === "lt" ? "<" : e === "gt" ? ">" : e === "quot" ? '"' : e === "apos" ? "'" : "&",
  );
}

/**
 * Reads the counts and the skipped tests of bun's JUnit report.
 * @param xml the report
 * @returns passed, failed and skipped counts, and each skipped test as `file: title`
 */
function summaryOf(xml: string): { passed: number; failed: number; skipped: number; skips: string[] } {
  const top = /<testsuites[^>]*>/.exec(xml)?.[0] ?? "";
  const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(top)?.[1] ?? 0);
  const failed = attr("failures") + attr("errors");
  const skipped = attr("skipped");
  const skips: string[] = [];
  for (const m of xml.matchAll(/<testcase ([^>]*?)>\s*<skipped\b/g)) {
    const at = (name: string) => unescapeXml(new RegExp(`\\b${name}="([^"]*)"`).exec(m[1] ?? "")?.[1] ?? "");
    const where = at("classname") ? `${at("classname")} > ` : "";
    skips.push(`${at("file")}: ${where}${at("name")}`);
  }
  return { passed: attr("tests") - failed - skipped, failed, skipped, skips };
}

/** Prints the closing line and the skipped tests. */
function printSummary(s: { passed: number; failed: number; skipped: number; skips: string[] }): void {
  console.log(`${s.passed} passed, ${s.failed} failed${s.skipped ? `, ${s.skipped} skipped` : ""}`);
  for (const line of s.skips) console.log(`skipped: ${line}`);
}

const summaryAt = process.argv.indexOf("--summary");
if (summaryAt >= 0) {
  printSummary(summaryOf(readFileSync(process.argv[summaryAt + 1] ?? "", "utf8")));
  process.exit(0);
}

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
let summary = { passed: 0, failed: 1, skipped: 0, skips: [] as string[] };
try {
  summary = summaryOf(readFileSync(report, "utf8"));
} catch {}
const code = res.status ?? 1;
if (code !== 0 && summary.failed === 0) summary.failed = 1;
printSummary(summary);
process.exit(code);
