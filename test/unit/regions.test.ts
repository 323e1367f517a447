// The region lexers (src/engine/regions, #38), one table row per construct of each language family: every
// unit of each quoted piece must lie in the region named. (JavaScript/TypeScript and Python are also compared
// unit by unit with their own tokenizers in test/diff/regions.test.ts.)
import { describe, expect, test } from "bun:test";
import { LANGUAGE_NAMES, languageOf } from "../../src/engine/languages.ts";
import { LEXED_LANGUAGES, regionLexer } from "../../src/engine/regions/regions.ts";

type R = "code" | "comment" | "string";
const CODE_OF: Record<R, number> = { code: 0, comment: 1, string: 2 };

/** [file name, text, pieces of the text with the region each must lie in]. */
const CASES: Array<[string, string, Array<[string, R]>]> = [
  [
    "a.c",
    'int a = 1; // c "x"\nchar *s = "a // b"; /* z\n */ char c = \'"\';\n',
    [
      ['// c "x"', "comment"],
      ['"a // b"', "string"],
      ["/* z\n */", "comment"],
      ["'\"'", "string"],
      ["char c", "code"],
    ],
  ],
  [
    "a.cpp",
    'auto s = R"x(a " // )" b)x"; int y; // e\n',
    [
      ['R"x(a " // )" b)x"', "string"],
      ["int y;", "code"],
      ["// e", "comment"],
    ],
  ],
  [
    "a.rs",
    "/* a /* nested */ still */ fn f<'a>(x: &'a str) -> char { let r = r##\"q \"# \"##; 'x' }\n",
    [
      ["/* a /* nested */ still */", "comment"],
      ["<'a>(x: &'a str)", "code"],
      ['r##"q "# "##', "string"],
      ["'x'", "string"],
    ],
  ],
  [
    "a.go",
    "var s = `raw // not\nstill` // yes\n",
    [
      ["`raw // not\nstill`", "string"],
      ["// yes", "comment"],
    ],
  ],
  [
    "A.java",
    'String s = """\n  // in a text block\n  """; // c\n',
    [
      ['"""\n  // in a text block\n  """', "string"],
      ["// c", "comment"],
    ],
  ],
  [
    "a.kt",
    '/* a /* b */ c */ val s = """raw \\"""\n',
    [
      ["/* a /* b */ c */", "comment"],
      ['"""raw \\"""', "string"],
    ],
  ],
  [
    "a.cs",
    'var p = @"C:\\dir\\""x"; // c\n',
    [
      ['@"C:\\dir\\""x"', "string"],
      ["// c", "comment"],
    ],
  ],
  [
    "a.swift",
    'let s = #"a "quoted" b"# // c\n',
    [
      ['#"a "quoted" b"#', "string"],
      ["// c", "comment"],
    ],
  ],
  [
    "a.rb",
    "x = 'it' # c\n=begin\nblock\n=end\ny = \"#{z}\"\n",
    [
      ["# c", "comment"],
      ["=begin\nblock\n=end", "comment"],
      // An interpolation's expression is code, its delimiters string (#37).
      ['"#{', "string"],
      ["z", "code"],
      ['}"', "string"],
    ],
  ],
  [
    "a.php",
    "<?php\n#[Attr]\n# c\n$s = 'a # b'; // d\n",
    [
      ["#[Attr]", "code"],
      ["# c", "comment"],
      ["'a # b'", "string"],
      ["// d", "comment"],
    ],
  ],
  [
    "a.sh",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text as test data
    'echo ${#arr} a#b "x # y" # c\n',
    [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text as test data
      ["${#arr} a#b", "code"],
      ['"x # y"', "string"],
      ["# c", "comment"],
    ],
  ],
  [
    "a.css",
    'a { content: "/* no */"; } /* yes */\n',
    [
      ['"/* no */"', "string"],
      ["/* yes */", "comment"],
    ],
  ],
  ["a.html", '<p title="<!-- no? -->">x</p><!-- yes -->\n', [["<!-- yes -->", "comment"]]],
  [
    "a.yml",
    "key: it's # c\nq: 'a # b'\nurl: http://x#frag\n",
    [
      ["it's", "code"],
      ["# c", "comment"],
      ["'a # b'", "string"],
      ["http://x#frag", "code"],
    ],
  ],
  [
    "a.toml",
    "a = '''\n# not\n''' # c\nb = \"x\"\n",
    [
      ["'''\n# not\n'''", "string"],
      ["# c", "comment"],
      ['"x"', "string"],
    ],
  ],
  [
    "a.sql",
    "SELECT 'it''s -- no' AS \"col\" -- yes\n/* b */\n",
    [
      ["'it''s -- no'", "string"],
      ['"col"', "code"],
      ["-- yes", "comment"],
      ["/* b */", "comment"],
    ],
  ],
  [
    "a.lua",
    "--[==[ long\n]==] x = [[s -- no]] -- c\n",
    [
      ["--[==[ long\n]==]", "comment"],
      ["[[s -- no]]", "string"],
      ["-- c", "comment"],
    ],
  ],
  [
    "a.hs",
    "x' = a --> b -- c\n{- a {- b -} c -}\n",
    [
      ["x' = a --> b", "code"],
      ["-- c", "comment"],
      ["{- a {- b -} c -}", "comment"],
    ],
  ],
  [
    "a.py",
    "s = rb'\\d' + f\"{x} # in\"  # c\nd = '''\n# doc\n'''\n",
    [
      ["rb'\\d'", "string"],
      ['f"{', "string"],
      ["x", "code"],
      ['} # in"', "string"],
      ["# c", "comment"],
      ["'''\n# doc\n'''", "string"],
    ],
  ],
  [
    "a.zig",
    "const s =\n    \\\\ raw // line\n; // c\n",
    [
      ["\\\\ raw // line", "string"],
      ["// c", "comment"],
    ],
  ],
  [
    "a.jl",
    '#= a #= b =# c =# x = "s" # d\n',
    [
      ["#= a #= b =# c =#", "comment"],
      ['"s"', "string"],
      ["# d", "comment"],
    ],
  ],
  [
    "a.erl",
    'X = $", Y = "s". % c\n',
    [
      ['$"', "code"],
      ['"s"', "string"],
      ["% c", "comment"],
    ],
  ],
  [
    "a.tex",
    "50\\% done % c\n",
    [
      ["50\\% done", "code"],
      ["% c", "comment"],
    ],
  ],
  [
    "a.clj",
    '(str \\; "a") ; c\n',
    [
      ["\\;", "code"],
      ['"a"', "string"],
      ["; c", "comment"],
    ],
  ],
  [
    "a.lisp",
    "(list #\\; #| a |#) ; c\n",
    [
      ["#\\;", "code"],
      ["#| a |#", "comment"],
      ["; c", "comment"],
    ],
  ],
  [
    "a.pl",
    "my $x = 1; # c\n=pod\ndoc\n=cut\n",
    [
      ["# c", "comment"],
      ["=pod\ndoc\n=cut", "comment"],
    ],
  ],
  [
    "Dockerfile",
    "# c\nRUN echo a#b\n",
    [
      ["# c", "comment"],
      ["RUN echo a#b", "code"],
    ],
  ],
  [
    "a.ini",
    "; c\nkey = a;b\n",
    [
      ["; c", "comment"],
      ["key = a;b", "code"],
    ],
  ],
  [
    "a.vim",
    '" c\nlet s = "x"\n',
    [
      ['" c', "comment"],
      ['let s = "x"', "code"],
    ],
  ],
  [
    "a.bat",
    "REM c\n:: d\necho rem x\n",
    [
      ["REM c", "comment"],
      [":: d", "comment"],
      ["echo rem x", "code"],
    ],
  ],
  [
    "a.ml",
    "let f (x : 'a) = 'c' (* a (* b *) *)\n",
    [
      ["(x : 'a)", "code"],
      ["'c'", "string"],
      ["(* a (* b *) *)", "comment"],
    ],
  ],
  [
    "a.adb",
    "X'First := 'a'; -- c\n",
    [
      ["X'First", "code"],
      ["'a'", "string"],
      ["-- c", "comment"],
    ],
  ],
  [
    "a.nim",
    "#[ a #[ b ]# ]# let c = 'x'\n",
    [
      ["#[ a #[ b ]# ]#", "comment"],
      ["'x'", "string"],
    ],
  ],
  [
    "a.nix",
    "{ s = ''\n  # not\n''; } # c\n",
    [
      ["''\n  # not\n''", "string"],
      ["# c", "comment"],
    ],
  ],
  [
    "a.tf",
    'a = "x" # c\n// d\n/* e */\n',
    [
      ['"x"', "string"],
      ["# c", "comment"],
      ["// d", "comment"],
      ["/* e */", "comment"],
    ],
  ],
  [
    "a.json",
    '{"a": "// no"} // yes\n',
    [
      ['"// no"', "string"],
      ["// yes", "comment"],
    ],
  ],
  [
    "a.md",
    "text <!-- c --> more\n",
    [
      ["<!-- c -->", "comment"],
      ["more", "code"],
    ],
  ],
  [
    "a.ps1",
    "<# block #> $s = 'it''s' # c\n",
    [
      ["<# block #>", "comment"],
      ["'it''s'", "string"],
      ["# c", "comment"],
    ],
  ],
];

