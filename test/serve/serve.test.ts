/*! `rglob serve`: CLI calls in a tree a running server keeps warm are answered by it, byte for byte as a cold
 * run (stdout, stderr, exit code), after edits too; every doubt runs the call cold (a stale socket file, a socket
 * nobody answers on, another user's socket, a directory others can reach, another build, RGLOB_SERVE=0); the
 * server is listed by `rglob index --status` and stopped by `rglob serve --stop`. The compiled binary, real trees,
 * real processes. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { socketName } from "../../src/surface/serve/where.ts";
import { BIN, ROOT } from "../helpers.ts";
import { comparable, type Out, serveSandbox } from "./sandbox.ts";

const { outer, cache, root, env, run, servers } = serveSandbox("rglob-serve-");

/** Calls the server of the tree answered so far. */
function calls(): number {
  return Number(servers().find((s) => s.root === root)?.calls ?? -1);
}

/** Asserts a call is served (the server's count grows) and answers as the cold run does. */
function sameAsCold(args: readonly string[], cwd = root, extra: Record<string, string> = {}): Out {
  const before = calls();
  const warm = run(args, cwd, extra);
  expect(calls()).toBe(before + 1);
  const cold = run(args, cwd, { ...extra, RGLOB_SERVE: "0" });
  expect({ args, code: warm.code, stderr: warm.stderr }).toEqual({
    args,
    code: cold.code,
    stderr: cold.stderr,
  });
  expect(comparable(args, warm.stdout)).toBe(comparable(args, cold.stdout));
  if (comparable(args, warm.stdout) === warm.stdout.toString())
    expect(warm.stdout.equals(cold.stdout)).toBe(true);
  return warm;
}

