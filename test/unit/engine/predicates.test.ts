// Predicate parsers: every value form the issue lists, and a clear BAD_PREDICATE for bad values.
import { describe, expect, test } from "bun:test";
import { RglobError } from "../../../src/contract/errors.ts";
import { compilePerm } from "../../../src/engine/filter/perm.ts";
import { parseSize, sizeRange } from "../../../src/engine/filter/size.ts";
import { parseTimePoint } from "../../../src/engine/filter/time.ts";
import { anyGlob, compileGlob } from "../../../src/engine/glob.ts";

function code(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof RglobError ? err.code : "THREW";
  }
}

describe("sizes", () => {
  test.each([
    ["100", 100, null],
    [" 100 ", 100, null],
    ["1K", 1024, null],
    ["1k", 1024, null],
    ["1KiB", 1024, null],
    ["1kb", 1000, null],
    ["100 kb", 100_000, null],
    ["2.5M", 2.5 * 1024 ** 2, null],
    ["1MiB", 1024 ** 2, null],
    ["3mb", 3_000_000, null],
    ["1G", 1024 ** 3, null],
    ["1T", 1024 ** 4, null],
    // fd's signed form keeps fd's units (#22): a lone k, m… is 1000-based, ki, mi… 1024-based.
    ["+1M", 1000 ** 2, "+"],
    ["-10k", 10 * 1000, "-"],
    ["+3ki", 3 * 1024, "+"],
    ["-1mib", 1024 ** 2, "-"],
    ["+3KB", 3000, "+"],
    ["3ki", 3 * 1024, null],
    ["2gi", 2 * 1024 ** 3, null],
    [".5k", 512, null],
    ["10b", 10, null],
  ])("%p → %p bytes (sign %p)", (text, bytes, sign) => {
    expect(parseSize(text, "min_size")).toEqual({ bytes, sign: sign as "+" | "-" | null });
  });

  test.each(["", "k", "1x", "1 kilobyte", "--1", "1e3", "abc", "1.2.3", "99999999t", "+9999999999tib"])(
    "bad size %p",
    (text) => {
      expect(code(() => parseSize(text, "min_size"))).toBe("BAD_PREDICATE");
    },
  );

  test.each([
    [undefined, undefined, null],
    ["1k", undefined, [1024, Number.POSITIVE_INFINITY]],
    [undefined, "1k", [0, 1024]],
    ["+1k", "-2k", [1000, 2000]],
    [undefined, "+1k", [1000, Number.POSITIVE_INFINITY]],
    ["-1k", undefined, [0, 1000]],
    ["+1ki", "-2ki", [1024, 2048]],
  ])("range min=%p max=%p → %p", (min, max, want) => {
    expect(sizeRange(min, max)).toEqual(want as [number, number] | null);
  });
});

describe("times", () => {
  const now = Date.parse("2026-06-15T12:00:00Z");
  test.each([
    ["30s", now - 30_000],
    ["30m", now - 30 * 60_000],
    ["12h", now - 12 * 3_600_000],
    ["7d", now - 7 * 86_400_000],
    ["2w", now - 14 * 86_400_000],
    ["1d12h", now - 36 * 3_600_000],
    ["2026-01-31", Date.parse("2026-01-31T00:00:00Z")],
    ["2026-01-31T12:30", Date.parse("2026-01-31T12:30:00Z")],
    ["2026-01-31T12:30:05", Date.parse("2026-01-31T12:30:05Z")],
    ["2026-01-31 12:30:05", Date.parse("2026-01-31T12:30:05Z")],
    ["2026-01-31T12:30:05Z", Date.parse("2026-01-31T12:30:05Z")],
    ["2026-01-31T12:30:05+02:00", Date.parse("2026-01-31T10:30:05Z")],
    ["2026-01-31T12:30:05.250Z", Date.parse("2026-01-31T12:30:05.250Z")],
  ])("%p (naive = UTC)", (text, want) => {
    expect(parseTimePoint(text, "newer_than", now)).toBe(want);
  });

  test.each(["yesterday", "7 fortnights", "2026-13-01", "2026-02-30x", "", "5", "-3d"])(
    "bad time %p",
    (text) => {
      expect(code(() => parseTimePoint(text, "newer_than", now))).toBe("BAD_PREDICATE");
    },
  );

  test.each([
    ["2024-02-29", Date.parse("2024-02-29T00:00:00Z")],
    ["2000-02-29", Date.parse("2000-02-29T00:00:00Z")],
    ["2026-04-30", Date.parse("2026-04-30T00:00:00Z")],
    ["2026-12-31T23:59:59Z", Date.parse("2026-12-31T23:59:59Z")],
    ["2026-01-31T00:00-23:59", Date.parse("2026-01-31T23:59:00Z")],
  ])("the last day, hour, minute and second that exist: %p", (text, want) => {
    expect(parseTimePoint(text, "newer_than", now)).toBe(want);
  });

  // Date.parse rolls these over (2024-02-30 becomes March 1st, 24:00 the next day): each is refused.
  test.each([
    ["2024-02-30", "February 2024 has no day 30"],
    ["2023-02-29", "February 2023 has no day 29"],
    ["1900-02-29", "February 1900 has no day 29"],
    ["2026-04-31", "April 2026 has no day 31"],
    ["2026-06-31T12:00Z", "June 2026 has no day 31"],
    ["2026-01-00", "January 2026 has no day 00"],
    ["2026-00-10", "month 00"],
    ["2026-01-31T25:00", "hour 25"],
    ["2026-01-31T24:00", "hour 24"],
    ["2026-01-31T12:60", "minute 60"],
    ["2026-01-31T12:30:60Z", "second 60"],
    ["2026-01-31T12:00+24:00", "UTC offset +24:00"],
  ])("impossible %p is BAD_PREDICATE naming the value (%p)", (text, why) => {
    let err: unknown;
    try {
      parseTimePoint(text, "older_than", now);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RglobError);
    expect((err as RglobError).code).toBe("BAD_PREDICATE");
    expect((err as RglobError).message).toContain(`older_than: '${text}'`);
    expect((err as RglobError).message).toContain(why);
  });
});

