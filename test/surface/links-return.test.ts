// Links whose meaning depends on where the tree is (#37): an absolute link into the tree, and a `..` link that
// leaves the tree and comes back in through the tree's own name, are inside the base and not broken; one call of
// find --link broken,escaping leaves them out, and find -t l says where each leads.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { rglob, rglobJson } from "../helpers.ts";

const top = mkdtempSync(join(tmpdir(), "rglob-links-return-"));
const base = join(top, "tree");
mkdirSync(join(base, "docs/runbooks"), { recursive: true });
mkdirSync(join(base, "services/api"), { recursive: true });
mkdirSync(join(top, "shared/fonts"), { recursive: true });
writeFileSync(join(base, "docs/runbooks/deploy.md"), "# deploy\n");
symlinkSync(join(base, "docs/runbooks/deploy.md"), join(base, "docs/current.md")); // absolute, into the tree
symlinkSync(`../../../${basename(base)}/docs`, join(base, "services/api/docs")); // leaves, comes back
symlinkSync("../../shared/fonts", join(base, "docs/fonts")); // leaves for good
symlinkSync(`../../${basename(base)}/docs/none.md`, join(base, "docs/gone.md")); // comes back, broken
afterAll(() => rmSync(top, { recursive: true, force: true }));

interface Rec {
  relative_path: string;
  link_target: string;
  link_target_exists: boolean;
  link_escapes: boolean;
  link_resolved: string;
}

test("one call: broken or outside, by where each link ends", () => {
  const r = rglob(["find", "--link", "broken,escaping", "--format", "{rel} -> {target}: {link}"], {
    cwd: base,
  });
  expect(r.stdout).toBe(
    [
      `docs/fonts -> ../../shared/fonts: escaping`,
      `docs/gone.md -> ../../${basename(base)}/docs/none.md: broken`,
      "",
    ].join("\n"),
  );
  const all = rglobJson<{ results: Rec[] }>(["find", "-t", "l", "--json"], { cwd: base }).json.results;
  const by = new Map(all.map((x) => [x.relative_path, x]));
  expect(by.get("docs/current.md")).toMatchObject({
    link_target_exists: true,
    link_escapes: false,
    link_resolved: "docs/runbooks/deploy.md",
  });
  expect(by.get("services/api/docs")).toMatchObject({
    link_target_exists: true,
    link_escapes: false,
    link_resolved: "docs",
  });
  expect(by.get("docs/fonts")).toMatchObject({
    link_escapes: true,
    link_resolved: join(top, "shared/fonts"),
  });
});
