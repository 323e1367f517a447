// find --format refuses a word it does not know (#37): a mistyped '{link_status}' was printed as written on every
// line, and the listing read as an answer. A usage error (exit 2, nothing on stdout) names the word, the closest
// known one and the words there are; every known word, fd's placeholders and text around them still print.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rglob } from "../helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "rglob-format-words-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, "a.txt"), "a\n");
symlinkSync("a.txt", join(dir, "l"));

test.each([
  ["{rel} {link_status}", "--format has no {link_status};"],
  ["{rel} {nlinks}", "--format has no {nlinks} (did you mean {nlink}?);"],
  ["{Rel}", "--format has no {Rel} (did you mean {rel}?);"],
])("%p is a usage error", (format, message) => {
  const r = rglob(["find", "--base", dir, "--format", format]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).toContain(message);
  expect(r.stderr).toContain("its words are {path} {rel}");
  expect(r.stderr).not.toContain("    at ");
});

test("every word it names prints, and so do fd's placeholders and literal braces around no word", () => {
  const words = rglob(["find", "--base", dir, "--format", "{rel}"]);
  expect(words.code).toBe(0);
  const named = /its words are (.*) and fd's/.exec(
    rglob(["find", "--base", dir, "--format", "{x_y}"]).stderr,
  )?.[1];
  expect(named?.split(" ").length).toBeGreaterThan(15);
  const r = rglob(["find", "--base", dir, "-t", "l", "--format", `${named} | {} {/} {//} {.} {/.} { } {}x`]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("| ");
  expect(r.stdout).not.toContain("{rel}");
  expect(r.stdout).toContain("{ }");
});
