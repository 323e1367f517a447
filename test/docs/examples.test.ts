// The runnable examples: every tagged ```bash block in docs/examples/*.md (and docs/agents/cli-recipes.md)
// runs against the compiled binary
// (as `rglob` on PATH) and its expected output is checked, so the recipes cannot rot. The format is described in
// docs/examples/README.md. A recipe that needs an operation this build lacks is a skipped test whose title says
// what it lacks (listed by the summary of `npm test`), and runs as soon as the operation is in the registry:
// skipping is decided by the binary's capabilities.
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeMcp } from "../../scripts/mcp-probe.ts";
import { BIN, FIXTURE, ROOT, rglobJson, skipWhen } from "../helpers.ts";

const DOCS = join(ROOT, "docs");
/** Files whose bash blocks are run, relative to docs/. */
const SOURCES = [
  ...readdirSync(join(DOCS, "examples"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `examples/${f}`),
  "agents/cli-recipes.md",
];

/** How expected output is compared with stdout. */
type Mode = "exact" | "sorted" | "contains" | "json-subset" | "jsonl-subset";
const MODES: readonly Mode[] = ["exact", "sorted", "contains", "json-subset", "jsonl-subset"];

interface Example {
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly requires: readonly string[];
  readonly exit: number;
  readonly script: string;
  readonly expected: { readonly mode: Mode; readonly text: string } | null;
}

interface ExampleFile {
  readonly file: string;
  readonly tree: "empty" | "fixture";
  readonly examples: Example[];
  /** ```bash blocks without an example tag (an error: every shell block in docs/examples must run). */
  readonly untagged: number[];
}

function attrs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.trim().split(/\s+/)) {
    const eq = part.indexOf("=");
    if (eq > 0) out[part.slice(0, eq)] = part.slice(eq + 1);
    else if (part) out[part] = "true";
  }
  return out;
}

function fenceAt(lines: string[], i: number): { info: string; body: string; end: number } | null {
  const open = /^(`{3,})\s*(.*)$/.exec(lines[i] ?? "");
  if (!open) return null;
  const fence = open[1] as string;
  const body: string[] = [];
  for (let j = i + 1; j < lines.length; j++) {
    if ((lines[j] as string).trim() === fence) return { info: open[2] ?? "", body: body.join("\n"), end: j };
    body.push(lines[j] as string);
  }
  throw new Error(`unclosed code fence at line ${i + 1}`);
}

function nextContent(lines: string[], i: number): number {
  let j = i;
  while (j < lines.length && (lines[j] as string).trim() === "") j++;
  return j;
}

function parseFile(file: string): ExampleFile {
  const lines = readFileSync(join(DOCS, file), "utf8").split("\n");
  const examples: Example[] = [];
  const untagged: number[] = [];
  let tree: "empty" | "fixture" = "empty";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const header = /^<!--\s*examples:(.*?)-->\s*$/.exec(line);
    if (header) {
      tree = attrs(header[1] ?? "").tree === "fixture" ? "fixture" : "empty";
      continue;
    }
    const tag = /^<!--\s*example:(.*?)-->\s*$/.exec(line);
    if (!tag) {
      const fence = fenceAt(lines, i);
      if (fence) {
        if (/^(bash|sh|shell)\b/.test(fence.info)) untagged.push(i + 1);
        i = fence.end;
      }
      continue;
    }
    const a = attrs(tag[1] ?? "");
    const start = nextContent(lines, i + 1);
    const code = fenceAt(lines, start);
    if (!a.name || !code || !/^bash\b/.test(code.info)) {
      throw new Error(`${file}:${i + 1}: an example tag needs name= and a following \`\`\`bash block`);
    }
    let expected: Example["expected"] = null;
    let end = code.end;
    const after = nextContent(lines, code.end + 1);
    const exp = /^<!--\s*expected(?::\s*([\w-]+))?\s*(-->)?\s*$/.exec(lines[after] ?? "");
    if (exp) {
      const mode = (exp[1] ?? "exact") as Mode;
      if (!MODES.includes(mode)) throw new Error(`${file}:${after + 1}: unknown expected mode '${mode}'`);
      if (exp[2]) {
        const block = fenceAt(lines, nextContent(lines, after + 1));
        if (!block)
          throw new Error(`${file}:${after + 1}: <!-- expected --> must be followed by a code block`);
        expected = { mode, text: block.body };
        end = block.end;
      } else {
        const close = lines.findIndex((l, k) => k > after && l.trim() === "-->");
        if (close < 0) throw new Error(`${file}:${after + 1}: unclosed <!-- expected block`);
        expected = { mode, text: lines.slice(after + 1, close).join("\n") };
        end = close;
      }
    }
    examples.push({
      file,
      line: i + 1,
      name: a.name,
      requires: a.requires ? a.requires.split(",").filter(Boolean) : [],
      exit: a.exit ? Number(a.exit) : 0,
      script: code.body,
      expected,
    });
    i = end;
  }
  return { file, tree, examples, untagged };
}

