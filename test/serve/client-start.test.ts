/*! What a served CLI call loads before its request leaves (ADR 0033): src/main.ts and the client it imports when
 * a warm server may answer. Every module they import statically is loaded by every call, served or not, so the
 * engine, the registry, the valibot models, the generated schemas, citty and the MCP SDK must stay behind a
 * dynamic import of the cold path (each costs start-up a served call does not need). Read from the sources:
 * the static imports of each module, followed through the tree (type-only imports are erased by the build). And
 * what the client of a served call asks the kernel (strace on the compiled binary, Linux): nothing a served call
 * does not need. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { BIN, ROOT, skipWhen } from "../helpers.ts";
import { serveSandbox, until } from "./sandbox.ts";

/** The static imports of a module that the build keeps (an `import type` or `export type` is erased). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  const statement = /^(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?["']([^"']+)["']/gm;
  for (const m of text.matchAll(statement)) {
    // `import { type A, type B } from` is erased too.
    const names = /\{([^}]*)\}/.exec(m[0])?.[1];
    const onlyTypes =
      names !== undefined &&
      !/^(?:import|export)\s+[\w*]/.test(m[0].replace(/\{[^}]*\}/, "")) &&
      names
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n !== "")
        .every((n) => n.startsWith("type "));
    if (!onlyTypes) out.push(m[1] as string);
  }
  return out;
}

/** Every module loaded with `entry`: sources relative to the repository, and the packages and built-ins named. */
function closure(entry: string): { sources: string[]; external: string[] } {
  const seen = new Set<string>();
  const external = new Set<string>();
  const todo = [resolve(ROOT, entry)];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith(".")) todo.push(resolve(dirname(file), spec));
      else external.add(spec);
    }
  }
  return {
    sources: [...seen].map((f) => relative(ROOT, f)).sort(),
    external: [...external].sort(),
  };
}

describe("the served call's start path", () => {
  test("src/main.ts loads only the switches, the launcher watch and the routes before it decides", () => {
    expect(closure("src/main.ts")).toEqual({
      sources: ["src/config.ts", "src/main.ts", "src/platform/launcher-watch.ts", "src/platform/routes.ts"],
      // The Config resolves where persisted indexes are kept (built-in modules, nothing of ours).
      external: ["node:os", "node:path"],
    });
  });

  test("the client loads the socket lookup and the version line: no engine, registry, models or SDK", () => {
    const { sources, external } = closure("src/surface/serve/client.ts");
    expect(sources).toEqual([
      "package.json", // the version, inlined by the build
      "src/contract/versions.ts",
      "src/platform/files.ts", // the door to the file system (stat of the socket and the tree)
      // Passing stdout and stderr to the server for a large answer: bun:ffi is opened only then.
      "src/platform/libc.ts",
      "src/platform/pass-fds.ts",
      "src/platform/runtime.ts",
      "src/surface/serve/client.ts",
      "src/surface/serve/where.ts",
    ]);
    // Where the sockets are and the environment it sends come from main's Config and Host: no config module here.
    expect(external).toEqual(["node:fs"]);
  });

  test("main.ts reaches the client and the cold path only by dynamic imports", () => {
    const main = readFileSync(join(ROOT, "src", "main.ts"), "utf8");
    expect(main).toContain('await import("./surface/serve/client.ts")');
    expect(main).toContain('await import("./surface/cli/app.ts")');
  });
});

describe("the served call's system calls", () => {
  const strace = process.platform === "linux" ? Bun.which("strace") : null;
  const box = serveSandbox("rglob-client-calls-");
  let server: ReturnType<typeof box.serve>["server"] | null = null;
  beforeAll(async () => {
    if (strace === null) return;
    mkdirSync(box.root, { recursive: true });
    writeFileSync(join(box.root, "a.txt"), "a CALLSNEEDLE here\n");
    ({ server } = box.serve());
    expect(await until(() => box.servers().find((s) => s.root === box.root)?.state === "ready")).toBe(true);
  }, 120_000);
  afterAll(() => box.end(server));

  skipWhen(strace === null && "strace is not installed here (Linux)")(
    "the client opens nothing under the binary's own /$bunfs and asks the user id once",
    () => {
      const trace = join(box.outer, "trace.txt");
      const before = Number(box.servers().find((s) => s.root === box.root)?.calls ?? -1);
      const res = Bun.spawnSync(
        [strace as string, "-f", "-e", "trace=openat,open,getuid", "-o", trace, BIN, "grep", "CALLSNEEDLE"],
        {
          cwd: box.root,
          env: { ...process.env, NO_COLOR: "", ...box.env, RGLOB_SERVE_WAIT_MS: "60000" },
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      expect({ code: res.exitCode, out: res.stdout.toString() }).toEqual({
        code: 0,
        out: "a.txt:1:a CALLSNEEDLE here\n",
      });
      expect(Number(box.servers().find((s) => s.root === box.root)?.calls)).toBe(before + 1);
      const lines = readFileSync(trace, "utf8").split("\n");
      // Bun.main opened the entry (O_PATH) to resolve it: in the binary /$bunfs/root/rglob, ENOENT.
      expect(lines.filter((l) => l.includes("$bunfs"))).toEqual([]);
      expect(lines.filter((l) => /\bgetuid\(/.test(l)).length).toBe(1);
    },
    60_000,
  );
});
