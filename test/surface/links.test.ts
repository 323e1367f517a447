// Symlink records (#37): link_target, link_target_exists, link_escapes and link_resolved of every link on random
// trees with dangling, chained, looping and escaping links, against readlink(2), stat(2) and GNU `realpath -m`; the
// `links` selector; escaping links as results under strict_base with follow; the human `link -> target`.
import { afterAll, describe, expect, test } from "bun:test";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { jsonl, prng, rglob } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A random tree in `<tmp>/base`, with `<tmp>/outside` next to it: files, directories and links of every sort. */
function linkTree(seed: number): { top: string; base: string } {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const top = mkdtempSync(join(tmpdir(), "rglob-links-"));
  made.push(top);
  const base = join(top, "base");
  const outside = join(top, "outside");
  mkdirSync(join(outside, "od"), { recursive: true });
  writeFileSync(join(outside, "of"), "x");
  const dirs = [""];
  for (let i = 0; i < 6; i++) {
    const d = join(pick(dirs), `d${i}`);
    mkdirSync(join(base, d), { recursive: true });
    dirs.push(d);
  }
  mkdirSync(base, { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < 8; i++) {
    const f = join(pick(dirs), `f${i}`);
    writeFileSync(join(base, f), "y");
    files.push(f);
  }
  const links: string[] = [];
  for (let i = 0; i < 14; i++) {
    const d = pick(dirs);
    const name = join(d, `l${i}`);
    const up = d === "" ? "" : "../".repeat(d.split("/").length);
    const kind = Math.floor(rnd() * 9);
    let target: string;
    if (kind === 0)
      target = `${up}${pick(files)}`; // inside, to a file
    else if (kind === 1)
      target = `${up}${pick(dirs) || "."}`; // inside, to a directory
    else if (kind === 2)
      target = `missing${i}`; // dangling
    else if (kind === 3 && links.length > 0)
      target = `${up}${pick(links)}`; // chained (maybe dangling, maybe a loop)
    else if (kind === 4)
      target = `l${i}`; // a loop on itself
    else if (kind === 5)
      target = `${up}../outside/${pick(["of", "od", "nope"])}`; // escaping (maybe dangling)
    else if (kind === 6) target = pick([join(outside, "of"), "/nonexistent/x", join(base, pick(files))]);
    else if (kind === 7) target = `${up}${pick(dirs) || "."}/../${pick(["f0", "d0", "zz"])}`;
    else target = `${up}..`; // the base's parent: escaping
    symlinkSync(target, join(base, name));
    links.push(name);
  }
  // A two-link loop and a chain through a directory link.
  symlinkSync("loopB", join(base, "loopA"));
  symlinkSync("loopA", join(base, "loopB"));
  symlinkSync(".", join(base, "selfdir"));
  symlinkSync("selfdir/selfdir/f-none", join(base, "through"));
  // Chains: a link to a link that leaves the base; one that leaves and comes back in; one ending broken outside.
  // An absolute link that leads inside the base today (it breaks when the tree moves: --link absolute).
  symlinkSync(join(base, files[0] as string), join(base, "abs-in"));
  symlinkSync("chain-esc2", join(base, "chain-esc1"));
  symlinkSync("../outside/of", join(base, "chain-esc2"));
  symlinkSync(`../base/${files[0]}`, join(outside, "back"));
  symlinkSync("../outside/back", join(base, "chain-back"));
  symlinkSync("chain-broken2", join(base, "chain-broken1"));
  symlinkSync("../outside/nope/deeper", join(base, "chain-broken2"));
  // One link passed twice on the way (not a loop): p leads to the base, so esc leads to its parent.
  mkdirSync(join(base, "dd"));
  symlinkSync("..", join(base, "dd/p"));
  symlinkSync("p/dd/p/..", join(base, "dd/esc"));
  return { top, base };
}

/** Every symlink under dir (not entering linked directories), by POSIX path relative to dir. */
function linksOnDisk(dir: string, rel = "", out: string[] = []): string[] {
  for (const name of readdirSync(join(dir, rel))) {
    const r = rel === "" ? name : `${rel}/${name}`;
    const st = lstatSync(join(dir, r));
    if (st.isSymbolicLink()) out.push(r);
    else if (st.isDirectory()) linksOnDisk(dir, r, out);
  }
  return out.sort();
}

function realpathM(p: string): string {
  const res = Bun.spawnSync(["realpath", "-m", "--", p]);
  expect(res.exitCode).toBe(0);
  return res.stdout.toString().replace(/\n$/, "");
}

function expected(base: string, rel: string) {
  const abs = join(base, rel);
  let exists = true;
  try {
    statSync(abs);
  } catch {
    exists = false;
  }
  const led = realpathM(abs);
  const baseReal = realpathM(base);
  const inside = led === baseReal || led.startsWith(`${baseReal}/`);
  return {
    link_target: readlinkSync(abs),
    link_target_exists: exists,
    link_escapes: !inside,
    link_resolved: !inside ? led : led === baseReal ? "." : led.slice(baseReal.length + 1),
  };
}

const hasRealpath = Bun.spawnSync(["realpath", "-m", "/"]).exitCode === 0;

// biome-ignore format: the title, with why it may be skipped, stays on its line
describe.if(hasRealpath)("link records against readlink, stat and realpath -m (skipped without realpath -m)", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    test(`seed ${seed}`, () => {
      const { base } = linkTree(seed);
      const run = rglob(["find", "-t", "l", "--base", base, "--jsonl"]);
      const recs = jsonl(run.stdout).filter((r) => r.kind === "file");
      const disk = linksOnDisk(base);
      expect(recs.map((r) => r.relative_path).sort()).toEqual(disk);
      for (const r of recs) {
        const rel = r.relative_path as string;
        expect(r.entry_type).toBe("symlink");
        expect({
          rel,
          link_target: r.link_target,
          link_target_exists: r.link_target_exists,
          link_escapes: r.link_escapes,
          link_resolved: r.link_resolved,
        }).toEqual({ rel, ...expected(base, rel) });
      }
      // The selectors, each in one call.
      const sel = (which: string) =>
        rglob(["find", "--link", which, "--base", base, "--format", "{rel}"])
          .stdout.split("\n")
          .filter((l) => l !== "")
          .sort();
      expect(sel("broken")).toEqual(disk.filter((rel) => !expected(base, rel).link_target_exists));
      expect(sel("escaping")).toEqual(disk.filter((rel) => expected(base, rel).link_escapes));
      expect(sel("broken,escaping")).toEqual(
        disk.filter((rel) => {
          const x = expected(base, rel);
          return !x.link_target_exists || x.link_escapes;
        }),
      );
      // ok: the links that work and stay inside, the complement of the two above among the links (#37).
      expect(sel("ok")).toEqual(
        disk.filter((rel) => {
          const x = expected(base, rel);
          return x.link_target_exists && !x.link_escapes;
        }),
      );
      expect(sel("ok,broken,escaping")).toEqual(disk);
      // absolute: the links whose own text is an absolute path, whether they lead inside, outside or nowhere.
      const absolute = disk.filter((rel) => readlinkSync(join(base, rel)).startsWith("/"));
      expect(absolute).toContain("abs-in");
      expect(sel("absolute")).toEqual(absolute);
      // {link} says each link's state in the selectors' words: ok/broken/escaping, and absolute beside them.
      const words = rglob(["find", "-t", "l", "--base", base, "--format", "{rel}\t{link}"])
        .stdout.split("\n")
        .filter((l) => l !== "")
        .sort();
      expect(words).toEqual(
        disk.map((rel) => {
          const x = expected(base, rel);
          const w = [
            x.link_target_exists ? "" : "broken",
            x.link_escapes ? "escaping" : "",
            x.link_target_exists && !x.link_escapes ? "ok" : "",
            x.link_target.startsWith("/") ? "absolute" : "",
          ];
          return `${rel}\t${w.filter((v) => v !== "").join(", ")}`;
        }),
      );
    });
  }
});