/** Returns null when `actual` holds everything `expected` states, else where it differs. */
function subsetMismatch(expected: unknown, actual: unknown, at: string): string | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: expected an array, got ${JSON.stringify(actual)}`;
    const open = expected.at(-1) === "...";
    const items = open ? expected.slice(0, -1) : expected;
    if (open ? actual.length < items.length : actual.length !== items.length) {
      return `${at}: expected ${open ? "at least " : ""}${items.length} items, got ${actual.length}`;
    }
    for (const [k, item] of items.entries()) {
      const m = subsetMismatch(item, actual[k], `${at}[${k}]`);
      if (m) return m;
    }
    return null;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) {
      return `${at}: expected an object, got ${JSON.stringify(actual)}`;
    }
    for (const [k, v] of Object.entries(expected)) {
      if (!(k in actual)) return `${at}.${k}: missing`;
      const m = subsetMismatch(v, (actual as Record<string, unknown>)[k], `${at}.${k}`);
      if (m) return m;
    }
    return null;
  }
  return Object.is(expected, actual)
    ? null
    : `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

const trimLines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")
    .replace(/\n+$/, "");

function mismatch(mode: Mode, expectedText: string, stdout: string): string | null {
  switch (mode) {
    case "exact":
      return trimLines(stdout) === trimLines(expectedText) ? null : "stdout differs from the expected text";
    case "sorted": {
      const sort = (t: string) => trimLines(t).split("\n").sort().join("\n");
      return sort(stdout) === sort(expectedText) ? null : "stdout lines differ from the expected lines";
    }
    case "contains": {
      const missing = expectedText.split("\n").filter((l) => l.trim() && !stdout.includes(l.trim()));
      return missing.length ? `stdout lacks: ${missing.join(" | ")}` : null;
    }
    case "json-subset":
      try {
        return subsetMismatch(JSON.parse(expectedText), JSON.parse(stdout), "$");
      } catch (err) {
        return `not JSON: ${String(err)}`;
      }
    case "jsonl-subset": {
      const want = expectedText.split("\n").filter((l) => l.trim());
      const open = want.at(-1)?.trim() === "...";
      const items = open ? want.slice(0, -1) : want;
      const got = stdout.split("\n").filter((l) => l.trim());
      if (open ? got.length < items.length : got.length !== items.length) {
        return `expected ${open ? "at least " : ""}${items.length} lines, got ${got.length}`;
      }
      for (const [k, w] of items.entries()) {
        try {
          const m = subsetMismatch(JSON.parse(w), JSON.parse(got[k] as string), `line ${k + 1}`);
          if (m) return m;
        } catch (err) {
          return `line ${k + 1}: not JSON: ${String(err)}`;
        }
      }
      return null;
    }
  }
}

const files = SOURCES.map(parseFile);

