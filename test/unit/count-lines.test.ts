// The line counter of count (engine/lines.ts): lines on raw bytes, blank lines, and comment-aware code lines
// per language, including block comments that span lines and markers inside string literals.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { languageOf } from "../../src/engine/languages.ts";
import { LineCounter } from "../../src/engine/lines.ts";
import { tempTree } from "../helpers.ts";

const tree = tempTree({});
afterAll(() => tree.cleanup());
const counter = new LineCounter({ binaryProbe: 8192, width: "bytes", confine: null });

function countOf(name: string, content: string | Uint8Array) {
  const abs = join(tree.dir, name);
  writeFileSync(abs, content);
  const out = counter.count(abs, languageOf(name));
  if (out.kind !== "counted") throw new Error(`not counted: ${out.kind}`);
  const { lines, nonBlank, code } = out.counts;
  return [lines, nonBlank, code];
}

describe("LineCounter", () => {
  test.each([
    // name, content, [lines, non-blank, code]
    ["empty.txt", "", [0, 0, 0]],
    ["one.txt", "a\n", [1, 1, 1]],
    ["no-final-newline.txt", "a\nb", [2, 2, 2]],
    ["blank.txt", "\n  \n\t\r\n", [3, 0, 0]],
    ["crlf.c", "int a;\r\n// c\r\n\r\n", [3, 2, 1]],
    ["a.py", "# c\nx = 1  # trailing\n\n  # indented\n", [4, 3, 1]],
    ["a.sh", "#!/bin/sh\necho hi\n", [2, 2, 1]],
    ["a.ts", "// c\nconst a = 1; // t\n/* b\n still\n*/\nlet b;\n", [6, 6, 2]],
    ["b.ts", "x(); /* opens\n inside\n */ y();\n", [3, 3, 2]],
    ["c.ts", "/* one */ /* two */\n/* a */ code();\n", [2, 2, 1]],
    ["d.ts", 'const g = "/*";\nnext();\n', [2, 2, 2]],
    ["e.ts", "a(); // see /* here\nb();\n", [2, 2, 2]],
    ["f.ts", "/*\n\n*/\n", [3, 2, 0]],
    ["a.sql", "-- c\nSELECT 1; -- t\n/* b */\n", [3, 3, 1]],
    ["a.lua", "--[[ block\nstill ]]\nprint(1)\n-- line\n", [4, 4, 1]],
    // Lua's long brackets have levels: --[==[ ends at ]==] only.
    ["b.lua", "--[==[\nx ]] still\n]==]\nprint(1)\n--[[ a ]] print(2)\n", [5, 5, 2]],
    // Haskell, Rust, Swift, Scala, Kotlin, OCaml and Dart comments nest; C's do not.
    ["n.hs", "{- a\n{- b -}\nstill -}\nmain = 1\n", [4, 4, 1]],
    ["n.rs", "/* outer /* inner */\nstill comment\n*/\nfn main() {}\n/* a */ let x = 1;\n", [5, 5, 2]],
    ["m.rs", "/* a */ /* b /* c */ d */ x();\n/*/ still */\ny();\n", [3, 3, 2]],
    ["n.c", "/* outer /* inner */\nnot a comment in C\n*/\nint main;\n", [4, 4, 3]],
    ["a.hs", "{- a\n b -}\nmain = x -- c\n", [3, 3, 1]],
    ["a.html", "<!-- c\n -->\n<p>x</p>\n", [3, 3, 1]],
    ["a.lisp", "; c\n(a)\n", [2, 2, 1]],
    ["a.ini", "; c\n# d\nk=v\n", [3, 3, 1]],
    ["a.css", "/* c */\na { }\n", [2, 2, 1]],
    ["Makefile", "# c\nall:\n", [2, 2, 1]],
    ["unknown.zzz", "// not known\nx\n\n", [3, 2, 2]],
    ["bom.ts", "\ufeff// c\nx;\n", [2, 2, 1]],
  ])("%s", (name, content, expected) => {
    expect(countOf(name, content)).toEqual(expected);
  });

  test("a line longer than the read buffer is one line", () => {
    const long = `${"x".repeat(600_000)}\n${"y".repeat(300_000)}`;
    expect(countOf("long.txt", long)).toEqual([2, 2, 2]);
  });

  test("a file larger than the buffer is counted across chunks", () => {
    const body = "code();\n// c\n\n".repeat(100_000);
    expect(countOf("big.js", body)).toEqual([300_000, 200_000, 100_000]);
  });

  test("a file of exactly the buffer size, ending with or without a newline", () => {
    const size = 256 * 1024;
    expect(countOf("exact1.txt", `${"a".repeat(size - 1)}\n`)).toEqual([1, 1, 1]);
    expect(countOf("exact2.txt", `${"a\n".repeat(size / 2 - 1)}ab`)).toEqual([size / 2, size / 2, size / 2]);
  });

  test("a NUL byte in the first 8 KiB makes a file binary; later it does not", () => {
    const abs = join(tree.dir, "bin.dat");
    writeFileSync(abs, Buffer.from([0x61, 0x00, 0x0a]));
    expect(counter.count(abs, null).kind).toBe("binary");
    writeFileSync(abs, Buffer.concat([Buffer.alloc(9000, 0x61), Buffer.from([0, 10])]));
    expect(counter.count(abs, null).kind).toBe("counted");
  });

  test("UTF-16 with a byte order mark is text, counted by 16-bit units", () => {
    const text = "// c\nx = 1;\n\n";
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    expect(countOf("w.ts", le)).toEqual([3, 2, 1]);
  });

  test("in UTF-16 a NUL unit (not a NUL byte) makes a file binary", () => {
    const abs = join(tree.dir, "w16.bin");
    writeFileSync(abs, Buffer.from([0xff, 0xfe, 0x61, 0x00, 0x00, 0x00, 0x0a, 0x00]));
    expect(counter.count(abs, null).kind).toBe("binary");
  });

  test("a missing file is an error outcome, not a throw", () => {
    const out = counter.count(join(tree.dir, "nope"), null);
    expect(out.kind).toBe("error");
  });
});