describe("chains of links", () => {
  test("each link says where its chain ends; broken and escaping links with their ends in one call", () => {
    const { base, top } = linkTree(12);
    const recs = jsonl(rglob(["find", "-t", "l", "--base", base, "--jsonl"]).stdout);
    const at = (rel: string) => {
      const r = recs.find((x) => x.relative_path === rel) as Record<string, unknown>;
      return [r.link_target_exists, r.link_escapes, r.link_resolved];
    };
    const out = realpathM(join(top, "outside"));
    expect(at("chain-esc1")).toEqual([true, true, `${out}/of`]);
    expect(at("chain-back")).toEqual([true, false, expect.stringMatching(/^(d\d\/)*f\d$/)]);
    expect(at("chain-broken1")).toEqual([false, true, `${out}/nope/deeper`]);
    expect(at("loopA")).toEqual([false, false, "loopA"]);
    expect(at("selfdir")).toEqual([true, false, "."]);
    expect(at("through")).toEqual([false, false, "f-none"]);
    expect(at("dd/esc")).toEqual([true, true, realpathM(top)]);
    const one = rglob([
      "find",
      "--link",
      "broken,escaping",
      "chain-*",
      "--base",
      base,
      "--format",
      "{rel} -> {target}: {link} => {resolved}",
    ]);
    expect(one.stdout.split("\n").filter(Boolean).sort()).toEqual([
      `chain-broken1 -> chain-broken2: broken, escaping => ${out}/nope/deeper`,
      `chain-broken2 -> ../outside/nope/deeper: broken, escaping => ${out}/nope/deeper`,
      `chain-esc1 -> chain-esc2: escaping => ${out}/of`,
      `chain-esc2 -> ../outside/of: escaping => ${out}/of`,
    ]);
    // A working link inside the base says ok (#37): {link} is never empty for a link, and empty for a file.
    const ok = rglob([
      "find",
      "selfdir",
      "chain-back",
      "f*",
      "-d",
      "1",
      "--base",
      base,
      "--format",
      "{rel}: {link}.",
    ]);
    const shown = ok.stdout.split("\n").filter(Boolean).sort();
    expect(shown).toContain("selfdir: ok.");
    expect(shown).toContain("chain-back: ok.");
    expect(
      shown
        .filter((l) => !l.startsWith("selfdir") && !l.startsWith("chain-back"))
        .every((l) => l.endsWith(": .")),
    ).toBe(true);
  });
});