beforeAll(() => {
  mkdirSync(join(root, "src", "deep"), { recursive: true });
  mkdirSync(join(root, "docs"), { recursive: true });
  writeFileSync(join(root, ".gitignore"), "*.log\nbuild/\n");
  writeFileSync(join(root, "src", "a.ts"), "const a = 1; // TODO: name it\nexport function alpha() {}\n");
  writeFileSync(join(root, "src", "b.py"), "# TODO fix\ndef beta():\n    return 'TODO'\n");
  writeFileSync(join(root, "src", "deep", "c.md"), "# Title\n\nsome TODO text\nmore lines\nend\n");
  writeFileSync(join(root, "docs", "notes.txt"), "no marker here\n");
  writeFileSync(join(root, "debug.log"), "TODO in an ignored file\n");
  writeFileSync(join(root, "blob.bin"), Buffer.from([0, 1, 2, 84, 79, 68, 79]));
  writeFileSync(join(root, "big.txt"), "line of text\n".repeat(200_000));
  // 1,500 files of 40 matching lines: a grep is still writing when a signal comes (test/surface/interrupt.test.ts).
  for (let d = 0; d < 15; d++) {
    mkdirSync(join(root, "many", `d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++)
      writeFileSync(join(root, "many", `d${d}`, `f${f}.txt`), "hello interrupted world\n".repeat(40));
  }
  const started = run(["serve", "--detach", "--idle-seconds", "600", "--json"]);
  expect(started.code).toBe(0);
  // Until the index is built, calls are answered from the walk (or cold): either way the cold answer.
  for (let i = 0; i < 400 && servers()[0]?.state !== "ready"; i++) Bun.sleepSync(25);
});

afterAll(() => {
  run(["serve", "--stop"]);
  rmSync(outer, { recursive: true, force: true });
});

describe("rglob serve", () => {
  test("index --status lists the running server: pid, root, since, state", () => {
    const s = servers();
    expect(s.length).toBe(1);
    const [one] = s as [Record<string, unknown>];
    expect(one.root).toBe(root);
    expect(typeof one.pid).toBe("number");
    expect(() => process.kill(one.pid as number, 0)).not.toThrow();
    expect(String(one.since)).toMatch(/Z$/);
    expect(one.state).toBe("ready");
    expect(String(one.socket)).toBe(join(cache, "serve", `${socketName(root)}.sock`));
    const human = run(["index", "--status"]).stdout.toString();
    expect(human).toContain(`server        serving . (pid ${one.pid}`);
  });

  test("grep, find and count answer as cold runs: human, --json, --jsonl, exit codes, stderr notes", () => {
    const cases: string[][] = [
      ["grep", "TODO"],
      ["grep", "TODO", "--json"],
      ["grep", "TODO", "--jsonl"],
      ["grep", "-c", "TODO"],
      ["grep", "-l", "TODO"],
      ["grep", "-C1", "TODO", "src"],
      ["grep", "-i", "todo", "--color", "always"],
      ["grep", "TODO", "src/b.py", "src/deep"],
      ["grep", "nowhere-zzz"], // exit 1, notes of what was skipped
      ["grep", "nowhere-zzz", "--json"],
      ["grep", "(unclosed"], // exit 2, a regex error
      ["grep", "(unclosed", "--json"],
      ["grep", "TODO", "missing-dir"], // exit 2 with results
      ["grep", "TODO", "--include", "*.ts"], // a foreign flag: usage error with the rglob spelling
      ["grep"], // missing pattern
      ["find", "*.md"],
      ["find", "--json"],
      ["find", "--jsonl", "--no-hidden"],
      ["find", "nothing-like-this"],
      ["count"],
      ["count", "--json"],
      ["count", "--jsonl", "--by", "ext"],
      ["tree"],
      ["grep", "--max-total", "3", "line", "big.txt"],
    ];
    for (const args of cases) sameAsCold(args);
    // From a directory below the root: paths relative to it, as cold.
    sameAsCold(["grep", "TODO"], join(root, "src"));
    sameAsCold(["find", "--base", ".."], join(root, "src"));
    // The client's terminal settings travel with the call.
    sameAsCold(["find", "--color", "always"], root, { LS_COLORS: "di=01;34:*.md=01;35" });
  });

  test("git's config files are looked for where the client's HOME and XDG_CONFIG_HOME say, as cold (the server's own are not used)", () => {
    // A repository in the tree, and a global excludes file ($XDG_CONFIG_HOME/git/ignore) only the client names.
    const repo = join(root, "repo-xdg");
    mkdirSync(repo);
    const home = join(outer, "xdg-home");
    mkdirSync(join(home, "config", "git"), { recursive: true });
    writeFileSync(join(home, "config", "git", "ignore"), "*.md\n");
    try {
      expect(Bun.spawnSync(["git", "init", "-q", repo]).exitCode).toBe(0);
      writeFileSync(join(repo, "kept.ts"), "TODO\n");
      writeFileSync(join(repo, "left.md"), "TODO\n");
      const user = { HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
      const withXdg = sameAsCold(["grep", "-l", "TODO"], repo, {
        ...user,
        XDG_CONFIG_HOME: join(home, "config"),
      });
      expect(withXdg.stdout.toString()).toBe("kept.ts\n");
      const without = sameAsCold(["grep", "-l", "TODO"], repo, user);
      expect(without.stdout.toString().split("\n").sort()).toEqual(["", "kept.ts", "left.md"]);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  test.skipIf(Bun.which("script") === null)(
    "on a terminal: a call made in a pseudo-terminal is served, with a terminal's output (colour) (skipped without script(1))",
    () => {
      // stdout is the terminal; stderr /dev/null, a character device that is not one (no progress line).
      const inTerminal = (extra: Record<string, string>) => {
        const res = Bun.spawnSync(["script", "-qec", `'${BIN}' grep TODO src 2>/dev/null`, "/dev/null"], {
          cwd: root,
          env: { ...process.env, NO_COLOR: "", TERM: "xterm-256color", ...env, ...extra },
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
        });
        return { code: res.exitCode, out: res.stdout.toString() };
      };
      const before = calls();
      const warm = inTerminal({});
      expect(calls()).toBe(before + 1);
      const cold = inTerminal({ RGLOB_SERVE: "0" });
      expect(cold.out).toContain("\u001b[");
      expect(warm).toEqual(cold);
    },
  );

  // The library reaches the server where the CLI does: from the tree's root or a directory below it, and with a
  // base inside the tree; one outside it runs in the caller's process.
  for (const [name, runtime] of [
    ["Bun", process.execPath],
    ["Node", "node"],
  ] as const)
    test(`the library under ${name} is served where the CLI is: a directory below the root, a base inside it`, () => {
      const lib = join(ROOT, "dist", "lib", "agent", "index.js");
      const script = join(outer, "lib-where.mjs");
      const elsewhere = join(outer, "lib-elsewhere");
      mkdirSync(elsewhere, { recursive: true });
      writeFileSync(join(elsewhere, "e.txt"), "TODO elsewhere\n");
      writeFileSync(
        script,
        `import { grepAll, count } from ${JSON.stringify(lib)};
const here = await grepAll({ pattern: "TODO" });
const based = await count({ base: "deep" });
const outside = await grepAll({ pattern: "TODO", base: ${JSON.stringify(elsewhere)} });
console.log(JSON.stringify({ here, based, outside }));
`,
      );
      const call = (extra: Record<string, string>) => {
        const r = Bun.spawnSync([runtime, script], {
          cwd: join(root, "src"),
          env: { ...process.env, ...env, ...extra },
        });
        // A library of another build than the binary is not served (as it should not be): say what to build.
        if (r.stderr.toString().includes("another build"))
          throw new Error(
            `dist/lib is another build than dist/rglob (older?): run bun scripts/build-lib.ts\n${r.stderr}`,
          );
        expect({ code: r.exitCode, stderr: r.stderr.toString() }).toEqual({ code: 0, stderr: "" });
        return JSON.parse(r.stdout.toString()) as Record<string, Record<string, unknown>>;
      };
      const before = calls();
      // RGLOB_DEBUG: a call the server does not answer says why on stderr (and is served all the same).
      const served = call({ RGLOB_DEBUG: "1" });
      // The two calls in the tree, not the one outside it.
      expect(calls()).toBe(before + 2);
      expect(served.here?.source).toBe("index");
      expect(served.outside?.source).toBeUndefined();
      const cold = call({ RGLOB_SERVE: "0" });
      expect(calls()).toBe(before + 2);
      const records = (all: Record<string, Record<string, unknown>>) =>
        Object.fromEntries(
          Object.entries(all).map(([k, { source: _s, bytes_read: _b, ...rest }]) => [k, rest]),
        );
      expect(records(served)).toEqual(records(cold));
      expect((served.here?.results as unknown[] | undefined)?.length).toBe(4); // src/a.ts, src/b.py (2), src/deep/c.md
      expect((served.based?.results as unknown[] | undefined)?.length ?? 0).toBeGreaterThan(0);
    });

  // A library of another build runs its calls in its own process, silently; with RGLOB_DEBUG it says why: a copy
  // of dist/lib whose build commit was changed stands for a library older than the binary.
  test("a library of another build is not served, and with RGLOB_DEBUG says so", () => {
    const other = join(outer, "other-build");
    cpSync(join(ROOT, "dist", "lib"), join(other, "lib"), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(other, "node_modules"));
    let changed = 0;
    for (const name of readdirSync(join(other, "lib"))) {
      const file = join(other, "lib", name);
      if (!name.endsWith(".js")) continue;
      const text = readFileSync(file, "utf8");
      const next = text.replace(/var BUILD_COMMIT = "/g, 'var BUILD_COMMIT = "other-');
      if (next !== text) changed++;
      writeFileSync(file, next);
    }
    expect(changed).toBeGreaterThan(0);
    const script = join(outer, "lib-other.mjs");
    writeFileSync(
      script,
      `import { grepAll } from ${JSON.stringify(join(other, "lib", "agent", "index.js"))};
console.log(JSON.stringify(await grepAll({ pattern: "TODO" })));
`,
    );
    const call = (extra: Record<string, string>) =>
      Bun.spawnSync([process.execPath, script], { cwd: root, env: { ...process.env, ...env, ...extra } });
    const before = calls();
    const quiet = call({});
    const told = call({ RGLOB_DEBUG: "1" });
    expect(calls()).toBe(before);
    expect([quiet.exitCode, quiet.stderr.toString(), told.exitCode]).toEqual([0, "", 0]);
    expect(told.stderr.toString()).toMatch(
      /^rglob: not served by the server of .+, run in this process: another build: the server is rglob \S+ \((?!other-)\S+\), the library rglob \S+ \(other-\S+\)\n$/,
    );
    // Run in the caller's process: no `source` (a served grep says where its answer came from).
    const answer = JSON.parse(quiet.stdout.toString()) as Record<string, unknown>;
    expect(answer.source).toBeUndefined();
    expect((answer.results as unknown[]).length).toBeGreaterThan(0);
    expect(JSON.parse(told.stdout.toString())).toEqual(answer);
  });

  test("edits between calls are in the next answer", () => {
    const file = join(root, "src", "new.ts");
    writeFileSync(file, "const freshMarker = 1;\n");
    expect(sameAsCold(["grep", "freshMarker"]).stdout.toString()).toContain("src/new.ts:1:");
    writeFileSync(file, "const other = 2;\n");
    expect(sameAsCold(["grep", "freshMarker"]).code).toBe(1);
    writeFileSync(join(root, "src", "deep", "c.md"), "# Title\n\nfreshMarker now here\n");
    expect(sameAsCold(["grep", "-l", "freshMarker"]).stdout.toString()).toBe("src/deep/c.md\n");
    rmSync(file);
    sameAsCold(["find", "*.ts"]);
    writeFileSync(join(root, ".gitignore"), "*.log\nbuild/\n*.md\n");
    expect(sameAsCold(["grep", "-l", "freshMarker"]).code).toBe(1);
    writeFileSync(join(root, ".gitignore"), "*.log\nbuild/\n");
    sameAsCold(["count"]);
  });

  // The note after an empty answer that names what the query finds among the ignored entries (#36): its second
  // look runs with the client's settings (a global excludes file of the client's XDG_CONFIG_HOME names the rule;
  // the server's own settings named none), and stops at a budget of work, not at a deadline the load decides.
  test("the note among the ignored entries is the cold run's: the client's global excludes, a look at its budget", () => {
    const look = join(root, "look");
    mkdirSync(join(look, "deps"), { recursive: true });
    Bun.spawnSync(["git", "init", "-q", look]);
    writeFileSync(join(look, ".gitignore"), "deps/\n");
    writeFileSync(join(look, "api.secret"), "lookToken = 1\n");
    // Three files of 6 MiB before the hit: the look reads two and stops (16 MiB).
    for (const n of ["a", "b", "c"]) writeFileSync(join(look, "deps", `${n}.txt`), "x".repeat(6 << 20));
    writeFileSync(join(look, "deps", "d.txt"), "budgetMarker\n");
    const home = join(outer, "client-home");
    mkdirSync(join(home, "xdg", "git"), { recursive: true });
    writeFileSync(join(home, "xdg", "git", "ignore"), "*.secret\n");
    const client = { HOME: home, XDG_CONFIG_HOME: join(home, "xdg"), GIT_CONFIG_NOSYSTEM: "1" };
    try {
      const secret = sameAsCold(["grep", "lookToken"], look, client);
      expect(secret.stderr).toContain(
        `rglob: among the ignored entries, the same query finds: api.secret:1 (ignored by ${join(home, "xdg", "git", "ignore")}:1: *.secret); the look stopped after the first 16 MiB read`,
      );
      const budget = sameAsCold(["grep", "budgetMarker"], look, client);
      expect(budget.stderr).toContain(
        "rglob: among the ignored entries, the same query finds nothing in the first 16 MiB read with the ignore rules off; the look stops there (--no-ignore searches them all)\n",
      );
      expect(sameAsCold(["find", "d.txt"], look, client).stderr).toContain(
        "the same query finds: deps/d.txt (its directory 'deps' is ignored by .gitignore:1: deps/)",
      );
    } finally {
      rmSync(look, { recursive: true, force: true });
    }
  });

  test("a broken pipe ends the call as a cold run's does", () => {
    const sh = (serve: string) =>
      Bun.spawnSync(["bash", "-c", `${BIN} grep line big.txt | head -2; echo "exit \${PIPESTATUS[0]}"`], {
        cwd: root,
        env: { ...process.env, ...env, RGLOB_SERVE: serve },
      }).stdout.toString();
    const before = calls();
    const warm = sh("1");
    expect(calls()).toBe(before + 1);
    expect(warm).toBe(sh("0"));
    expect(warm).toBe("1:line of text\n2:line of text\nexit 0\n");
    // The server is still there.
    sameAsCold(["grep", "-c", "line"]);
  });

  test("a large answer, written by the server to the client's own stdout, lands where a cold run's does", () => {
    // 3.5 MB: past the first frames the client passes its stdout and stderr and the server writes there. The
    // shell's file is shared with the commands around the call (its offset), stderr goes to the same file.
    const sh = (serve: string, redirect: string) => {
      const out = join(outer, `large-${serve}.txt`);
      writeFileSync(out, "");
      const script = `{ echo before; ${BIN} grep line big.txt; echo "exit $?"; echo after; } ${redirect.replace("FILE", out)}`;
      Bun.spawnSync(["bash", "-c", script], {
        cwd: root,
        env: { ...process.env, ...env, RGLOB_SERVE: serve },
      });
      return readFileSync(out);
    };
    for (const redirect of ["> FILE 2>&1", ">> FILE 2>/dev/null"]) {
      const before = calls();
      const warm = sh("1", redirect);
      expect(calls()).toBe(before + 1);
      const cold = sh("0", redirect);
      expect(warm.length).toBeGreaterThan(2_000_000);
      expect(warm.equals(cold)).toBe(true);
      expect(warm.subarray(0, 22).toString()).toBe("before\n1:line of text\n");
      expect(warm.subarray(-14).toString()).toBe("\nexit 0\nafter\n");
    }
  });

  test("Ctrl-C stops a served run as a cold one: whole lines, the summary says cancelled, death by SIGINT", async () => {
    const before = calls();
    const proc = Bun.spawn([BIN, "grep", "hello", "many", "--jsonl"], {
      cwd: root,
      env: { ...process.env, ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = proc.stdout.getReader();
    const chunks: Uint8Array[] = [];
    const first = await reader.read();
    if (first.value) chunks.push(first.value);
    proc.kill("SIGINT");
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      chunks.push(r.value);
    }
    await proc.exited;
    expect(proc.signalCode).toBe("SIGINT");
    const lines = Buffer.concat(chunks).toString().split("\n");
    expect(lines.pop()).toBe("");
    const last = JSON.parse(lines.at(-1) as string) as Record<string, unknown>;
    expect(last.kind).toBe("summary");
    expect(last.truncated_reason).toBe("cancelled");
    expect(lines.length).toBeLessThan(60_001);
    expect(calls()).toBe(before + 1);
    sameAsCold(["grep", "-c", "line"]);
  });

  test("RGLOB_SERVE=0, another RGLOB_ setting, standard input read and a tree outside run cold", () => {
    const before = calls();
    expect(run(["grep", "TODO"], root, { RGLOB_SERVE: "0" }).code).toBe(0);
    expect(run(["grep", "TODO"], root, { RGLOB_WALK_SPLIT: "0" }).code).toBe(0);
    const piped = Bun.spawnSync([BIN, "grep", "TODO"], {
      cwd: root,
      env: { ...process.env, ...env },
      stdin: Buffer.from("a TODO from stdin\n"),
    });
    expect(piped.stdout.toString()).toBe("1:a TODO from stdin\n");
    expect(run(["grep", "TODO", outer]).code).toBe(0);
    expect(calls()).toBe(before);
  });

  // The CLI's client says why a server it found did not answer, with RGLOB_DEBUG set, in the library's words
  // (src/surface/serve/where.ts notServedNote); without it the call runs cold silently.
  test("a CLI call the server declines says why with RGLOB_DEBUG, and nothing without", () => {
    const before = calls();
    const note = (why: string) => `rglob: not served by the server of ${root}, run in this process: ${why}\n`;
    const piped = (extra: Record<string, string>) =>
      Bun.spawnSync([BIN, "grep", "TODO"], {
        cwd: root,
        env: { ...process.env, ...env, ...extra },
        stdin: Buffer.from("a TODO from stdin\n"),
      });
    const cases: Array<[string, () => { stderr: string }]> = [
      [
        "other RGLOB_* settings than the server's",
        () => run(["grep", "TODO"], root, { RGLOB_WALK_SPLIT: "0" }),
      ],
      ["it reads standard input", () => ({ stderr: piped({}).stderr.toString() })],
      ["a path outside the server's tree", () => run(["grep", "TODO", outer])],
    ];
    for (const [why, call] of cases) {
      const quiet = call();
      expect({ why, stderr: quiet.stderr }).toEqual({ why, stderr: "" });
    }
    const told = [
      run(["grep", "TODO"], root, { RGLOB_WALK_SPLIT: "0", RGLOB_DEBUG: "1" }),
      piped({ RGLOB_DEBUG: "1" }),
      run(["grep", "TODO", outer], root, { RGLOB_DEBUG: "1" }),
    ].map((o) => o.stderr.toString());
    expect(told).toEqual(cases.map(([why]) => note(why)));
    expect(calls()).toBe(before);
    // A call the server answers says nothing more with RGLOB_DEBUG.
    const served = run(["grep", "TODO"], root, { RGLOB_DEBUG: "1" });
    expect(calls()).toBe(before + 1);
    expect(served.stderr.toString()).toBe("");
  });

  test("a garbage request and another build's call do not disturb the server", async () => {
    const sock = join(cache, "serve", `${socketName(root)}.sock`);
    const first = (line: string) =>
      new Promise<number | null>((resolve) => {
        Bun.connect({
          unix: sock,
          socket: {
            open: (s) => void s.write(line),
            data: (_s, d) => resolve(d[0] ?? null),
            close: () => resolve(null),
            error: () => resolve(null),
          },
        });
      });
    expect(await first("not json\n")).toBeNull();
    const other = { v: 1, build: "another build", type: "call", argv: ["grep", "x"], cwd: root, env: {} };
    expect(await first(`${JSON.stringify(other)}\n`)).toBe("D".charCodeAt(0));
    sameAsCold(["grep", "TODO"]);
  });

  test("bad input is a clear error, no stack trace", () => {
    for (const args of [
      ["serve", "--idle-seconds", "soon"],
      ["serve", "--stop", "--detach"],
      ["serve", "--base", join(outer, "missing")],
      ["serve", "--bogus"],
      ["serve"], // a server already keeps this tree
    ]) {
      const r = run(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(/^rglob: /);
      expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
    }
  });
});

describe("fallback to cold", () => {
  /** A tree with a socket file of its own name in a socket directory of its own. */
  function fallbackTree(): { dir: string; sockets: string; sock: string; cleanup: () => void } {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "rglob-serve-fb-")));
    writeFileSync(join(dir, "a.txt"), "TODO here\n");
    const sockets = join(dir, "cache", "serve");
    mkdirSync(sockets, { recursive: true, mode: 0o700 });
    chmodSync(sockets, 0o700);
    return {
      dir,
      sockets,
      sock: join(sockets, `${socketName(dir)}.sock`),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const cold = (dir: string) => run(["grep", "TODO", "--json"], dir, { RGLOB_CACHE_DIR: join(dir, "cache") });

  test("a stale socket file (its server died) and a socket nobody answers on", () => {
    const t = fallbackTree();
    try {
      // A socket file left by a process that exited.
      Bun.spawnSync([
        "python3",
        "-c",
        `import socket; s=socket.socket(socket.AF_UNIX); s.bind(${JSON.stringify(t.sock)})`,
      ]);
      expect(existsSync(t.sock)).toBe(true);
      const r = cold(t.dir);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout.toString()).results.length).toBe(1);
      rmSync(t.sock);
      // A process that listens and never answers: the client waits its deadline, then runs cold.
      const py = Bun.spawn(
        [
          "python3",
          "-c",
          `import socket,time; s=socket.socket(socket.AF_UNIX); s.bind(${JSON.stringify(t.sock)}); s.listen(8); print('up', flush=True); time.sleep(60)`,
        ],
        { stdout: "pipe" },
      );
      for (let i = 0; i < 200 && !existsSync(t.sock); i++) Bun.sleepSync(10);
      Bun.sleepSync(50);
      const r2 = cold(t.dir);
      py.kill();
      expect(r2.code).toBe(0);
      expect(JSON.parse(r2.stdout.toString()).source).toBeUndefined();
      expect(r2.stderr).toBe("");
    } finally {
      t.cleanup();
    }
  });

  test("another user's socket, or a socket directory others can reach, is not used", () => {
    const t = fallbackTree();
    try {
      const start = run(["serve", "--detach", "--idle-seconds", "60"], t.dir, {
        RGLOB_CACHE_DIR: join(t.dir, "cache"),
      });
      expect(start.code).toBe(0);
      const count = () =>
        JSON.parse(
          run(["index", "--status", "--json"], t.dir, {
            RGLOB_CACHE_DIR: join(t.dir, "cache"),
          }).stdout.toString(),
        ).results[0].servers[0].calls as number;
      expect(cold(t.dir).code).toBe(0);
      expect(count()).toBe(1);
      if (process.getuid?.() === 0) {
        chownSync(t.sock, 65534, 65534); // another user's socket
        expect(cold(t.dir).code).toBe(0);
        chownSync(t.sock, 0, 0);
        expect(count()).toBe(1);
      }
      chmodSync(t.sockets, 0o755); // others can reach the directory
      expect(JSON.parse(cold(t.dir).stdout.toString()).source).toBeUndefined();
      const refused = run(["serve", "--stop"], t.dir, { RGLOB_CACHE_DIR: join(t.dir, "cache") });
      expect(refused.code).toBe(1); // not found there: it is not trusted
      chmodSync(t.sockets, 0o700);
      expect(count()).toBe(1);
    } finally {
      run(["serve", "--stop"], t.dir, { RGLOB_CACHE_DIR: join(t.dir, "cache") });
      t.cleanup();
    }
  });

  test("serve --stop stops the server: its process ends, its socket goes, status lists none", () => {
    const t = fallbackTree();
    const e = { RGLOB_CACHE_DIR: join(t.dir, "cache") };
    try {
      const started = JSON.parse(run(["serve", "--detach", "--json"], t.dir, e).stdout.toString()).results[0];
      expect(existsSync(started.socket)).toBe(true);
      const stopped = run(["serve", "--stop", "--json"], join(t.dir), e);
      expect(stopped.code).toBe(0);
      expect(JSON.parse(stopped.stdout.toString()).results[0].state).toBe("stopped");
      let alive = true;
      for (let i = 0; i < 200 && alive; i++) {
        try {
          process.kill(started.pid, 0);
          Bun.sleepSync(25);
        } catch {
          alive = false;
        }
      }
      expect(alive).toBe(false);
      expect(existsSync(started.socket)).toBe(false);
      expect(
        JSON.parse(run(["index", "--status", "--json"], t.dir, e).stdout.toString()).results[0].servers,
      ).toEqual([]);
      expect(run(["serve", "--stop"], t.dir, e).code).toBe(1);
    } finally {
      t.cleanup();
    }
  });
});
