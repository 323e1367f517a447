// The walk's FileMatch records serialise themselves for speed: their text must be exactly JSON.stringify's,
// in every sink (JSONL line, JSON document, the output-size bound), and the mtime formatter must equal
// Date#toISOString everywhere.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { FileMatchSchema } from "../../src/contract/records.ts";
import { dispatch } from "../../src/ops/dispatch.ts";
import { isoOf } from "../../src/ops/walk-records.ts";
import { JsonSink } from "../../src/sink/json.ts";
import { JsonlSink } from "../../src/sink/jsonl.ts";
import { CollectSink, recordJson, recordJsonAfter } from "../../src/sink/sink.ts";
import { tempTree } from "../helpers.ts";

describe("isoOf", () => {
  const fixed = [
    0, 1, 999, 1000, 59_999, 86_399_999, 86_400_000, 951_782_400_000, 951_868_800_000, 1_700_000_000_123.9,
    4_102_444_800_000, 253_402_300_799_999, 253_402_300_800_000, -1, -0.5, -86_400_001, -62_198_755_200_000,
  ];
  test.each(fixed.map((ms) => [ms]))("%p ms", (ms) => {
    expect(isoOf(ms)).toBe(new Date(ms).toISOString());
  });

  test("a deterministic sample of 200 000 instants from 1970 to 9999, fractions included", () => {
    let x = 12345;
    let bad: number | null = null;
    for (let i = 0; i < 200_000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const ms = (x / 2147483648) * 253_402_300_800_000 + (i % 7) / 7;
      if (isoOf(ms) !== new Date(ms).toISOString()) {
        bad = ms;
        break;
      }
    }
    expect(bad).toBeNull();
  });
});

