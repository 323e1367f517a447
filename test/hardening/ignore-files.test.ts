// Issue #21 items 3, 4, 14, 20, 22: ignore files are read only when they are regular files inside the tree
// (a symlinked one is refused, as git >= 2.32 does; a FIFO, a device or one over the cap never blocks or
// balloons, and a `.git` FIFO in an ancestor does not hang a search below it); an explicitly named FIFO is an
// error record; a relative core.excludesFile is read from the top of the work tree; ignore files above an
// explicit root apply outside a repository too; over MCP, a FIFO ignore file never stops the server answering.
// Every run is bounded by --timeout and a process-level kill.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { INITIALIZED, initializeRequest } from "../../scripts/mcp-probe.ts";
import { BIN, tempTree } from "../helpers.ts";

interface Result {
  results: Array<{ relative_path: string }>;
  errors: Array<{ code: string; message: string; path: string }>;
}

const hasFifo = (() => {
  const t = tempTree({});
  try {
    return Bun.spawnSync(["mkfifo", join(t.dir, "probe")]).exitCode === 0;
  } finally {
    t.cleanup();
  }
})();
if (!hasFifo) console.warn("SKIPPING the FIFO cases of ignore-files.test.ts: mkfifo is not available here");

/** Runs the binary with a deadline and a kill guard; returns the parsed JSON (null when it was killed). */
function run(args: string[], cwd: string, env: Record<string, string> = {}): { json: Result; code: number } {
  const r = Bun.spawnSync([BIN, ...args, "--json", "--timeout", "10"], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", ...env },
    timeout: 30_000, // the kill guard: a blocked read ends here, and the test fails below
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(r.signalCode ?? null).toBeNull();
  const out = r.stdout.toString();
  try {
    return { json: JSON.parse(out) as Result, code: r.exitCode ?? -1 };
  } catch {
    throw new Error(
      `not JSON (exit ${r.exitCode}): ${out.slice(0, 300)} ${r.stderr.toString().slice(0, 300)}`,
    );
  }
}

const names = (r: Result) => r.results.map((x) => x.relative_path).sort();

describe("a symlinked ignore file is refused (item 3)", () => {
  const outside = tempTree({ rules: "hidden-by-outside.txt\nOUTSIDE_RULE_LINE_42\n" });
  const t = tempTree({
    ".git/HEAD": "ref: refs/heads/main\n",
    "hidden-by-outside.txt": "needle\n",
    "b.txt": "needle\n",
  });
  symlinkSync(join(outside.dir, "rules"), join(t.dir, ".gitignore"));
  mkdirSync(join(t.dir, "sub"));
  writeFileSync(join(t.dir, "sub", "hidden-by-outside.txt"), "needle\n");
  symlinkSync(join(outside.dir, "rules"), join(t.dir, "sub", ".ignore"));
  afterAll(() => {
    t.cleanup();
    outside.cleanup();
  });

  test.each([[[]], [["--strict-base"]]])("its rules do not apply, and a PERM record names it %p", (extra) => {
    const { json } = run(["grep", "-l", "needle", ...extra], t.dir);
    expect(names(json)).toEqual(["b.txt", "hidden-by-outside.txt", "sub/hidden-by-outside.txt"]);
    const refused = json.errors.filter((e) => e.code === "PERM" && /symlink/.test(e.message));
    expect(refused.map((e) => e.path).sort()).toEqual([
      join(t.dir, ".gitignore"),
      join(t.dir, "sub", ".ignore"),
    ]);
  });

  test("explain never echoes a line of the outside file", () => {
    const r = Bun.spawnSync([BIN, "explain", "hidden-by-outside.txt", "--json"], {
      cwd: t.dir,
      timeout: 30_000,
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = r.stdout.toString() + r.stderr.toString();
    expect(out).not.toContain("OUTSIDE_RULE_LINE_42");
    expect(out).not.toContain(outside.dir);
    const json = JSON.parse(r.stdout.toString()) as { results: Array<{ included: boolean }> } & Result;
    expect(json.results[0]?.included).toBe(true);
    expect(json.errors).toContainEqual({
      code: "PERM",
      message: expect.stringContaining("symlink") as unknown as string,
      path: join(t.dir, ".gitignore"),
    });
  });
});

describe("FIFOs, devices and oversized files never block or balloon (item 4)", () => {
  const cases: Array<[string, (dir: string) => void, boolean]> = [
    ["a FIFO .gitignore", (d) => Bun.spawnSync(["mkfifo", join(d, ".gitignore")]), true],
    ["a FIFO .ignore in a subdirectory", (d) => Bun.spawnSync(["mkfifo", join(d, "sub", ".ignore")]), true],
    ["a FIFO .git", (d) => Bun.spawnSync(["mkfifo", join(d, ".git")]), true],
    ["a .gitignore linked to /dev/zero", (d) => symlinkSync("/dev/zero", join(d, ".gitignore")), false],
    ["a .git file linked to /dev/zero", (d) => symlinkSync("/dev/zero", join(d, ".git")), false],
  ];
  const endsWithRecord = (make: (dir: string) => void): void => {
    const t = tempTree({ "a.txt": "needle\n", "sub/b.txt": "needle\n" });
    try {
      make(t.dir);
      const { json } = run(["grep", "-l", "needle"], t.dir);
      expect(names(json)).toEqual(["a.txt", "sub/b.txt"]);
      expect(json.errors.some((e) => /not a (directory or a )?regular file|symlink/.test(e.message))).toBe(
        true,
      );
    } finally {
      t.cleanup();
    }
  };
  test.each(cases.filter(([, , fifo]) => !fifo))(
    "%s: the search ends with every file and a record",
    (_name, make) => endsWithRecord(make),
  );
  test.skipIf(!hasFifo).each(cases.filter(([, , fifo]) => fifo))(
    "%s: the search ends with every file and a record (skipped without mkfifo)",
    (_name, make) => endsWithRecord(make),
  );

  test.skipIf(!hasFifo)(
    "a FIFO named .git in an ancestor of the base does not hang a search below it (skipped without mkfifo)",
    () => {
      const t = tempTree({ "shared/project/a.txt": "needle\n" });
      try {
        Bun.spawnSync(["mkfifo", join(t.dir, "shared", ".git")]);
        const { json } = run(["grep", "-l", "needle"], join(t.dir, "shared", "project"));
        expect(names(json)).toEqual(["a.txt"]);
        const rec = json.errors.find((e) => e.path === join(t.dir, "shared", ".git"));
        expect(rec?.message).toContain("FIFO");
      } finally {
        t.cleanup();
      }
    },
  );

  test.skipIf(!hasFifo)(
    "over MCP, a FIFO .gitignore under the root: calls and a ping are answered, SIGTERM ends the server (skipped without mkfifo)",
    async () => {
      const t = tempTree({ "a.txt": "needle\n", "sub/b.txt": "needle\n" });
      Bun.spawnSync(["mkfifo", join(t.dir, ".gitignore")]);
      // The server also indexes its root in the background (ADR 0028): that walk must not block either.
      const proc = Bun.spawn([BIN, "mcp", "--root", t.dir], {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "ignore",
      });
      const guard = setTimeout(() => proc.kill("SIGKILL"), 30_000);
      try {
        const send = (msg: unknown) => proc.stdin.write(`${JSON.stringify(msg)}\n`);
        const answers = new Map<number, { result?: { structuredContent?: Result } }>();
        const reader = (async () => {
          let buf = "";
          for await (const chunk of proc.stdout) {
            buf += Buffer.from(chunk).toString();
            for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
              const msg = JSON.parse(buf.slice(0, nl));
              buf = buf.slice(nl + 1);
              if (typeof msg.id === "number") answers.set(msg.id, msg);
            }
            if (answers.has(2) && answers.has(3) && answers.has(4)) break;
          }
        })();
        send(initializeRequest("raw"));
        send(INITIALIZED);
        send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "find_files", arguments: {} } });
        send({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "grep_content", arguments: { pattern: "needle", files_with_matches: true } },
        });
        send({ jsonrpc: "2.0", id: 4, method: "ping" });
        await reader;
        const found = answers.get(2)?.result?.structuredContent;
        expect(found?.results.map((r) => r.relative_path)).toContain("sub/b.txt");
        expect(found?.errors.some((e) => /not a (directory or a )?regular file/.test(e.message))).toBe(true);
        expect(answers.get(3)?.result?.structuredContent?.results.length).toBeGreaterThan(0);
        proc.kill("SIGTERM");
        expect(await proc.exited).toBe(0);
      } finally {
        clearTimeout(guard);
        proc.kill("SIGKILL");
        t.cleanup();
      }
    },
    60_000,
  );

  test("an ignore file over 1 MiB is not read: a TOO_LARGE record, its rules do not apply", () => {
    const t = tempTree({ "a.txt": "needle\n", ".ignore": `a.txt\n${"#".repeat((1 << 20) + 10)}\n` });
    try {
      const { json } = run(["grep", "-l", "needle"], t.dir);
      expect(names(json)).toEqual(["a.txt"]);
      expect(json.errors).toContainEqual({
        code: "TOO_LARGE",
        message: expect.stringContaining("not read") as unknown as string,
        path: join(t.dir, ".ignore"),
      });
    } finally {
      t.cleanup();
    }
  });
});

