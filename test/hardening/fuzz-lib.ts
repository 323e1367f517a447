/*! Fuzzing of the CLI: random and adversarial argv for every operation the binary describes, each run checked
 * for the process contract (exit 0/1/2, no stack trace or internal error, valid JSON in JSON modes, no path
 * outside the base under --strict-base, no hang past the timeout). Shared by the bounded test and the long
 * run in scripts/fuzz.ts. */

/** A flag as `rglob describe` reports it. */
export interface DescribedFlag {
  readonly name: string;
  readonly short: string | null;
  readonly type: string;
  readonly choices: readonly string[] | null;
}

export { prng } from "../helpers.ts";

const NASTY_STRINGS = [
  "",
  " ",
  "-",
  "--",
  "..",
  "../..",
  "../../..",
  "~",
  "~/x",
  "/",
  "/etc",
  "/etc/passwd",
  "/proc/self",
  "*",
  "**",
  "**/*",
  "[",
  "[!",
  "{a,b",
  "{,}",
  "\\",
  "a\\",
  "(a+)+$",
  "(",
  ")",
  "*?+",
  "\u00e9t\u00e9",
  "\u{1f600}",
  "x".repeat(5000),
  "%s%n%x",
  "$(echo pwned)",
  "`id`",
  "a\nb",
  "\t",
  "\u0007",
  "-1",
  "0",
  "1",
  "1e308",
  "-1e308",
  "NaN",
  "Infinity",
  "9007199254740993",
  "0x10",
  "1.5",
  "+1M",
  "-10k",
  "1 kb",
  "7d",
  "2026-13-45",
  "2026-01-31T25:00:00Z",
  "644",
  "/222",
  "-111",
  "999",
  "true",
  "false",
  "null",
  "{}",
  "[]",
  "TODO",
  "*.py",
  "src",
  "docs/notes.txt",
];

const NUMBERS = [
  "0",
  "1",
  "2",
  "3",
  "10",
  "-1",
  "-100",
  "1.5",
  "0.001",
  "1e9",
  "99999999999999999999",
  "x",
  "",
  " 5",
];

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

function valueFor(rand: () => number, flag: DescribedFlag): string {
  const r = rand();
  if (flag.choices && r < 0.6) return pick(rand, flag.choices);
  if ((flag.type === "integer" || flag.type === "number") && r < 0.7) return pick(rand, NUMBERS);
  return pick(rand, NASTY_STRINGS);
}

/**
 * Creates one random argv for an operation.
 * @param rand the generator
 * @param op the operation id
 * @param flags its flags, from `rglob describe`
 * @returns the arguments (after the program name)
 */
export function randomArgs(rand: () => number, op: string, flags: readonly DescribedFlag[]): string[] {
  // Output mode, timeout and strict base come first, so that a random flag left without its value at the end
  // cannot swallow them.
  const mode = rand();
  const args = [op, ...(mode < 0.4 ? ["--json"] : mode < 0.7 ? ["--jsonl"] : []), "--timeout", "5"];
  if (rand() < 0.3) args.push("--strict-base");
  // The output mode is chosen above; a random --no-json would make the run's mode ambiguous.
  const choosable = flags.filter((f) => !["--json", "--jsonl"].includes(f.name));
  const n = Math.floor(rand() * 6);
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.15) {
      args.push(pick(rand, NASTY_STRINGS));
      continue;
    }
    if (r < 0.2) {
      args.push(`--${pick(rand, ["bogus", "no-bogus", "json=1", "limit=", "x-y"])}`);
      continue;
    }
    const flag = pick(rand, choosable);
    const spelled = flag.short && rand() < 0.3 ? flag.short : flag.name;
    if (flag.type === "boolean") {
      args.push(rand() < 0.2 ? `--no-${flag.name.slice(2)}` : spelled);
      continue;
    }
    if (rand() < 0.05) {
      args.push(spelled); // missing value
      continue;
    }
    const value = valueFor(rand, flag);
    if (rand() < 0.3 && spelled.startsWith("--")) args.push(`${spelled}=${value}`);
    else args.push(spelled, value);
  }
  return args;
}

/** What a fuzz run found wrong, or null. */
export type Verdict = string | null;

/**
 * Checks one run against the process contract.
 * @param args the argv
 * @param code the exit code (null when killed)
 * @param stdout standard output
 * @param stderr standard error
 * @param base the base directory (for --strict-base containment)
 * @returns a description of the violation, or null
 */
export function checkRun(
  args: readonly string[],
  code: number | null,
  stdout: string,
  stderr: string,
  base: string,
): Verdict {
  if (code === null) return "killed: did not finish in time";
  if (code !== 0 && code !== 1 && code !== 2) return `exit code ${code}`;
  if (/internal error|\n\s+at .+:\d+:\d+/.test(stderr))
    return `stack trace or internal error: ${stderr.slice(0, 400)}`;
  if (args.includes("--help") || args.includes("-h")) return null;
  const json = args.includes("--json") && !args.includes("--jsonl");
  const lines = args.includes("--jsonl") && !args.includes("--json");
  const parsed: unknown[] = [];
  try {
    if (json && stdout.trim() !== "") parsed.push(JSON.parse(stdout));
    if (lines) for (const l of stdout.split("\n")) if (l) parsed.push(JSON.parse(l));
  } catch {
    return `invalid JSON output: ${stdout.slice(0, 300)}`;
  }
  if (json && code === 2 && stdout.trim() !== "") {
    // Exit 2 is a failure envelope, or a result that holds per-path errors (exit 2 as rg, #22).
    const env = parsed[0] as { ok?: boolean; errors?: unknown[] } | undefined;
    if (env?.ok !== false && !(Array.isArray(env?.errors) && env.errors.length > 0))
      return "exit 2 in --json mode without a failure envelope or an error record";
  }
  if (lines && code !== 2) {
    const last = parsed.at(-1) as { kind?: string } | undefined;
    if (last?.kind !== "summary") return "JSONL output does not end with a summary line";
  }
  // With --base the records are relative to that other base, which the caller chose.
  if (args.includes("--strict-base") && !args.includes("--base")) {
    // Records only: an error record may name the refused path the caller gave, and so may explain's answer
    // that such a path is not included because it is outside the base.
    const refused = (r: unknown): boolean => {
      const x = r as { included?: boolean; reasons?: Array<{ stage?: string }> };
      return x.included === false && (x.reasons ?? []).some((reason) => reason.stage === "outside_base");
    };
    const records = (
      json
        ? ((parsed[0] as { results?: unknown[] } | undefined)?.results ?? [])
        : parsed.filter(
            (r) =>
              (r as { ok?: boolean }).ok !== false &&
              !["error", "summary"].includes((r as { kind?: string }).kind ?? ""),
          )
    ).filter((r) => !refused(r));
    const text = JSON.stringify(records);
    for (const m of text.matchAll(/"path":"([^"]+)"/g)) {
      const p = (m[1] as string).replace(/\\\\/g, "\\");
      if (!p.startsWith(base)) return `path outside the base under --strict-base: ${p}`;
    }
  }
  return null;
}