// What this build can run: its operations (from the binary, not the sources) and a working `rglob mcp`.
const available = new Set(rglobJson<{ operations: string[] }>(["capabilities"]).json.operations);
// A build whose `rglob mcp` refuses to start (or does not know the command) has no MCP server: its recipes are
// skipped. Any other probe failure is a broken server, so the recipes run and fail with the details.
const mcp = await probeMcp(BIN, { timeoutMs: 30_000 });
const mcpAbsent = !mcp.ok && /UNSUPPORTED_PLATFORM|unknown command/.test(mcp.reason);
if (!mcpAbsent) available.add("mcp");

// A bin directory with `rglob` pointing at the compiled binary, and a HOME without a global excludes file.
const sandbox = mkdtempSync(join(tmpdir(), "rglob-examples-"));
mkdirSync(join(sandbox, "bin"));
mkdirSync(join(sandbox, "home"));
symlinkSync(BIN, join(sandbox, "bin", "rglob"));
const env = {
  ...process.env,
  PATH: `${join(sandbox, "bin")}:${process.env.PATH ?? ""}`,
  HOME: join(sandbox, "home"),
  XDG_CONFIG_HOME: join(sandbox, "home", ".config"),
  NO_COLOR: "1",
  TZ: "UTC",
  LC_ALL: "C",
};
afterAll(() => {
  rmSync(sandbox, { recursive: true, force: true });
});

describe("runnable docs", () => {
  test("there are recipes, every ```bash block is tagged, and names are unique", () => {
    const all = files.flatMap((f) => f.examples);
    expect(all.length).toBeGreaterThan(0);
    expect(files.flatMap((f) => f.untagged.map((l) => `${f.file}:${l}`))).toEqual([]);
    expect(new Set(all.map((e) => e.name)).size).toBe(all.length);
  });

  test("every recipe file is listed in docs/examples/README.md", () => {
    const index = readFileSync(join(DOCS, "examples", "README.md"), "utf8");
    const recipes = SOURCES.filter((f) => f.startsWith("examples/") && f !== "examples/README.md");
    expect(recipes.filter((f) => !index.includes(`](${f.slice("examples/".length)})`))).toEqual([]);
  });
});

for (const f of files) {
  describe(`docs/${f.file}`, () => {
    // One working directory per file: its recipes run in order, like one shell session's files.
    const work = join(sandbox, f.file.replace(/\.md$/, "").replaceAll("/", "-"));
    if (f.tree === "fixture") cpSync(FIXTURE, work, { recursive: true });
    else mkdirSync(work, { recursive: true });

    for (const ex of f.examples) {
      const missing = ex.requires.filter((r) => !available.has(r));
      const title = `${ex.name} (line ${ex.line})`;
      // A recipe for what this build lacks (requires=<op>) is declared skipped with what it lacks in its title:
      // the summary of `npm test` lists it.
      const why = missing.map((m) => (m === "mcp" && !mcp.ok ? `mcp (${mcp.reason.trim()})` : m)).join(", ");
      skipWhen(missing.length > 0 && `this build lacks ${why}`)(title, () => {
        const res = Bun.spawnSync(
          ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", ex.script],
          {
            cwd: work,
            env,
            stdout: "pipe",
            stderr: "pipe",
            timeout: 50_000,
          },
        );
        const stdout = res.stdout.toString();
        const stderr = res.stderr.toString();
        const context = `${ex.file}:${ex.line} ${ex.name}\n--- stdout\n${stdout}--- stderr\n${stderr}`;
        if (res.exitCode !== ex.exit)
          throw new Error(`exit ${res.exitCode}, expected ${ex.exit}\n${context}`);
        if (ex.expected) {
          const m = mismatch(ex.expected.mode, ex.expected.text, stdout);
          if (m) throw new Error(`${m}\n--- expected (${ex.expected.mode})\n${ex.expected.text}\n${context}`);
        }
      });
    }
  });
}
