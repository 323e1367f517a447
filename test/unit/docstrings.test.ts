// Docstrings (#37, docs/decisions/0042-docstrings.md): one table row per edge case, each naming pieces of the text
// and whether every unit of the piece lies in a docstring (D), a string that is not one (S), code (C) or a
// comment (#). Python, Julia and Elixir have docstrings; every other language of the table has none.
import { describe, expect, test } from "bun:test";
import { LANGUAGE_NAMES, languageOf } from "../../src/engine/languages.ts";
import { DOCSTRING_LANGUAGES, regionLexer } from "../../src/engine/regions/regions.ts";

type K = "C" | "#" | "S" | "D";
const CODE_OF: Record<K, number> = { C: 0, "#": 1, S: 2, D: 3 };

/** [what, file name, text, pieces with their region]. */
const CASES: Array<[string, string, string, Array<[string, K]>]> = [
  ["module docstring", "a.py", '"""Module doc."""\nimport os\n', [['"""Module doc."""', "D"]]],
  [
    "class and def docstrings",
    "a.py",
    'class A:\n    """Class doc."""\n    def f(self):\n        """Method doc."""\n        return 1\n',
    [
      ['"""Class doc."""', "D"],
      ['"""Method doc."""', "D"],
      ["return 1", "C"],
    ],
  ],
  [
    "multi-line docstring with nested and escaped quotes",
    "a.py",
    "def f():\n    '''Doc with \"quotes\", 'single' and \\''' escaped.\n\n    More.\n    '''\n    x = 1\n",
    [
      ["'''Doc with \"quotes\", 'single' and \\''' escaped.\n\n    More.\n    '''", "D"],
      ["x = 1", "C"],
    ],
  ],
  [
    "after a decorator and a comment",
    "a.py",
    '@decorator\ndef f():\n    # why\n    """Doc."""\n',
    [
      ["# why", "#"],
      ['"""Doc."""', "D"],
    ],
  ],
  [
    "one-line def with its docstring on the same line: code",
    "a.py",
    'def f(): """Doc."""\n',
    [['"""Doc."""', "S"]],
  ],
  [
    "single-quoted statement string and a trailing comment",
    "a.py",
    'def f():\n    "Doc."  # note\n',
    [
      ['"Doc."', "D"],
      ["# note", "#"],
    ],
  ],
  [
    "adjacent literals on one line are one statement; a string then `;` is not alone",
    "a.py",
    'def f():\n    "one" \'two\'  # c\n    "a"; x = 1\n',
    [
      ["\"one\" 'two'", "D"],
      ['"a"', "S"],
    ],
  ],
  ["assignment: code", "a.py", 'x = """not doc"""\n', [['"""not doc"""', "S"]]],
  [
    "an argument on a line of its own: code",
    "a.py",
    'f(\n    """arg"""\n)\nd = {\n    "k": 1,\n}\n',
    [
      ['"""arg"""', "S"],
      ['"k"', "S"],
    ],
  ],
  [
    "a statement that goes on after the string: code",
    "a.py",
    '"""a""" + x\n"".join(y)\n"a".strip()\n',
    [
      ['"""a"""', "S"],
      ['""', "S"],
      ['"a"', "S"],
    ],
  ],
  ["after a backslash continuation: code", "a.py", 'x = \\\n    """cont"""\n', [['"""cont"""', "S"]]],
  [
    "prefixes: r and u are docstrings, b and f are not",
    "a.py",
    "def f():\n    r'''raw'''\ndef g():\n    U\"u\"\ndef h():\n    b'''bytes'''\ndef i():\n    f\"\"\"fstr {x}\"\"\"\n",
    [
      ["r'''raw'''", "D"],
      ['U"u"', "D"],
      ["b'''bytes'''", "S"],
      ['f"""fstr {', "S"],
      // A replacement field is code (#37).
      ["x", "C"],
      ['}"""', "S"],
    ],
  ],
  ["return value: code", "a.py", 'def f():\n    return """x"""\n', [['"""x"""', "S"]]],
  [
    "unterminated: a docstring to the end of the file",
    "a.py",
    'x = 1\n"""never closed\nstill\n',
    [['"""never closed\nstill\n', "D"]],
  ],
  [
    "a # inside a docstring is not a comment",
    "a.pyi",
    '"""\n# not a comment\n"""\n',
    [['"""\n# not a comment\n"""', "D"]],
  ],
  [
    "Julia: before a definition, not as a value",
    "a.jl",
    '"""\nDoc of f.\n"""\nfunction f(x)\n    "value"\nend\n"doc of g"\ng(x) = 2x\n"not doc"\nx = 1\n',
    [
      ['"""\nDoc of f.\n"""', "D"],
      ['"value"', "S"],
      ['"doc of g"', "D"],
      ['"not doc"', "S"],
    ],
  ],
  [
    "Elixir: @moduledoc, @doc, @typedoc and a sigil; other strings and @doc false are not",
    "a.ex",
    'defmodule A do\n  @moduledoc """\n  Module doc.\n  """\n  @doc "Fn doc."\n  def f, do: "str"\n  @doc false\n  @typedoc ~S"""\n  t\n  """\nend\n',
    [
      ['@moduledoc """\n  Module doc.\n  """', "D"],
      ['@doc "Fn doc."', "D"],
      ['"str"', "S"],
      ["@doc false", "C"],
      ['@typedoc ~S"""\n  t\n  """', "D"],
    ],
  ],
  [
    "a string statement in another language is a string",
    "a.rb",
    '"not a docstring"\ndef f\nend\n',
    [['"not a docstring"', "S"]],
  ],
];

describe("docstrings: the lexers' edge cases", () => {
  for (const [what, name, text, pieces] of CASES) {
    test(`${name}: ${what}`, () => {
      const lang = languageOf(name)?.name ?? null;
      const lex = regionLexer(lang, name);
      if (lex === null) throw new Error(`no lexer for ${name}`);
      const r = lex(text);
      for (const [piece, k] of pieces) {
        const at = text.indexOf(piece);
        expect(at).toBeGreaterThanOrEqual(0);
        const got = [...r.subarray(at, at + piece.length)].filter((_, i) => !/\s/.test(piece[i] as string));
        expect({ piece, regions: [...new Set(got)] }).toEqual({ piece, regions: [CODE_OF[k]] });
      }
    });
  }

  test("only Python, Julia and Elixir mark docstrings; every language is still lexed", () => {
    expect([...DOCSTRING_LANGUAGES].sort()).toEqual(["Elixir", "Julia", "Python"]);
    for (const l of DOCSTRING_LANGUAGES) expect(LANGUAGE_NAMES).toContain(l);
  });
});
