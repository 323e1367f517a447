// The published package under plain Node: the files `npm pack` would ship (dist/lib, built by
// scripts/build-lib.ts) are installed into a temp project, then `node` imports `rglob/agent` and `rglob`, and a
// strict downstream TypeScript project type-checks against the published declarations.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { searchAll } from "../../src/agent/index.ts";
import { FIXTURE, ROOT } from "../helpers.ts";

const node = Bun.which("node");
let project = "";

function sh(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

beforeAll(() => {
  if (!existsSync(join(ROOT, "dist", "lib", "agent", "index.js"))) {
    const b = sh(process.execPath, [join(ROOT, "scripts", "build-lib.ts")], ROOT);
    if (b.code !== 0) throw new Error(`build-lib failed: ${b.stderr}`);
  }
  // The file list npm would publish, from a staging copy of the checkout without dist/rglob (npm would
  // compress the 100 MB binary for nothing: the library does not use it).
  const npm = Bun.which("npm");
  if (!npm) throw new Error("npm is required for the package test");
  const stage = mkdtempSync(join(tmpdir(), "rglob-stage-"));
  for (const f of ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "dist/lib"]) {
    cpSync(join(ROOT, f), join(stage, f), { recursive: true });
  }
  const dry = sh(npm, ["pack", "--dry-run", "--json", "--ignore-scripts"], stage);
  expect(dry.code).toBe(0);
  // npm 11 prints an array of packages, npm 12 an object keyed by the package's name.
  const packed = JSON.parse(dry.stdout) as unknown;
  const entry = (Array.isArray(packed) ? packed[0] : Object.values(packed as Record<string, unknown>)[0]) as
    | { files?: Array<{ path: string }> }
    | undefined;
  const files = entry?.files ?? [];
  expect(files.length).toBeGreaterThan(0);
  project = mkdtempSync(join(tmpdir(), "rglob-downstream-"));
  const installed = join(project, "node_modules", "rglob");
  for (const { path } of files) {
    if (path === "dist/rglob") continue;
    mkdirSync(dirname(join(installed, path)), { recursive: true });
    cpSync(join(stage, path), join(installed, path));
  }
  rmSync(stage, { recursive: true, force: true });
  // What `npm install` would add: the package's runtime dependencies (linked from this checkout, offline).
  for (const dep of Object.keys(pkg.dependencies)) {
    const target = join(project, "node_modules", dep);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", dep), target, "dir");
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "downstream", type: "module" }));
}, 60_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe("the published library under plain Node", () => {
  test("npm would publish the built library and its declarations", () => {
    for (const f of [
      "dist/lib/index.js",
      "dist/lib/index.d.ts",
      "dist/lib/agent/index.js",
      "dist/lib/agent/index.d.ts",
    ])
      expect(existsSync(join(project, "node_modules", "rglob", f))).toBe(true);
  });

  test.skipIf(!node)(
    "node imports rglob/agent and rglob, and searchAll on fixtures/tree equals the in-process result (skipped without node on PATH)",
    async () => {
      const script = `
      import { searchAll, search, capabilities, AGENT_API_VERSION } from "rglob/agent";
      import * as root from "rglob";
      const base = ${JSON.stringify(FIXTURE)};
      const all = await searchAll({ base });
      const py = [];
      for await (const f of search({ base, patterns: ["*.py"] })) py.push(f.relative_path);
      const bad = await root.searchAll({ base, min_size: "nope" });
      console.log(JSON.stringify({ all, py, bad, runtime: capabilities().platform.runtime, v: AGENT_API_VERSION,
        same: root.searchAll === searchAll }));
    `;
      writeFileSync(join(project, "main.mjs"), script);
      const r = sh(node as string, ["main.mjs"], project);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.runtime).toStartWith("node ");
      expect(Number(process.versions.node ? out.runtime.slice(5).split(".")[0] : 0)).toBeGreaterThanOrEqual(
        20,
      );
      expect(out.v).toBe("1.4");
      expect(out.same).toBe(true);
      expect(out.py).toEqual(["hidden/.secret.py", "src/main.py", "src/utils/helper.py"]);
      expect(out.bad.errors[0].code).toBe("BAD_PREDICATE");
      expect(out.all).toEqual(await searchAll({ base: FIXTURE }));
    },
  );

  // nodenext is the strictest resolution (it honours `exports` and needs real file extensions).
  test.each(["nodenext"])(
    "a strict downstream TypeScript project (moduleResolution %s) type-checks against the published types",
    (resolution) => {
      const dir = join(project, `ts-${resolution}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: "ES2022",
            module: resolution === "nodenext" ? "nodenext" : "esnext",
            moduleResolution: resolution,
            types: [],
            lib: ["ES2022", "DOM"],
            // As most projects do: the consumer's code is checked strictly against our declarations, which
            // tsc emitted from type-checked sources (checking valibot's generics inside them again costs ~20 s).
            skipLibCheck: true,
            exactOptionalPropertyTypes: true,
            noUncheckedIndexedAccess: true,
          },
          files: ["consumer.ts"],
        }),
      );
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", type: "module" }));
      writeFileSync(
        join(dir, "consumer.ts"),
        `import { searchAll, search, schemaFor, allSchemas, capabilities, AGENT_API_VERSION } from "rglob/agent";
import type { FileMatch, FileSearchResult, FindOptions, ErrorCode } from "rglob";
const options: FindOptions = { base: ".", patterns: ["*.ts"], types: ["f"], limit: 10 };
const result: FileSearchResult = await searchAll(options, { signal: AbortSignal.timeout(1000) });
const first: FileMatch | undefined = result.results[0];
const size: number | undefined = first?.size;
const code: ErrorCode | undefined = result.errors[0]?.code;
const reason: "limit" | "max_count" | "max_bytes" | "max_output_bytes" | "timeout" | "cancelled" | null =
  result.truncated_reason;
const stream = search({ patterns: ["*.md"] });
for await (const f of stream) { const p: string = f.relative_path; void p; break; }
const meta = await stream.result;
const cursor: string | null = meta.next_cursor;
// @ts-expect-error: an unknown option is a type error
await searchAll({ no_such_option: true });
// @ts-expect-error: a wrong option type is a type error
await searchAll({ limit: "ten" });
const v: string = AGENT_API_VERSION;
const s = schemaFor("find.input");
const n: number = Object.keys(allSchemas()).length + capabilities().operations.length;
console.log(size, code, reason, cursor, v, s, n);
`,
      );
      // The consumer's node_modules is the temp project's.
      const link = join(dir, "node_modules");
      if (!existsSync(link)) symlinkSync(join(project, "node_modules"), link, "dir");
      const r = sh(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", dir], dir);
      expect(r.stdout + r.stderr).toBe("");
      expect(r.code).toBe(0);
    },
  );
});
