// grep's JSONL stream gives context as {"kind":"context"} lines, each once and merged as grep does, while the
// JSON result keeps context inside LineMatch.before/after (issue #4).
import { afterAll, expect, test } from "bun:test";
import { jsonl, rglob, rglobJson, tempTree } from "../helpers.ts";

const lines = Array.from({ length: 12 }, (_, i) =>
  i + 1 === 4 || i + 1 === 6 || i + 1 === 11 ? `hit ${i + 1}` : `line ${i + 1}`,
);
const tree = tempTree({ "a.txt": `${lines.join("\n")}\n` });
afterAll(() => tree.cleanup());

test("JSONL context lines: every line once, in order, merged groups, matches without before/after", () => {
  const out = jsonl(rglob(["grep", "hit", "-C", "2", "--jsonl"], { cwd: tree.dir }).stdout);
  const body = out.filter((l) => l.kind === "match" || l.kind === "context");
  expect(body.map((l) => [l.kind, l.line_number])).toEqual([
    ["context", 2],
    ["context", 3],
    ["match", 4],
    ["context", 5],
    ["match", 6],
    ["context", 7],
    ["context", 8],
    ["context", 9],
    ["context", 10],
    ["match", 11],
    ["context", 12],
  ]);
  for (const l of body) expect(l.relative_path).toBe("a.txt");
  for (const m of body.filter((l) => l.kind === "match")) {
    expect(m.before).toEqual([]);
    expect(m.after).toEqual([]);
  }
  expect(out.at(-1)?.kind).toBe("summary");
  expect(out.at(-1)?.total_matches).toBe(3);
});

test("the same lines as grep -n -C 2 prints", () => {
  const ours = jsonl(rglob(["grep", "hit", "-C", "2", "--jsonl"], { cwd: tree.dir }).stdout)
    .filter((l) => l.kind === "match" || l.kind === "context")
    .map((l) => `${l.line_number}${l.kind === "match" ? ":" : "-"}${l.content}`);
  const theirs = Bun.spawnSync(["grep", "-n", "-C", "2", "hit", "a.txt"], { cwd: tree.dir })
    .stdout.toString()
    .split("\n")
    .filter((l) => l && l !== "--");
  expect(ours).toEqual(theirs);
});

test("JSON keeps context inside the LineMatch records", () => {
  const { json } = rglobJson<{
    results: Array<{ line_number: number; before: unknown[]; after: unknown[] }>;
  }>(["grep", "hit", "-C", "1", "--json"], { cwd: tree.dir });
  const first = json.results[0];
  expect(first?.line_number).toBe(4);
  expect(first?.before).toEqual([{ line_number: 3, content: "line 3", clipped: false }]);
  expect(first?.after.length).toBeGreaterThan(0);
});

// Regression: a match without context lines of its own (at a file's first line, followed by another match) kept
// the previous file's last line number, so the next file's context lines up to it were dropped from JSONL.
test("JSONL context across files: every context line grep -C prints, none dropped", () => {
  const head = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
  const t = tempTree({
    "a.txt": `${head}\nhit\nx\n`,
    "b.txt": "hit\nhit\nctx3\nctx4\n",
    "c.txt": "one\nhit\n",
  });
  try {
    const ours = jsonl(rglob(["grep", "-C", "1", "hit", "--jsonl"], { cwd: t.dir }).stdout)
      .filter((l) => l.kind === "context" || l.kind === "match")
      .map((l) => `${l.relative_path}${l.kind === "match" ? ":" : "-"}${l.line_number}`)
      .sort();
    const theirs = Bun.spawnSync(["grep", "-rn", "-C", "1", "hit", "."], { cwd: t.dir, stdout: "pipe" })
      .stdout.toString()
      .split("\n")
      .filter((l) => l !== "" && l !== "--")
      .map((l) => /^\.\/([a-z]+\.txt)([:-])(\d+)[:-]/.exec(l)?.slice(1, 4).join("") ?? l)
      .sort();
    expect(ours).toEqual(theirs);
    expect(ours).toContain("b.txt-3");
  } finally {
    t.cleanup();
  }
});