test("a chain that grows (a -> a/x, where GNU realpath -m never ends) ends as a broken link", () => {
  const dir = mkdtempSync(join(tmpdir(), "rglob-links-grow-"));
  made.push(dir);
  symlinkSync("a/x", join(dir, "a"));
  const run = rglob(["find", "--base", dir, "--jsonl"]);
  expect(run.code).toBe(0);
  const rec = jsonl(run.stdout).find((r) => r.relative_path === "a");
  expect(rec).toMatchObject({ link_target: "a/x", link_target_exists: false, link_escapes: false });
  expect(String(rec?.link_resolved).startsWith("a/x")).toBe(true);
});

// On Linux a link whose text is `C:/x` or `\\server\x` names a relative path, resolved from the link's directory as
// any other (#37): it is not `absolute`, and it works or breaks as a relative link does. path.isAbsolute decides,
// for the `absolute` word and for where the link leads alike.
describe.if(process.platform !== "win32")("Windows-looking link texts on POSIX (skipped on Windows)", () => {
  test("`C:/x`, `C:\\x` and `\\\\server\\x` are relative texts: never absolute, escaping or resolved from /", () => {
    const dir = mkdtempSync(join(tmpdir(), "rglob-links-win-"));
    made.push(dir);
    mkdirSync(join(dir, "C:"));
    writeFileSync(join(dir, "C:", "x"), "x\n");
    symlinkSync("C:/x", join(dir, "drive"));
    symlinkSync("C:\\x", join(dir, "backslash"));
    symlinkSync("\\\\server\\x", join(dir, "unc"));
    symlinkSync(join(dir, "C:", "x"), join(dir, "abs"));
    const recs = jsonl(rglob(["find", "-t", "l", "--base", dir, "--jsonl"]).stdout).filter(
      (r) => r.kind === "file",
    );
    const at = (rel: string) => {
      const r = recs.find((x) => x.relative_path === rel) as Record<string, unknown>;
      return [r.link_target, r.link_target_exists, r.link_escapes, r.link_resolved];
    };
    expect(at("drive")).toEqual(["C:/x", true, false, "C:/x"]);
    expect(at("backslash")).toEqual(["C:\\x", false, false, "C:\\x"]);
    expect(at("unc")).toEqual(["\\\\server\\x", false, false, "\\\\server\\x"]);
    expect(at("abs")).toEqual([join(dir, "C:", "x"), true, false, "C:/x"]);
    const sel = (which: string) =>
      rglob(["find", "--link", which, "--base", dir, "--format", "{rel}"])
        .stdout.split("\n")
        .filter((l) => l !== "")
        .sort();
    expect(sel("absolute")).toEqual(["abs"]);
    expect(sel("ok")).toEqual(["abs", "drive"]);
    expect(sel("broken")).toEqual(["backslash", "unc"]);
    expect(sel("escaping")).toEqual([]);
    const words = rglob(["find", "-t", "l", "--base", dir, "--format", "{rel}: {link}"])
      .stdout.split("\n")
      .filter((l) => l !== "")
      .sort();
    expect(words).toEqual(["abs: ok, absolute", "backslash: broken", "drive: ok", "unc: broken"]);
    // explain's --link stage says the same.
    const why = rglob(["explain", "drive", "--link", "absolute", "--base", dir, "--json"]);
    expect(why.stdout).toContain("is not absolute");
  });
});

