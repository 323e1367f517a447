/*! Builds the library for npm consumers: `bun build --target=node` turns src/index.ts and src/agent/index.ts
 * into ESM JavaScript under dist/lib (dependencies stay external: npm installs them), and `tsc` writes the
 * .d.ts declarations beside them, with relative `.ts` specifiers rewritten to `.js` so that any downstream
 * moduleResolution finds them. It never touches dist/rglob (scripts/build.ts builds the binary). */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const out = join(root, "dist", "lib");
const entries = [join(root, "src", "index.ts"), join(root, "src", "agent", "index.ts")];

function run(cmd: string, args: string[]): void {
  const res = spawnSync(cmd, args, { stdio: "inherit", cwd: root });
  if (res.status !== 0) process.exit(res.status ?? 1);
}

rmSync(out, { recursive: true, force: true });
run(process.execPath, [
  "build",
  "--target=node",
  "--format=esm",
  "--splitting",
  "--packages=external",
  "--sourcemap=none",
  `--root=${join(root, "src")}`,
  `--outdir=${out}`,
  ...entries,
]);

// Declarations: the same compiler options as tsconfig.json, emitting only .d.ts for the entries' closure.
run(join(root, "node_modules", ".bin", process.platform === "win32" ? "tsc.cmd" : "tsc"), [
  ...entries,
  "--declaration",
  "--emitDeclarationOnly",
  "--outDir",
  out,
  "--rootDir",
  join(root, "src"),
  "--target",
  "ES2022",
  "--module",
  "ESNext",
  "--moduleResolution",
  "bundler",
  "--lib",
  "ES2023",
  "--types",
  "bun-types",
  "--strict",
  "--exactOptionalPropertyTypes",
  "--noUncheckedIndexedAccess",
  "--verbatimModuleSyntax",
  "--resolveJsonModule",
  "--allowImportingTsExtensions",
  "--skipLibCheck",
]);

function rewrite(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) n += rewrite(p);
    else if (name.endsWith(".d.ts")) {
      const text = readFileSync(p, "utf8");
      const next = text.replace(/(from\s+["']|import\(["'])(\.{1,2}\/[^"']+)\.ts(["'])/g, "$1$2.js$3");
      if (next !== text) writeFileSync(p, next);
      n++;
    }
  }
  return n;
}
console.log(`dist/lib: ${rewrite(out)} declaration files`);