describe("region lexers", () => {
  test.each(CASES)("%s", (name, text, pieces) => {
    const lex = regionLexer(languageOf(name)?.name ?? null, name);
    expect(lex).not.toBeNull();
    const map = (lex as (t: string) => Uint8Array)(text);
    for (const [piece, region] of pieces) {
      const at = text.indexOf(piece);
      expect(at).toBeGreaterThanOrEqual(0);
      const got = [...map.subarray(at, at + piece.length)].map((r) => ["code", "comment", "string"][r]);
      // Blanks inside a piece of code may be anything but comment or string: the whole piece is checked.
      expect({ piece, regions: [...new Set(got)] }).toEqual({ piece, regions: [region] });
    }
  });

  test("every language of count's table has a lexer, or has no comments and strings at all", () => {
    const without = LANGUAGE_NAMES.filter((n) => !LEXED_LANGUAGES.includes(n));
    expect(without).toEqual(["reStructuredText", "Plain Text", "CSV"]);
    expect(regionLexer(null, "a.zzz")).toBeNull();
    expect(regionLexer("Plain Text", "a.txt")).toBeNull();
  });

  test("an empty text and a text of one unterminated literal", () => {
    expect([...(regionLexer("TypeScript", "a.ts") as (t: string) => Uint8Array)("")]).toEqual([]);
    const m = (regionLexer("Python", "a.py") as (t: string) => Uint8Array)("x = '''never closed\n# in");
    expect(m.at(-1)).toBe(CODE_OF.string);
  });
});
