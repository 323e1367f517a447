/*! A warm server and a repository nested in its tree (issue #36, docs/decisions/0059-nested-repository-ignore-files.md):
 * the nested repository's info/exclude applies below its root, and an edit of it (no watch sees it: nothing in a
 * `.git` directory is watched) is in the next served answer, the remembered walk that read it checked against it
 * before it is replayed, as a cold run gives it. Real git makes the repositories. */
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { skipWhen } from "../helpers.ts";
import { sameAsColdIn, serveSandbox, until } from "./sandbox.ts";

const hasGit = Bun.spawnSync(["git", "--version"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
const { outer, root, run, servers, serve, end } = serveSandbox("rglob-nested-exclude-");
/** git's configuration and global excludes file looked for in the sandbox. */
const home = { HOME: outer, XDG_CONFIG_HOME: join(outer, "xdg"), GIT_CONFIG_NOSYSTEM: "1" };
/** A served call waits for the server rather than running cold. */
const sameAsCold = sameAsColdIn(
  { root, run: (a, c, x) => run(a, c, { ...home, ...x }), servers },
  {
    RGLOB_SERVE_WAIT_MS: "120000",
  },
);
let server: ReturnType<typeof Bun.spawn> | null = null;

function put(rel: string, text = "nestedneedle\n"): void {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), text);
}

beforeAll(async () => {
  if (!hasGit) return;
  for (const dir of [root, join(root, "A")]) {
    mkdirSync(dir, { recursive: true });
    expect(Bun.spawnSync(["git", "init", "-q", dir]).exitCode).toBe(0);
  }
  put(".gitignore", "p.txt\n");
  put("A/.git/info/exclude", "*.log\n");
  for (const f of ["a0.txt", "p.txt", "A/a.log", "A/deep/a.log", "A/b.txt", "A/p.txt", "src/c.log"]) put(f);
  ({ server } = serve(home));
  expect(await until(() => servers().find((s) => s.root === root)?.state === "ready")).toBe(true);
}, 300_000);

afterAll(() => end(server, home));

const files = (args: readonly string[]) => sameAsCold(args).stdout.toString();

skipWhen(!hasGit && "git is not installed")(
  "a served call applies a nested repository's exclude file, and takes an edit of it at the next call",
  () => {
    const grep = ["grep", "-l", "nestedneedle"];
    const before = "A/b.txt\nA/p.txt\na0.txt\nsrc/c.log\n";
    expect(files(grep)).toBe(before);
    // The walk is remembered now: the next call replays it.
    expect(files(grep)).toBe(before);
    expect(files(["find", "-t", "f", "--glob", "*.log"])).toBe("src/c.log\n");
    writeFileSync(join(root, "A", ".git", "info", "exclude"), "*.txt\n");
    expect(files(grep)).toBe("A/a.log\nA/deep/a.log\na0.txt\nsrc/c.log\n");
    // Walked again under the new rules, and remembered again: the next call replays that walk.
    const again = JSON.parse(sameAsCold([...grep, "--json"]).stdout.toString()) as { source?: string };
    expect(again.source).not.toBe("cold");
    expect(files(["find", "-t", "f", "--glob", "*.log"])).toBe("A/a.log\nA/deep/a.log\nsrc/c.log\n");
    // Removed: no rule of its own, and none of the outer repository's, applies in A.
    writeFileSync(join(root, "A", ".git", "info", "exclude"), "");
    expect(files(grep)).toBe("A/a.log\nA/b.txt\nA/deep/a.log\nA/p.txt\na0.txt\nsrc/c.log\n");
  },
  120_000,
);
