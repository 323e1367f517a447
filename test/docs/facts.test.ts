// Facts the prose docs repeat from the contract stay true: every error code and truncation reason is named where
// the docs list them, and the versions they quote are the current ones. When the contract grows (a new code is a
// minor version bump), these fail until the docs say so too.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { ERROR_CODES } from "../../src/contract/errors.ts";
import { TRUNCATED_REASONS } from "../../src/contract/result.ts";
import { AGENT_API_VERSION, SCHEMA_VERSION } from "../../src/contract/versions.ts";
import { ROOT } from "../helpers.ts";

const read = (rel: string) => readFileSync(join(ROOT, rel), "utf8");

describe("docs quote the contract", () => {
  test.each(["AGENTS.md", "docs/agents/stability.md", "docs/decisions/0001-agent-api-contract.md"])(
    "%s names every error code",
    (rel) => {
      const text = read(rel);
      expect(ERROR_CODES.filter((c) => !new RegExp(`\\b${c}\\b`).test(text))).toEqual([]);
    },
  );

  test("the TypeScript guide names every package `npm install rglob` adds beside it", () => {
    const sentence = /`npm install rglob` installs only ([^.]*?) beside it/.exec(
      read("docs/agents/typescript-api.md"),
    );
    expect(sentence).not.toBeNull();
    const named = [...(sentence?.[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort();
    expect(named).toEqual(Object.keys(pkg.dependencies).sort());
  });

  test("ADR 0001 names every truncation reason", () => {
    const text = read("docs/decisions/0001-agent-api-contract.md");
    expect(TRUNCATED_REASONS.filter((r) => !text.includes(`\`${r}\``))).toEqual([]);
  });

  test("the versions quoted are the current ones", () => {
    expect(read("docs/agents/stability.md")).toContain(
      `\`agent_api_version\` (now \`${AGENT_API_VERSION}\`)`,
    );
    expect(read("docs/agents/stability.md")).toContain(`\`schema_version\` (now \`${SCHEMA_VERSION}\`)`);
    expect(read("AGENTS.md")).toContain(`(\`rglob agent-version\`, now ${AGENT_API_VERSION})`);
    expect(read("AGENTS.md")).toContain(`urn:rglob:schema:${SCHEMA_VERSION}:<stem>`);
  });
});
