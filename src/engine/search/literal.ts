/*! Search: literal prefilter extraction. Finds strings that every match of a regex must contain, so a file
 * whose raw bytes hold none of them is skipped before any decoding. Conservative: when unsure it returns
 * null (no prefilter), never a literal that a match could lack. Pure; no I/O. */

const QUANT_OPTIONAL = new Set(["?", "*"]);
const META = new Set([".", "^", "$", "[", "(", ")", "|", "\\", "*", "+", "?", "{", "}"]);

/**
 * Splits a regex source on its top-level '|' (outside groups and classes).
 * @param src the regex source
 * @returns the alternatives
 */
function topLevelAlternatives(src: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      out.push(src.slice(start, i));
      start = i + 1;
    }
  }
  out.push(src.slice(start));
  return out;
}

function skipGroup(src: string, i: number): number {
  let depth = 0;
  let inClass = false;
  for (; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return src.length;
}

function skipClass(src: string, i: number): number {
  for (i++; i < src.length; i++) {
    if (src[i] === "\\") i++;
    else if (src[i] === "]") return i + 1;
  }
  return src.length;
}

/**
 * Returns the longest run of literal characters that every match of one alternative must contain.
 * @param alt a regex source without top-level '|'
 * @returns the literal, or "" when there is none
 */
function requiredRun(alt: string): string {
  let best = "";
  let run = "";
  const flush = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < alt.length; ) {
    const c = alt[i] as string;
    let atom: string | null = null;
    let next = i + 1;
    if (c === "\\") {
      const e = alt[i + 1];
      if (e === undefined) return "";
      // Escaped punctuation is a literal; letters and digits are classes, anchors or back-references.
      if (/[^A-Za-z0-9]/.test(e)) atom = e;
      next = i + 2;
      if (e === "u" || e === "x" || e === "p" || e === "P" || e === "c" || e === "k") {
        // \u{…}, \xNN, \p{…}: not worth decoding here; a literal run ends.
        atom = null;
        if (alt[next] === "{") next = alt.indexOf("}", next) + 1 || alt.length;
      }
    } else if (c === "[") {
      next = skipClass(alt, i);
    } else if (c === "(") {
      next = skipGroup(alt, i);
    } else if (!META.has(c)) {
      atom = c;
    }
    // What follows the atom decides whether it is required and whether the run may continue.
    const q = alt[next];
    if (q !== undefined && QUANT_OPTIONAL.has(q)) {
      flush();
      next++;
      if (alt[next] === "?") next++;
    } else if (q === "{") {
      const close = alt.indexOf("}", next);
      const body = close < 0 ? "" : alt.slice(next + 1, close);
      const min = Number(body.split(",")[0]);
      if (atom !== null && Number.isInteger(min) && min >= 1) run += atom;
      flush();
      next = close < 0 ? alt.length : close + 1;
      if (alt[next] === "?") next++;
    } else if (q === "+") {
      if (atom !== null) run += atom;
      flush();
      next++;
      if (alt[next] === "?") next++;
    } else if (atom !== null) {
      run += atom;
    } else {
      flush();
    }
    i = next;
  }
  flush();
  return best;
}

/**
 * Returns literals one of which every match of a regex contains (a prefilter), or null when none is known.
 * @param source the regex source (JavaScript syntax)
 * @returns the literals (any may occur), or null
 */
export function requiredLiterals(source: string): string[] | null {
  const alts = topLevelAlternatives(source);
  const out: string[] = [];
  for (const alt of alts) {
    const lit = requiredRun(alt);
    if (lit === "") return null;
    out.push(lit);
  }
  return out;
}