describe("perm", () => {
  test.each([
    ["644", 0o100644, true],
    ["644", 0o100755, false],
    ["-111", 0o100755, true],
    ["-111", 0o100744, false],
    ["/222", 0o100200, true],
    ["/222", 0o100444, false],
    ["/0", 0o100000, true],
    ["4755", 0o104755, true],
  ])("%p on %o → %p", (spec, mode, want) => {
    expect(compilePerm(spec)(mode)).toBe(want);
  });
  test.each(["999", "rwx", "+644", "", "0o644", "12345"])("bad perm %p", (spec) => {
    expect(code(() => compilePerm(spec))).toBe("BAD_PREDICATE");
  });
});

describe("globs", () => {
  function m(glob: string, rel: string, cs = true): boolean {
    const g = compileGlob(glob, cs);
    return g.regex.test(g.matchesPath ? rel : (rel.split("/").pop() as string));
  }
  test.each([
    ["*.py", "src/main.py", true],
    ["*.py", "main.py", true],
    ["main.*", "src/main.py", true],
    ["src/*.py", "src/main.py", true],
    ["src/*.py", "src/utils/helper.py", false],
    ["src/**/*.py", "src/utils/helper.py", true],
    ["src/**/*.py", "src/main.py", true],
    ["**/*.py", "main.py", true],
    ["**/utils", "src/utils", true],
    ["/main.py", "main.py", true],
    ["/main.py", "src/main.py", false],
    ["*.{py,txt}", "a.txt", true],
    ["*.{py,{md,rst}}", "a.rst", true],
    ["*.{py,{md,rst}}", "a.c", false],
    ["[ab].c", "b.c", true],
    ["[!ab].c", "b.c", false],
    ["[^ab].c", "c.c", true],
    ["[a-c]x", "bx", true],
    ["\\*.c", "*.c", true],
    ["\\*.c", "a.c", false],
    ["?.c", "a.c", true],
    ["?.c", "ab.c", false],
    ["a*", "a/b", false],
    ["src/*", "src/a/b", false],
  ])("%p on %p → %p", (glob, rel, want) => {
    expect(m(glob, rel)).toBe(want);
  });

  test.each([
    ["*.PY", "a.py", true, false],
    ["*.PY", "a.py", false, true],
    ["Src/**", "src/a", false, true],
  ])("case: %p on %p (sensitive %p) → %p", (glob, rel, cs, want) => {
    expect(m(glob, rel, cs)).toBe(want);
  });

  test.each(["", "[abc", "a{b", "a\\", "a\0b"])("bad glob %p", (glob) => {
    expect(code(() => compileGlob(glob, true))).toBe("BAD_PREDICATE");
  });

  /** Whether the glob selects the entry at rel, a directory or not, as the walk tests it. */
  function sel(glob: string, rel: string, isDir: boolean): boolean {
    return anyGlob([compileGlob(glob, true)])(rel, rel.split("/").pop() as string, isDir);
  }

  // './' holds a '/': the glob is anchored at the base like a leading '/', not a basename glob.
  test.each([
    ["./a.txt", "a.txt", true],
    ["./a.txt", "sub/a.txt", false],
    ["./*.txt", "a.txt", true],
    ["./*.txt", "sub/b.txt", false],
    ["./sub/*.txt", "sub/b.txt", true],
    ["././a.txt", "sub/a.txt", false],
  ])("'./' anchors: %p on %p → %p", (glob, rel, want) => {
    expect(sel(glob, rel, false)).toBe(want);
    expect(compileGlob(glob, true).matchesPath).toBe(true);
  });

  // A trailing '/' selects directories only; the rest is classified as if the '/' were absent.
  test.each([
    ["f.md/", "f.md", false, false],
    ["f.md/", "f.md", true, true],
    ["build/", "build", true, true],
    ["build/", "a/b/build", true, true],
    ["build/", "a/build", false, false],
    ["*/", "a/b/c", true, true],
    ["*/", "a/b/c.txt", false, false],
    ["src/*/", "src/x", true, true],
    ["src/*/", "src/x", false, false],
    ["src/*/", "src/x/y", true, false],
    ["src/*/", "a/src/x", true, false],
    ["/build/", "a/build", true, false],
    ["./build/", "build", true, true],
    ["**/deep/", "a/deep", true, true],
  ])("trailing '/': %p on %p (directory %p) → %p", (glob, rel, isDir, want) => {
    expect(sel(glob, rel, isDir)).toBe(want);
  });

  test("a trailing '/' does not make a basename glob match the path", () => {
    const g = compileGlob("build/", true);
    expect(g.dirOnly).toBe(true);
    expect(g.matchesPath).toBe(false);
    expect(compileGlob("build", true).dirOnly).toBe(false);
  });

  // POSIX classes inside brackets, ASCII as in the C locale (GNU find -name '[[:alpha:]]' lists a and b).
  test.each([
    ["[[:alpha:]]", "a", true],
    ["[[:alpha:]]", "B", true],
    ["[[:alpha:]]", "1", false],
    ["[[:alpha:]]", ":]", false],
    ["[[:alpha:]]", "a]", false],
    ["[![:digit:]]", "a", true],
    ["[![:digit:]]", "7", false],
    ["[^[:digit:]]", "7", false],
    ["[[:digit:]_x]", "5", true],
    ["[[:digit:]_x]", "_", true],
    ["[[:digit:]_x]", "x", true],
    ["[[:digit:]_x]", "y", false],
    ["[[:alnum:]]", "Z", true],
    ["[[:alnum:]]", "-", false],
    ["[[:upper:]]", "Q", true],
    ["[[:upper:]]", "q", false],
    ["[[:lower:]]", "q", true],
    ["[[:space:]]x", " x", true],
    ["[[:blank:]]x", "\tx", true],
    ["[[:blank:]]x", "\nx", false],
    ["[[:punct:]]", "!", true],
    ["[[:punct:]]", "a", false],
    ["[[:xdigit:]][[:xdigit:]]", "fF", true],
    ["[[:xdigit:]]", "g", false],
    ["[[:cntrl:]]", "\u0001", true],
    ["[[:print:]]", " ", true],
    ["[[:graph:]]", " ", false],
    ["[[:graph:]]", "~", true],
    ["*[[:digit:]].log", "app2.log", true],
    ["[[:alpha]", "[", true], // not a class (no ':]'): a '[' and the letters, as wildmatch reads it
  ])("POSIX class: %p on %p → %p", (glob, name, want) => {
    expect(m(glob, name)).toBe(want);
  });

  test("an unknown POSIX class is BAD_PREDICATE naming the class", () => {
    expect(() => compileGlob("[[:foo:]]", true)).toThrow(
      "bad glob '[[:foo:]]': unknown character class '[:foo:]'",
    );
    expect(code(() => compileGlob("[![:Alpha:]]", true))).toBe("BAD_PREDICATE");
  });

  // The message names the glob once (it was "bad glob '{a,b': bad glob '{a,b': unclosed '{'").
  test.each([
    ["{a,b", "bad glob '{a,b': unclosed '{'"],
    ["x\\", "bad glob 'x\\': trailing backslash"],
    ["[ab", "bad glob '[ab': unclosed '['"],
    ["[z-a]", "bad glob '[z-a]': range 'z-a' is out of order"],
  ])("error message of %p", (glob, message) => {
    let got = "";
    try {
      compileGlob(glob, true);
    } catch (err) {
      got = err instanceof RglobError ? err.message : String(err);
    }
    expect(got).toBe(message);
  });
});
