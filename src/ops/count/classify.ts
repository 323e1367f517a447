/*! count's per-line view (#37): each line of a file with the class count gave it (code, comment, docstring, blank),
 * and why for the kinds people check by hand: a shebang, a docstring, a line that is only a string (not a
 * docstring: code), a line with code and a comment, a blank line inside a block comment. Lines are classed as
 * engine/lines.ts classes them on a lexed file (every non-blank unit in a comment: comment; in a docstring or a
 * comment, one at least in a docstring: docstring; any other non-blank unit: code), with the same region lexer, so
 * the view and the counts agree (test/surface/count-classify.test.ts checks it on real files). */
import { basename } from "node:path";
import type { Language } from "../../engine/languages.ts";
import { COMMENT, DOCSTRING, regionLexer, STRING } from "../../engine/regions/regions.ts";

/** A line whose class people check by hand, with why it has that class. */
interface LineNote {
  readonly line: number;
  readonly class: "code" | "comment" | "blank";
  readonly why: string;
  readonly text: string;
}

/** What the view gives for a file: one letter per line, and the notes on the lines worth a second look. */
interface LineClasses {
  /** One letter per line: c code, # comment, d docstring, . blank. */
  readonly classes: string;
  readonly notes: LineNote[];
}

/** White space as engine/lines.ts counts it: space, tab, CR, VT, FF. */
const space = (c: number) => c === 32 || c === 9 || c === 13 || c === 11 || c === 12;

/** The longest line text a note carries. */
const TEXT_MAX = 200;

/**
 * Classes each line of a text, as count does.
 * @param text the file's text (decoded)
 * @param lang its language, or null (then every non-blank line is code)
 * @param path its path (the lexer can depend on the name)
 * @param notesMax the most notes kept (the classes string always covers every line)
 * @param docsAsCode docstring lines are counted as code (docstrings=code), not as comment
 * @returns the classes and the notes
 */
export function classifyLines(
  text: string,
  lang: Language | null,
  path: string,
  notesMax: number,
  docsAsCode = false,
): LineClasses {
  const lexer = lang === null ? null : regionLexer(lang.name, basename(path));
  const regions = lexer === null ? null : lexer(text);
  const classes: string[] = [];
  const notes: LineNote[] = [];
  const note = (n: LineNote) => {
    if (notes.length < notesMax) notes.push(n);
  };
  const end = text.length;
  let n = 0;
  for (let i = 0; i < end; ) {
    let e = text.indexOf("\n", i);
    if (e < 0) e = end;
    n++;
    let hasCode = false;
    let hasComment = false;
    let hasDoc = false;
    let onlyString = true;
    let filled = false;
    for (let k = i; k < e; k++) {
      if (space(text.charCodeAt(k))) continue;
      filled = true;
      const r = regions === null ? 0 : regions[k];
      if (r === COMMENT) hasComment = true;
      else if (r === DOCSTRING) hasDoc = true;
      else {
        hasCode = true;
        if (r !== STRING) onlyString = false;
      }
    }
    const shown = text.slice(i, Math.min(e, i + TEXT_MAX)).replace(/\r$/, "");
    if (!filled) {
      classes.push(".");
      let inside = regions !== null && e < end && regions[e] === COMMENT;
      for (let k = i; k < e && !inside; k++) inside = regions?.[k] === COMMENT;
      if (inside) note({ line: n, class: "blank", why: "blank inside a block comment", text: "" });
    } else if (!hasCode && hasDoc) {
      classes.push("d");
      note({
        line: n,
        class: docsAsCode ? "code" : "comment",
        why: docsAsCode
          ? "docstring, counted as code (docstrings=code)"
          : "docstring; docstrings=code counts it as code",
        text: shown,
      });
    } else if (!hasCode) {
      classes.push("#");
      if (n === 1 && text.startsWith("#!"))
        note({
          line: n,
          class: "comment",
          why: "shebang, a comment where comments start with #",
          text: shown,
        });
      else note({ line: n, class: "comment", why: "comment only", text: shown });
    } else {
      classes.push("c");
      if (n === 1 && text.startsWith("#!"))
        note({
          line: n,
          class: "code",
          why: "shebang, code where comments do not start with #",
          text: shown,
        });
      else if (hasComment) note({ line: n, class: "code", why: "code and a comment", text: shown });
      else if (onlyString && regions !== null)
        note({
          line: n,
          class: "code",
          why: "only a string, not a docstring: text inside a string",
          text: shown,
        });
    }
    if (e >= end) break;
    i = e + 1;
  }
  return { classes: classes.join(""), notes };
}
