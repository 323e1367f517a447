// The process edge of the compiled binary: version, exit codes, usage errors, failure envelopes, EPIPE,
// introspection endpoints, and independence from the source tree and the working directory.
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { BIN, FIXTURE, ROOT, rglob, rglobJson, tempTree } from "../helpers.ts";

describe("process edge", () => {
  test("--version names the package.json version and the commit it was built from", () => {
    const r = rglob(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^rglob ${pkg.version.replaceAll(".", "\\.")} \\(([0-9a-f]{7,}(-dirty)?|built outside git)\\)\n$`,
      ),
    );
  });

  // citty colours usage unless NO_COLOR=1, TERM=dumb, TEST or CI is set, whatever the output is; an agent reading
  // help through a pipe must get plain text (the helpers set NO_COLOR, so this runs without it).
  test.each([[["--help"]], [["grep", "--help"]], [["help", "count"]], [[]]])(
    "help through a pipe has no colour escapes: %p",
    (args) => {
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) {
        if (v !== undefined && !["NO_COLOR", "TEST", "CI", "TERM", "FORCE_COLOR"].includes(k)) env[k] = v;
      }
      env.TERM = "xterm-256color";
      const r = Bun.spawnSync([BIN, ...args], { env, stdout: "pipe", stderr: "pipe" });
      const text = r.stdout.toString() + r.stderr.toString();
      expect(text).toContain("USAGE");
      expect(text).not.toContain("\u001b[");
    },
  );

  // Help is where a user learns the spellings: each one it shows must be one the parser takes, and the usage
  // line must show the operands (find's GLOBs used to vanish behind the --patterns flag of the same key).
  test("every command's help shows its operands and only spellings the parser accepts", () => {
    const ops = rglobJson<{ operations: string[] }>(["capabilities"]).json.operations;
    for (const op of ops) {
      const help = rglob([op, "--help"]);
      expect(help.code).toBe(0);
      const usage = rglobJson<{ usage: string }>(["describe", op]).json.usage;
      const synopsis = usage.replace(`rglob ${op} `, "").replace(/ ?\[FLAGS\]$/, "");
      expect(help.stdout).toContain(`USAGE rglob ${op} [OPTIONS]${synopsis ? ` ${synopsis}` : ""}\n`);
      // index takes no operand (its tree is --base).
      if (synopsis) expect(help.stdout).toContain(`ARGUMENTS\n\n  ${synopsis}`);
      else expect(help.stdout).not.toContain("ARGUMENTS");
      const options = help.stdout.slice(
        help.stdout.indexOf("\nOPTIONS\n"),
        help.stdout.indexOf("\nEXAMPLES\n"),
      );
      const spellings = [...options.matchAll(/^ {2}(-[^=,\s]+(?:, -[^=,\s]+)*)/gm)].flatMap((m) =>
        (m[1] as string).split(", "),
      );
      expect(spellings.length).toBeGreaterThan(5);
      for (const flag of spellings) {
        expect(flag).toMatch(/^(-[A-Za-z0-9]|--[a-z0-9][a-z0-9-]+)$/);
        // The parser must know the spelling (its value may still be refused: only the name is checked here).
        const r = rglob([op, flag, "1", "--help"]);
        expect(`${flag}: ${r.stderr}`).not.toMatch(/unknown flag|spelling/);
      }
    }
    const root = rglob(["--help"]).stdout;
    expect(root.match(/--help/g)?.length).toBe(1); // one closing line, not citty's and ours
  }, 120_000);

  test("a failure on stderr names the path it concerns, once", () => {
    const r = rglob(["find", "--base", "no-such-dir"], { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `rglob: NOT_FOUND: ${join(FIXTURE, "no-such-dir")}: base directory: does not exist\n`,
    );
    const e = rglob(["explain", "--under", "no-such-file"], { cwd: FIXTURE });
    expect(e.code).toBe(2);
    expect(e.stderr.match(/no-such-file/g)?.length).toBe(1);
  });

  test("a glob operand naming a directory, when nothing matched, gets a note on stderr", () => {
    const t = tempTree({ "src/a.ts": "one\ntwo\n", "src/b/c.ts": "three\n" });
    try {
      for (const op of ["count", "find", "stats"]) {
        const r = rglob([op, "src", "-t", "f", "--json"], { cwd: t.dir });
        expect(r.code).toBe(1);
        expect(JSON.parse(r.stdout).results).toEqual([]); // stdout stays the document
        expect(r.stderr).toContain("'src' is a glob matched against names");
        expect(r.stderr).toContain("use --base src");
      }
      const ok = rglob(["count", "--base", "src"], { cwd: t.dir });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain("3 lines");
      // Only count's rules (#37), no note about the operand.
      expect(ok.stderr).toStartWith("rglob: note: counted by: ");
      expect(ok.stderr.split("\n").length).toBe(2);
      // A glob that is not a directory, or that matched, gets no note.
      expect(rglob(["count", "*.md"], { cwd: t.dir }).stderr).toBe("");
      expect(rglob(["find", "src"], { cwd: t.dir }).stderr).toBe("");
      // fd's habit (a glob, then a directory) ORs two globs: noted even when something was found.
      const fd = rglob(["find", "*.ts", "src"], { cwd: t.dir });
      expect(fd.code).toBe(0);
      expect(fd.stdout).toContain("src/a.ts");
      expect(fd.stderr).toContain("use --base src");
      // tree(1)'s habit shows the directory named src, not its contents: noted too.
      const tree = rglob(["tree", "src"], { cwd: t.dir });
      expect(tree.stdout).not.toContain("a.ts");
      expect(tree.stderr).toContain("use --base src");
      expect(rglob(["tree", "--base", "src"], { cwd: t.dir }).stdout).toContain("a.ts");
    } finally {
      t.cleanup();
    }
  });

  test("grep: an operand that names no file, when nothing matched, gets a note; a named binary file too", () => {
    const t = tempTree({
      "notes.md": "alpha\n",
      "blob.bin": Buffer.from([0x61, 0, 0x62, 10]),
      "d/x.bin": "a\u0000\n",
    });
    try {
      const missing = rglob(["grep", "alpha", "notes.txt"], { cwd: t.dir });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("no file or directory 'notes.txt' here; it was used as a glob");
      // An operand with a '/' is a path: a missing one is a NOT_FOUND error, not a glob.
      const missingPath = rglob(["grep", "alpha", "sub/notes.txt"], { cwd: t.dir });
      expect(missingPath.stderr).toContain("NOT_FOUND");
      expect(missingPath.stderr).not.toContain("used as a glob");
      // The pattern itself (first operand) is never taken for a path; a glob that matched says nothing.
      expect(rglob(["grep", "zzz", "notes.md"], { cwd: t.dir }).stderr).toBe("");
      expect(rglob(["grep", "alpha", "*.md"], { cwd: t.dir }).stderr).toBe("");
      // A binary file named on the command line is searched, as rg searches it (#22).
      const named = rglob(["grep", "a", "blob.bin"], { cwd: t.dir });
      expect(named.code).toBe(0);
      expect(named.stdout).toBe('binary file matches (found "\\0" byte around offset 1)\n');
      // Binary files met by the walk are not reported one by one, as in grep and ripgrep; an empty result says in
      // one line that some were skipped, and how to search them (#20).
      expect(rglob(["grep", "a", "d"], { cwd: t.dir }).stderr).toBe(
        "rglob: nothing found; not searched: 1 binary file (-a/--text searches them)\n",
      );
      expect(rglob(["grep", "a", "d", "*.md"], { cwd: t.dir }).stderr).not.toContain("binary");
      expect(rglob(["grep", "-a", "a", "blob.bin"], { cwd: t.dir }).code).toBe(0);
    } finally {
      t.cleanup();
    }
  });

  // find(1)'s primaries are single-dash words that a short-flag parser would read as bundles (-type = -t ype).
  test.each([
    [["find", ".", "-name", "*.md"], "give the glob as an operand: rglob find '*.py'"],
    [["find", "-type", "f"], "use -t (--type)"],
    [["find", "-maxdepth", "2"], "use -d N"],
    [["count", "-size", "+1M"], "--min-size"],
    [["grep", "TODO", "-name", "*.md"], "rglob grep PATTERN '*.py'"],
    [["find", "-exec", "rm", "{}", ";"], "read-only"],
  ])("find(1) spelling %p is a usage error with the rglob spelling", (args, hint) => {
    const r = rglob(args, { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is find(1)'s spelling");
    expect(r.stderr).toContain(hint);
  });

  // grep's and ripgrep's flags that rglob spells differently were an unknown flag (or, for rg's -t py, a bad
  // entry kind): the error now gives the rglob spelling.
  test.each([
    [["grep", "--include=*.py", "TODO"], "'--include' is grep's spelling; here, use -g GLOB (--glob)"],
    [["grep", "--exclude-dir", "src", "TODO"], "use -E GLOB (--exclude)"],
    [["grep", "-R", "TODO"], "always searched recursively"],
    [["grep", "-I", "TODO"], "binary files are skipped by default"],
    [["grep", "-P", "TODO"], "ripgrep's dialect"],
    [["grep", "--no-filename", "TODO"], "use --no-with-filename"],
    [["grep", "-t", "py", "TODO"], "for rg's file type 'py' use --lang py"],
    [["find", "--type=rs"], "for rg's file type 'rs' use --lang rs"],
    [["find", "--type=zz"], "give a glob: -g '*.zz'"],
  ])("grep/rg spelling %p is a usage error with the rglob spelling", (args, hint) => {
    const r = rglob(args, { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(hint);
    expect(r.stdout).toBe("");
  });

  // A bare number was taken as a glob (top -5: head's count) or a pattern (grep -5: GNU grep's context) and
  // silently found nothing; a command that defines the digit keeps it (find -0).
  test.each([
    [["top", "-5"], "'-5' is not a flag of 'rglob top'", "(rglob top -- '-5')"],
    [["tree", "-0"], "'-0' is not a flag of 'rglob tree'", "(rglob tree -- '-0')"],
    [["grep", "-5", "TODO"], "grep's lines of context are -C N", "(rglob grep -- '-5')"],
    [["count", "-12"], "a number of results is --limit N", "(rglob count -- '-12')"],
  ])("a bare number %p is a usage error", (args, hint, example) => {
    const r = rglob(args, { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(hint);
    expect(r.stderr).toContain(example);
    expect(r.stdout).toBe("");
  });

  test("after '--' or as a flag's value, a number is an operand or a value as typed", () => {
    const t = tempTree({ "-5": "x -5 y\n", "a.txt": "-5\n" });
    try {
      expect(rglob(["find", "--", "-5"], { cwd: t.dir }).stdout).toBe("-5\n");
      expect(rglob(["grep", "-e", "-5", "a.txt"], { cwd: t.dir }).stdout).toBe("1:-5\n");
      expect(rglob(["grep", "--", "-5", "a.txt"], { cwd: t.dir }).stdout).toBe("1:-5\n");
      expect(rglob(["find", "-0", "-t", "f"], { cwd: t.dir }).stdout).toBe("-5\0a.txt\0");
    } finally {
      t.cleanup();
    }
  });

  test("a glob that can match only hidden names gets a note when --no-hidden skipped them", () => {
    const t = tempTree({ ".env": "x\n", "a.txt": "x\n" });
    try {
      for (const args of [
        ["find", ".*", "--no-hidden"],
        ["find", "**/.env", "--no-hidden"],
        ["grep", "x", ".e*", "--no-hidden"],
      ]) {
        const r = rglob(args, { cwd: t.dir });
        expect([args, r.code, r.stdout]).toEqual([args, 1, ""]);
        expect(r.stderr).toContain("matches only hidden names (beginning with '.'), which --no-hidden skips");
      }
      // By default hidden names are included: no note.
      const shown = rglob(["find", ".*"], { cwd: t.dir });
      expect([shown.code, shown.stdout, shown.stderr]).toEqual([0, ".env\n", ""]);
    } finally {
      t.cleanup();
    }
  });

  test("'.' as a glob operand gets a note: no name is '.'", () => {
    const r = rglob(["find", "."], { cwd: FIXTURE });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no name is '.'; without glob operands every entry under --base");
    // Bundles of real short flags are not taken for find(1) words.
    expect(rglob(["grep", "-iw", "todo"], { cwd: FIXTURE }).code).toBe(0);
  });

  test("a bad value names the flag that was typed; the JSON envelope keeps the library's message", () => {
    const r = rglob(["top", "-n", "0"], { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("invalid 'limit' (-n, --limit) for top");
    const { json } = rglobJson<{ error: { message: string } }>(["top", "-n", "0", "--json"], {
      cwd: FIXTURE,
    });
    expect(json.error.message).toStartWith("invalid 'limit' for top");
  });

  test("an unknown flag is a usage error on stderr with exit 2", () => {
    const r = rglob(["find", "--bogus"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("unknown flag '--bogus'");
    expect(r.stderr).not.toContain("    at ");
  });

  test("describe of an unknown operation prints the failure envelope and exits 2", () => {
    const { json, run } = rglobJson(["describe", "nope"]);
    expect(run.code).toBe(2);
    expect(json).toEqual({
      ok: false,
      error: { code: "BAD_PREDICATE", message: expect.stringContaining("nope"), path: null },
    });
  });

  test.each([
    [["find", "--max-depth", "x"], "not a number"],
    [["find", "--min-size", "nope"], "is not a size"],
    [["find", "--newer-than", "yesterday-ish"], "neither a duration"],
    [["find", "--perm", "999"], "not an octal mode"],
    [["find", "--type", "q"], "not one of"],
    [["find", "[unclosed"], "bad glob"],
    [["find", "--limit"], "needs a value"],
    [["nosuchcommand"], "unknown command"],
  ])("bad input %p exits 2 with a clear message", (args, message) => {
    const r = rglob(args, { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain("    at ");
  });

  test("in JSON mode a request failure is the envelope on stdout", () => {
    const { json, run } = rglobJson(["find", "--min-size", "nope", "--json"], { cwd: FIXTURE });
    expect(run.code).toBe(2);
    expect((json as { error: { code: string } }).error.code).toBe("BAD_PREDICATE");
  });

  test("exit 0 when something is found, 1 when nothing is", () => {
    expect(rglob(["find", "*.py"], { cwd: FIXTURE }).code).toBe(0);
    expect(rglob(["find", "*.nothing"], { cwd: FIXTURE }).code).toBe(1);
  });

  test("a closed pipe ends quietly", () => {
    const r = Bun.spawnSync(["sh", "-c", `"${BIN}" find --no-ignore --hidden --base "${ROOT}" | head -1`], {
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString().split("\n").filter(Boolean)).toHaveLength(1);
    expect(r.stderr.toString()).toBe("");
  });

  test("a closed pipe ends a grep of a large file quietly too (searched window by window), exit 0", () => {
    const dir = mkdtempSync(join(tmpdir(), "rglob-epipe-"));
    try {
      const big = Buffer.from("line of text\n".repeat(400_000));
      writeFileSync(join(dir, "big.txt"), big);
      const r = Bun.spawnSync(
        ["bash", "-c", `"${BIN}" grep line big.txt | head -2 >/dev/null; echo "exit \${PIPESTATUS[0]}"`],
        { cwd: dir, env: { ...process.env, RGLOB_SERVE: "0" }, stdout: "pipe", stderr: "pipe" },
      );
      expect(r.stdout.toString()).toBe("exit 0\n");
      expect(r.stderr.toString()).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a reader slower than the output on a non-blocking stdout gets every byte (rglob mcp's answer)", async () => {
    // The MCP server's stdout is non-blocking (its stdin is read as a stream): an answer larger than the pipe
    // holds meets EAGAIN whenever the client reads slower than the server writes, and the server waits until the
    // client takes more (platform/poll.ts) instead of failing or losing bytes.
    const spec: Record<string, string> = {};
    for (let d = 0; d < 40; d++)
      for (let f = 0; f < 60; f++) spec[`directory-${d}/a-rather-long-file-name-${f}.txt`] = "";
    const { dir, cleanup } = tempTree(spec);
    const server = Bun.spawn([BIN, "mcp", "--root", dir], {
      cwd: dir,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const send = (m: object) => {
        server.stdin.write(`${JSON.stringify(m)}\n`);
        server.stdin.flush();
      };
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "slow", version: "1" },
        },
      });
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const args = { types: ["f"], hidden: true, limit: 100_000, max_output_bytes: 9_000_000 };
      send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "find_files", arguments: args } });
      await Bun.sleep(300); // the server has written all it could: its pipe is full
      const reader = server.stdout.getReader();
      const decoder = new TextDecoder();
      let text = "";
      while (!/\n\{[^\n]*"id":2[^\n]*\n/.test(`\n${text}`)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        await Bun.sleep(2); // slower than the server
      }
      const line = text.split("\n").find((l) => l.includes('"id":2')) as string;
      const answer = JSON.parse(line) as {
        result: { structuredContent: { results: unknown[]; truncated: boolean } };
      };
      expect(line.length).toBeGreaterThan(400_000);
      expect(answer.result.structuredContent.results).toHaveLength(2400);
      expect(answer.result.structuredContent.truncated).toBe(false);
    } finally {
      server.kill();
      cleanup();
    }
    expect(await new Response(server.stderr as ReadableStream).text()).not.toContain("EAGAIN");
  });

  test("the binary runs from another directory with the sources moved away", () => {
    const dir = mkdtempSync(join(tmpdir(), "rglob-bin-"));
    try {
      const copy = join(dir, "rglob");
      copyFileSync(BIN, copy);
      Bun.spawnSync(["chmod", "+x", copy]);
      const { json, run } = rglobJson(["find", "*.py", "--base", FIXTURE, "--json"], { cwd: dir, bin: copy });
      expect(run.code).toBe(0);
      const rels = (json.results as Array<{ relative_path: string }>).map((r) => r.relative_path);
      expect(rels).toEqual(["hidden/.secret.py", "src/main.py", "src/utils/helper.py"]);
      expect(rglob(["schema", "find"], { cwd: dir, bin: copy }).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("introspection endpoints print pure JSON", () => {
  test("capabilities", () => {
    const { json } = rglobJson(["capabilities"]);
    expect(json.agent_api_version).toBe("1.4");
    expect(json.package_version).toBe(pkg.version);
    expect((json.mcp as { transport: string }).transport).toBe("stdio");
    expect(json.operations).toContain("find");
  });

  test("agent-version", () => {
    expect(rglobJson(["agent-version"]).json).toEqual({
      agent_api_version: "1.4",
      schema_version: "1.0",
      package_version: pkg.version,
    });
  });

  test("describe find lists operands, typed flags with defaults and aliases, schemas, limits and examples", () => {
    const { json } = rglobJson(["describe", "find"]);
    const flags = json.flags as Array<Record<string, unknown>>;
    const depth = flags.find((f) => f.name === "--max-depth");
    expect(depth).toMatchObject({ short: "-d", type: "integer", input_key: "max_depth" });
    const ignore = flags.find((f) => f.name === "--respect-gitignore");
    expect(ignore).toMatchObject({ type: "boolean", default: true, negatable: true });
    expect(flags.find((f) => f.name === "--type")).toBeUndefined();
    expect(flags.find((f) => f.name === "--types")).toMatchObject({ aliases: ["--type"], repeatable: true });
    expect((json.schemas as { input: { $id: string } }).input.$id).toBe("urn:rglob:schema:1.0:find.input");
    expect((json.examples as unknown[]).length).toBeGreaterThan(0);
    expect((json.default_limits as { agent: { limit: number } }).agent.limit).toBeGreaterThan(0);
  });
});

describe("human output says when a byte or output bound cut it", () => {
  test("--max-output-bytes and --max-bytes: a note on stderr with the next page; a line count bound says nothing", () => {
    const out = rglob(["find", "-t", "f", "--max-output-bytes", "300"], { cwd: FIXTURE });
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/^rglob: truncated \(max_output_bytes\); the next page: --cursor \S+\n$/);
    const cursor = (/--cursor (\S+)/.exec(out.stderr) as RegExpExecArray)[1] as string;
    const next = rglob(["find", "-t", "f", "--max-output-bytes", "300", "--cursor", cursor], {
      cwd: FIXTURE,
    });
    expect(next.code).toBe(0);
    expect(next.stdout.split("\n")[0]).not.toBe(out.stdout.split("\n")[0]);
    expect(rglob(["grep", "e", "--max-bytes", "10"], { cwd: FIXTURE }).stderr).toContain(
      "truncated (max_bytes)",
    );
    expect(rglob(["find", "-t", "f", "--limit", "2"], { cwd: FIXTURE }).stderr).toBe("");
    expect(rglob(["top", "-n", "2"], { cwd: FIXTURE }).stderr).toBe("");
    expect(rglob(["grep", "e", "--max-count", "1"], { cwd: FIXTURE }).stderr).toBe("");
  });

  test("a page too small for its next record says so (TOO_LARGE), and a larger budget goes on from the cursor", () => {
    type Page = {
      results: unknown[];
      errors: Array<{ code: string; message: string }>;
      next_cursor: string | null;
    };
    const first = rglobJson<Page>(["grep", "e", "--max-output-bytes", "600", "--json"], {
      cwd: FIXTURE,
    }).json;
    expect(first.results.length).toBeGreaterThan(0);
    let cursor = first.next_cursor as string;
    // Page on with the same budget until a record does not fit: that page is empty and says why.
    let page = first;
    for (let i = 0; i < 20 && page.results.length > 0; i++) {
      page = rglobJson<Page>(["grep", "e", "--max-output-bytes", "600", "--json", "--cursor", cursor], {
        cwd: FIXTURE,
      }).json;
      if (page.results.length > 0) cursor = page.next_cursor as string;
    }
    expect(page.results).toEqual([]);
    expect(page.errors.at(-1)?.code).toBe("TOO_LARGE");
    expect(page.errors.at(-1)?.message).toContain("does not fit max_output_bytes (600)");
    const bigger = rglobJson<Page>(
      ["grep", "e", "--max-output-bytes", "5000", "--json", "--cursor", cursor],
      {
        cwd: FIXTURE,
      },
    ).json;
    expect(bigger.results.length).toBeGreaterThan(0);
  });
});
