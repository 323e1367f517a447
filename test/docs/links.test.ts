// Relative links in the Markdown docs point at files that exist.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { ROOT } from "../helpers.ts";

function markdownFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return markdownFiles(rel);
    return e.name.endsWith(".md") ? [rel] : [];
  });
}

const FILES = ["README.md", "AGENTS.md", "CHANGELOG.md", ...markdownFiles("docs")];

/** Returns the relative link targets of a Markdown text (outside code blocks and code spans). */
function links(text: string): string[] {
  const prose = text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] as string)
    .filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith("#"))
    .map((href) => href.replace(/#.*$/, ""));
}

describe("Markdown links", () => {
  test("the docs link to one another (the extraction works)", () => {
    expect(FILES.flatMap((f) => links(readFileSync(join(ROOT, f), "utf8"))).length).toBeGreaterThan(20);
  });

  test("every relative link resolves", () => {
    const broken: string[] = [];
    for (const file of FILES) {
      for (const href of links(readFileSync(join(ROOT, file), "utf8"))) {
        const target = relative(ROOT, join(ROOT, dirname(file), href));
        if (existsSync(join(ROOT, target))) continue;
        broken.push(`${file} → ${href}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
