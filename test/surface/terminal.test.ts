// Terminal manners: help wrapped to the terminal (COLUMNS, else 100 through a pipe) with no trailing spaces and
// the regex dialect named in grep's help; shell completions and the man page generated from the registry, checked
// by the shells and by man themselves (a shell or man that is missing is skipped loudly: CI has only Node).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, rglob, rglobJson, skipWhen } from "../helpers.ts";

interface DescribedFlag {
  name: string;
  short: string | null;
  aliases: string[];
}

const ops = rglobJson<{ operations: string[] }>(["capabilities"]).json.operations;
const commands = ["--help", ...ops, "completions", "man"];
let dir = "";

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "rglob-terminal-"));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function which(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
}

/** Lines longer than the width, other than a lone word that cannot be broken. */
function overlong(text: string, width: number): string[] {
  return text.split("\n").filter((l) => [...l].length > width && l.trim().includes(" "));
}

describe("help", () => {
  test.each([60, 80, 120])("with COLUMNS=%d every help fits and no line ends in a space", (width) => {
    for (const cmd of commands) {
      const args = cmd === "--help" ? ["--help"] : [cmd, "--help"];
      const r = rglob(args, { env: { COLUMNS: String(width) } });
      expect(r.code).toBe(0);
      expect(overlong(r.stdout, width)).toEqual([]);
      expect(r.stdout.split("\n").filter((l) => / $/.test(l))).toEqual([]);
    }
  });

  test("through a pipe with no COLUMNS, help is wrapped to 100 columns", () => {
    const r = rglob(["grep", "--help"], { env: { COLUMNS: "" } });
    expect(overlong(r.stdout, 100)).toEqual([]);
    expect(r.stdout.split("\n").some((l) => l.length > 90)).toBe(true); // it uses the width, not less
  });

  test("grep --help names the regex dialect of PATTERN", () => {
    const r = rglob(["grep", "--help"], { env: { COLUMNS: "200" } });
    expect(r.stdout).toMatch(/^ {2}PATTERN\n {8}A regex, rg's or JavaScript's/m);
  });
});