describe("an explicitly named FIFO is an error record (item 14)", () => {
  test
    .skipIf(!hasFifo)
    .each([[["grep", "needle", "pipe", "a.txt"]], [["count", "--paths", "pipe", "--paths", "a.txt"]]])(
    "%p (skipped without mkfifo)",
    (args) => {
      const t = tempTree({ "a.txt": "needle\n" });
      try {
        Bun.spawnSync(["mkfifo", join(t.dir, "pipe")]);
        const { json, code } = run(args, t.dir);
        expect(json.results.map((x) => x.relative_path)).toContain("a.txt");
        const rec = json.errors.find((e) => e.path === join(t.dir, "pipe"));
        expect(rec?.message).toContain("FIFO");
        expect(code).not.toBe(1); // the error is not "nothing found"
      } finally {
        t.cleanup();
      }
    },
  );
});

describe("where ignore files are read from", () => {
  test("a relative core.excludesFile is read from the top of the work tree (item 20)", () => {
    const home = tempTree({});
    const t = tempTree({
      ".git/config": "[core]\n\texcludesFile = my-excludes\n",
      "my-excludes": "*.sec\n",
      "sub/a.txt": "needle\n",
      "sub/b.sec": "needle\n",
    });
    try {
      const env = { HOME: home.dir, XDG_CONFIG_HOME: join(home.dir, ".config"), GIT_CONFIG_NOSYSTEM: "1" };
      expect(names(run(["grep", "-l", "needle"], join(t.dir, "sub"), env).json)).toEqual(["a.txt"]);
      expect(names(run(["grep", "-l", "needle", "sub"], t.dir, env).json)).toEqual(["sub/a.txt"]);
    } finally {
      t.cleanup();
      home.cleanup();
    }
  });

  test("outside a repository, an .ignore above an explicit root applies (item 22)", () => {
    const t = tempTree({ "a/.ignore": "skip.txt\n", "a/b/keep.txt": "needle\n", "a/b/skip.txt": "needle\n" });
    try {
      expect(names(run(["grep", "-l", "needle", "a/b"], t.dir).json)).toEqual(["a/b/keep.txt"]);
      expect(names(run(["find", "--base", "a/b"], t.dir).json)).toEqual(["keep.txt"]);
      expect(names(run(["grep", "-l", "needle", "a/b", "--no-ignore-parent"], t.dir).json)).toEqual([
        "a/b/keep.txt",
        "a/b/skip.txt",
      ]);
    } finally {
      t.cleanup();
    }
  });

  test(".ignore above the repository root applies, .gitignore above it does not (as ripgrep)", () => {
    const t = tempTree({
      ".ignore": "*.pi\n",
      ".gitignore": "*.pg\n",
      "repo/.git/HEAD": "ref: refs/heads/main\n",
      "repo/x.pi": "needle\n",
      "repo/x.pg": "needle\n",
      "repo/x.txt": "needle\n",
    });
    try {
      expect(names(run(["grep", "-l", "needle"], join(t.dir, "repo")).json)).toEqual(["x.pg", "x.txt"]);
    } finally {
      t.cleanup();
    }
  });
});