describe("links outside the base", () => {
  test("with --follow under --strict-base they are results (not followed), not PERM errors", () => {
    const { base, top } = linkTree(7);
    symlinkSync("../outside", join(base, "zz-out"));
    const run = rglob(["find", "-L", "--strict-base", "--base", base, "--jsonl"]);
    const lines = jsonl(run.stdout);
    const summary = lines.find((r) => r.kind === "summary") as { errors: Array<{ code: string }> };
    expect(summary.errors.filter((e) => e.code === "PERM")).toEqual([]);
    const out = lines.find((r) => r.relative_path === "zz-out");
    expect(out).toMatchObject({ entry_type: "symlink", link_target: "../outside", link_escapes: true });
    // Never followed out of the base: nothing below the link is listed.
    expect(lines.some((r) => String(r.relative_path).startsWith("zz-out/"))).toBe(false);
    expect(relative(base, top)).toBe("..");
  });

  test("kind stays the record's name; entry_type says what the entry is", () => {
    const { base } = linkTree(8);
    const recs = jsonl(rglob(["find", "--base", base, "--jsonl"]).stdout).filter((r) => r.kind === "file");
    const byType = (t: string) => recs.filter((r) => r.entry_type === t).length;
    expect(byType("dir")).toBeGreaterThan(0);
    expect(byType("symlink")).toBe(linksOnDisk(base).length);
    for (const r of recs) {
      const kinds = r.kinds as string[];
      if (r.entry_type === "dir") expect(kinds).toContain("d");
      if (r.entry_type === "file") expect(kinds).toContain("f");
      if (kinds.includes("l")) expect(r.entry_type).toBe("symlink");
    }
  });

  test("human output: find, --format {target} {type}, tree and stats show links as links", () => {
    const { base } = linkTree(9);
    symlinkSync("../outside/of", join(base, "aa-out"));
    const find = rglob(["find", "aa-out", "--base", base], { cwd: base });
    expect(find.stdout).toBe("aa-out -> ../outside/of\n");
    const fmt = rglob(["find", "aa-out", "--base", base, "--format", "{rel}\t{type}\t{target}"]);
    expect(fmt.stdout).toBe("aa-out\tsymlink\t../outside/of\n");
    const print0 = rglob(["find", "aa-out", "--base", base, "-0"], { cwd: base });
    expect(print0.stdout).toBe("aa-out\0");
    const tree = rglob(["tree", "--base", base, "--max-depth", "1"], { cwd: base });
    expect(tree.stdout).toContain("├── aa-out -> ../outside/of\n");
    const stats = rglob(["stats", "--base", base, "--json"]);
    const s = JSON.parse(stats.stdout) as Record<string, number>;
    const disk = linksOnDisk(base);
    expect(s.symlinks).toBe(disk.length);
    expect(s.escaping_symlinks).toBe(disk.filter((rel) => expected(base, rel).link_escapes).length);
    expect(s.broken_symlinks).toBe(disk.filter((rel) => !expected(base, rel).link_target_exists).length);
  });

  test("MCP: find_files with links: ['escaping'] answers in one call with the same records", async () => {
    const { base } = linkTree(10);
    const cli = jsonl(rglob(["find", "--link", "escaping", "--base", base, "--jsonl"]).stdout)
      .filter((r) => r.kind === "file")
      .map(({ kind: _k, ...r }) => r);
    const s = await startMcp(["--root", base]);
    try {
      const res = (await s.client.callTool({
        name: "find_files",
        arguments: { links: ["escaping"], limit: 1000 },
      })) as unknown as { structuredContent: { results: unknown[] }; isError?: boolean };
      expect(res.isError ?? false).toBe(false);
      expect(res.structuredContent.results).toEqual(cli);
      expect(cli.length).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });
});

describe("MCP text", () => {
  test("a find_files text separates files, directories and symlinks, and shows each link with its target", async () => {
    const { base } = linkTree(11);
    symlinkSync("../outside/nope", join(base, "aa-broken-out"));
    const s = await startMcp(["--root", base]);
    try {
      const res = (await s.client.callTool({
        name: "find_files",
        arguments: { max_depth: 1, limit: 1000 },
      })) as unknown as {
        content: Array<{ text: string }>;
        structuredContent: { results: Array<{ entry_type: string }> };
      };
      const text = res.content[0]?.text ?? "";
      const recs = res.structuredContent.results;
      const n = (t: string, one: string, many: string) => {
        const k = recs.filter((r) => r.entry_type === t).length;
        return `${k} ${k === 1 ? one : many}`;
      };
      expect(text.split("\n")[0]).toContain(
        `${recs.length} ${recs.length === 1 ? "record" : "records"} (${n("file", "file", "files")}, ${n("dir", "directory", "directories")}, ${n("symlink", "symlink", "symlinks")})`,
      );
      expect(text).toContain(
        `aa-broken-out -> ../outside/nope (broken, escaping, ends at ${realpathM(join(base, "../outside"))}/nope)`,
      );
    } finally {
      await s.close();
    }
  });
});