describe("completions", () => {
  test("an unknown or missing shell is a usage error (exit 2) naming the shells", () => {
    for (const args of [["completions"], ["completions", "tcsh"]]) {
      const r = rglob(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("bash|zsh|fish");
    }
  });

  test.skipIf(!which("bash"))(
    "bash: the script parses, and compgen completes commands and every flag spelling of every operation (skipped without bash)",
    () => {
      const script = join(dir, "rglob.bash");
      writeFileSync(script, rglob(["completions", "bash"]).stdout);
      expect(spawnSync("bash", ["-n", script]).status).toBe(0);
      const complete = (...words: string[]) => {
        const shell = `source ${JSON.stringify(script)}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _rglob; printf '%s\\n' "\${COMPREPLY[@]}"`;
        const r = spawnSync("bash", ["-c", shell], { encoding: "utf8" });
        expect(r.stderr).toBe("");
        return r.stdout.split("\n").filter(Boolean);
      };
      expect(complete("rglob", "gr")).toEqual(["grep"]);
      expect(complete("rglob", "")).toEqual(expect.arrayContaining([...ops, "completions", "man"]));
      expect(complete("rglob", "completions", "")).toEqual(["bash", "zsh", "fish", "powershell"]);
      for (const op of ops) {
        const flags = rglobJson<{ flags: DescribedFlag[] }>(["describe", op]).json.flags;
        const offered = complete("rglob", op, "-");
        for (const f of flags) {
          for (const spelling of [f.name, ...f.aliases, ...(f.short ? [f.short] : [])])
            expect(`${op}: ${offered.includes(spelling) ? spelling : `missing ${spelling}`}`).toBe(
              `${op}: ${spelling}`,
            );
        }
      }
      expect(complete("rglob", "find", "--types", "")).toEqual(["f", "d", "l", "x", "e", "p", "s", "b", "c"]);
    },
  );

  test("powershell: a native argument completer with every command and every flag spelling of every operation", () => {
    const script = rglob(["completions", "powershell"]);
    expect(script.code).toBe(0);
    expect(script.stdout).toContain("Register-ArgumentCompleter -Native -CommandName 'rglob', 'rglob.exe'");
    for (const op of ops) {
      expect(script.stdout).toContain(`,@('${op}', '`);
      const flags = rglobJson<{ flags: DescribedFlag[] }>(["describe", op]).json.flags;
      const block = script.stdout.slice(script.stdout.indexOf(`  '${op}' = @(`));
      const own = block.slice(0, block.indexOf("\n  )"));
      for (const f of flags)
        for (const spelling of [f.name, ...f.aliases, ...(f.short ? [f.short] : [])])
          expect(`${op}: ${own.includes(`,@('${spelling}', '`) ? spelling : `missing ${spelling}`}`).toBe(
            `${op}: ${spelling}`,
          );
    }
  });

  skipWhen(!which("pwsh") && "pwsh is not installed")("powershell: pwsh runs the completer", () => {
    const file = join(dir, "_rglob.ps1");
    writeFileSync(file, rglob(["completions", "powershell"]).stdout);
    const run = (line: string) =>
      spawnSync(
        "pwsh",
        [
          "-NoProfile",
          "-Command",
          `. '${file}'; (TabExpansion2 -inputScript '${line}' -cursorColumn ${line.length}).CompletionMatches | ForEach-Object { $_.CompletionText }`,
        ],
        { encoding: "utf8" },
      );
    const r = run("rglob gr");
    expect(r.stderr).toBe("");
    expect(r.stdout.trim().split(/\r?\n/)).toEqual(["grep"]);
    expect(run("rglob grep --max-d").stdout).toContain("--max-depth");
    expect(run("rglob find --types ").stdout.trim().split(/\r?\n/)).toContain("f");
  });

  for (const shell of ["zsh", "fish"].filter((s) => !which(s)))
    test.skip(`${shell}: the script parses (skipped: ${shell} is not installed)`, () => {});
  test.each(["zsh", "fish"].filter((s) => which(s)))("%s: the script parses", (shell) => {
    const script = join(dir, `rglob.${shell}`);
    writeFileSync(script, rglob(["completions", shell]).stdout);
    const r = spawnSync(shell, ["-n", script], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    if (shell === "fish") {
      const c = spawnSync("fish", ["-c", `source ${script}; complete -C 'rglob grep --max-d'`], {
        encoding: "utf8",
      });
      expect(c.stdout).toContain("--max-depth");
    }
  });
});

describe("man page", () => {
  test("rglob man prints a page", () => {
    const page = rglob(["man"]);
    expect(page.code).toBe(0);
    expect(page.stdout).toStartWith(".TH RGLOB 1 ");
  });

  skipWhen(!which("man") && "man is not installed")(
    "man renders it without warnings, with every operation and its flags",
    () => {
      const file = join(dir, "rglob.1");
      writeFileSync(file, rglob(["man"]).stdout);
      const r = spawnSync("man", ["--warnings", "-l", file], {
        encoding: "utf8",
        env: { ...process.env, MANWIDTH: "100", MANPAGER: "cat", PAGER: "cat" },
      });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      const text = r.stdout.replace(/.\x08/g, "");
      for (const op of ops) expect(text).toContain(`rglob ${op} [OPTIONS]`);
      for (const f of rglobJson<{ flags: DescribedFlag[] }>(["describe", "grep"]).json.flags)
        expect(text).toContain(f.name);
    },
  );

  test("ENVIRONMENT names every RGLOB_* variable the source reads, and FILES the index in the cache directory", () => {
    const page = rglob(["man"]).stdout;
    const env = page.slice(page.indexOf(".SH ENVIRONMENT"), page.indexOf(".SH FILES"));
    const files = page.slice(page.indexOf(".SH FILES"), page.indexOf(".SH SEE ALSO"));
    const read = new Set<string>();
    const scan = (d: string) => {
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) scan(p);
        else if (/\.(ts|cjs)$/.test(n))
          for (const m of readFileSync(p, "utf8").matchAll(/\bRGLOB_[A-Z][A-Z0-9_]*/g)) read.add(m[0]);
      }
    };
    scan(join(ROOT, "src"));
    scan(join(ROOT, "bin"));
    read.delete("RGLOB_BUILD_COMMIT"); // a build-time constant, not an environment variable
    expect(read.size).toBeGreaterThan(8);
    const documented = [...env.matchAll(/^\.B (RGLOB_\w+)$/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual([...read].sort());
    for (const v of ["NO_COLOR", "COLUMNS", "XDG_CACHE_HOME"]) expect(env).toContain(`.B ${v}\n`);
    expect(files).toContain("$RGLOB_CACHE_DIR/index/");
    expect(files).toContain(".gitignore");
  });
});
