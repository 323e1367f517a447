/*! Builds the library for npm consumers: `bun build --target=node` turns src/index.ts and src/agent/index.ts
 * into ESM JavaScript under dist/lib (dependencies stay external: npm installs them), and `tsc` writes the
 * .d.ts declarations beside them, with relative `.ts` specifiers rewritten to `.js` so that any downstream
 * moduleResolution finds them. It never touches dist/rglob (scripts/build.ts builds the binary). */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { buildDefines, WORKER_ENTRYPOINTS } from "./build.ts";

const root = join(import.meta.dir, "..");
const out = join(root, "dist", "lib");
const entries = [join(root, "src", "index.ts"), join(root, "src", "agent", "index.ts")];
// The worker files are entries too: a pool started by the library (a search under a deadline, a parallel walk or
// count under Bun) loads dist/lib/engine/…/<worker>.js, as the binary loads its bundled copy.
const workers = WORKER_ENTRYPOINTS.map((w) => join(root, w));

function fail(message: string): never {
  console.error(`build-lib: ${message}`);
  process.exit(1);
}

/** The .js files under a directory, as paths relative to it with "/" separators. */
function listJs(dir: string, prefix = ""): string[] {
  const names: string[] = [];
  for (const name of readdirSync(join(dir, prefix))) {
    const rel = prefix ? `${prefix}/${name}` : name;
    if (statSync(join(dir, rel)).isDirectory()) names.push(...listJs(dir, rel));
    else if (name.endsWith(".js")) names.push(rel);
  }
  return names;
}

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
  ...buildDefines(),
  `--root=${join(root, "src")}`,
  `--outdir=${out}`,
  ...entries,
  ...workers,
]);

// The pools resolve a worker as `./engine/…/<worker>.js` from the module that holds them, which must therefore
// sit at dist/lib's top (a shared chunk), as everything sits at the top of the binary's virtual root.
for (const w of WORKER_ENTRYPOINTS) {
  const rel = relative("src", w).replace(/\.ts$/, ".js");
  if (!existsSync(join(out, rel))) fail(`dist/lib lacks the worker ${rel}`);
  const needle = `./${rel}`;
  for (const name of listJs(out)) {
    const text = readFileSync(join(out, name), "utf8");
    if (text.includes(needle) && name.includes("/"))
      fail(`${name} refers to ${needle} from below dist/lib's top`);
  }
}

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