describe("FileMatch serialisation", () => {
  const { dir, cleanup } = tempTree({
    "plain.txt": "hello",
    "empty.txt": "",
    'quote"name.txt': "x",
    "back\\slash.txt": "x",
    "tab\tname.txt": "x",
    "line\nbreak.txt": "x",
    "ctrl\u0001.txt": "x",
    "é-ü-中文.txt": "x",
    "emoji-😀.txt": "x",
    "u2028\u2028.txt": "x",
    "run.sh": "#!/bin/sh\n",
    "sub/deep/file.md": "x",
    "link-to-plain": { symlink: "plain.txt" },
    "dangling-link": { symlink: "nowhere" },
    "sub/empty-dir": null,
  });
  chmodSync(join(dir, "run.sh"), 0o755);
  utimesSync(join(dir, "plain.txt"), new Date(-5000), new Date(-5000)); // before the epoch: Date's path
  afterAll(cleanup);

  async function collect(raw: Record<string, unknown>): Promise<object[]> {
    const sink = new CollectSink();
    await dispatch("find", { base: dir, hidden: true, ...raw }, sink);
    return sink.results;
  }

  test("every record's own text equals JSON.stringify, also after a head", async () => {
    const records = await collect({});
    expect(records.length).toBeGreaterThan(10);
    for (const r of records) {
      expect(recordJson(r)).toBe(JSON.stringify(r));
      expect(recordJsonAfter(r, '{"kind":"file",')).toBe(`{"kind":"file",${JSON.stringify(r).slice(1)}`);
    }
    // Records look plain to the library: keys, spreading and equality see only the model's fields (a symlink's
    // record also its five link fields), in the model's order: with the text equal to JSON.stringify's above,
    // the hand-written serialiser is held to the schema (FileMatchSchema), its one source.
    const order = Object.keys(FileMatchSchema.pipe[0].entries);
    const optional = [
      "path_bytes",
      "link_target",
      "link_target_exists",
      "link_target_type",
      "link_escapes",
      "link_resolved",
      "encoding",
      "eol",
      "ignored_by",
      "entries_inside",
      "files_inside",
      "dirs_inside",
    ];
    const plain = order.filter((k) => !optional.includes(k));
    // mode, uid and gid (#37) are in every record whose stats could be read: every one here.
    expect(plain).toEqual([
      "path",
      "relative_path",
      "size",
      "mtime",
      "kinds",
      "mode",
      "uid",
      "gid",
      "entry_type",
    ]);
    const linked = order.filter(
      (k) =>
        k !== "path_bytes" && k !== "ignored_by" && k !== "encoding" && k !== "eol" && !k.endsWith("_inside"),
    );
    for (const r of records)
      expect(Object.keys(r)).toEqual((r as { entry_type: string }).entry_type === "symlink" ? linked : plain);
    expect({ ...(records[0] as object) }).toEqual(JSON.parse(JSON.stringify(records[0])));
    // saved_as (#37): each record's encoding, last, in its own text too (a followed link's after its link fields).
    for (const follow of [false, true]) {
      const encoded = await collect({ saved_as: ["utf-8", "binary"], follow_symlinks: follow });
      expect(encoded.length).toBeGreaterThan(5);
      for (const r of encoded) {
        expect(Object.keys(r).at(-1)).toBe("encoding");
        expect(recordJson(r)).toBe(JSON.stringify(r));
        expect(recordJsonAfter(r, '{"kind":"file",')).toBe(`{"kind":"file",${JSON.stringify(r).slice(1)}`);
      }
      // Line ends (ADR 0048): eol after encoding when both are asked, alone when only line ends are.
      for (const [saved, tail] of [
        [
          ["utf-8", "crlf,lf,mixed,none"],
          ["encoding", "eol"],
        ],
        [["lf,none"], ["entry_type", "eol"]],
      ] as const) {
        const both = await collect({ saved_as: [...saved], follow_symlinks: follow });
        expect(both.length).toBeGreaterThan(5);
        for (const r of both) {
          expect(Object.keys(r).slice(-2)).toEqual(
            (r as { entry_type: string }).entry_type === "symlink" && tail[0] === "entry_type"
              ? ["link_resolved", "eol"]
              : [...tail],
          );
          expect(recordJson(r)).toBe(JSON.stringify(r));
          expect(recordJsonAfter(r, '{"kind":"file",')).toBe(`{"kind":"file",${JSON.stringify(r).slice(1)}`);
        }
      }
    }
  });

  test("plain records and empty records keep JSON.stringify's text", () => {
    expect(recordJson({ a: 1, b: "x" })).toBe('{"a":1,"b":"x"}');
    expect(recordJsonAfter({ a: 1 }, '{"kind":"k",')).toBe('{"kind":"k","a":1}');
    expect(recordJsonAfter({}, '{"kind":"k",')).toBe('{"kind":"k"}');
  });

  test.each([
    ["JSONL", "jsonl"],
    ["JSON", "json"],
  ])("the %s sink writes what JSON.stringify of the collected records gives", async (_name, form) => {
    const records = JSON.parse(JSON.stringify(await collect({})));
    let text = "";
    const write = (t: string) => {
      text += t;
    };
    const summary = await dispatch(
      "find",
      { base: dir, hidden: true },
      form === "jsonl" ? new JsonlSink(write) : new JsonSink(write),
    );
    const plainSummary = JSON.parse(JSON.stringify(summary));
    if (form === "json") {
      expect(text).toBe(`${JSON.stringify({ results: records, ...plainSummary })}\n`);
    } else {
      const lines = text.trimEnd().split("\n");
      const want = [
        ...records.map((r: object) => JSON.stringify({ kind: "file", ...r })),
        JSON.stringify({ kind: "summary", ...plainSummary }),
      ];
      expect(lines).toEqual(want);
    }
  });

  test("max_output_bytes counts the same bytes as JSON.stringify", async () => {
    const all = JSON.parse(JSON.stringify(await collect({})));
    const firstTwo = all.slice(0, 2).map((r: object) => Buffer.byteLength(JSON.stringify(r)) + 1);
    const bound = firstTwo[0] + firstTwo[1];
    const sink = new CollectSink();
    const summary = await dispatch("find", { base: dir, hidden: true, max_output_bytes: bound }, sink);
    expect(sink.results.length).toBe(2);
    expect(summary.truncated_reason).toBe("max_output_bytes");
  });
});
