/*! Filter: permission bits, as find -perm, in octal or symbolic: '644' or 'u=rw,go=r' exactly these bits, '-111'
 * or '-u+x' all of these bits, '/222' or '/u+w,g+w' any of these bits; a leading '!' negates, as find's
 * `! -perm` ('!/111': no execute bit at all). A symbolic mode is clauses of who (u g o a, none = a), an operator
 * (+ adds, = sets, - removes, applied in order to no bits) and perms (r w x). One departure from find: a
 * symbolic mode with no prefix that only adds ('u+x') means "these bits are set" (as '-u+x'), since find's
 * exact reading (mode 0100 and nothing else) is never what it is written for; '=' spells an exact one. */
import { RglobError } from "../../contract/errors.ts";

/** The forms a mode takes, for the error messages. */
const FORMS =
  "octal ('644' exactly, '-111' all bits, '/222' any bit, '!/111' none of them) or symbolic ('u=rw,go=r' exactly, 'u+x' or '-u+x' all of, '/u+x,g+x' any of, '!u+x' no execute bit for the owner)";

/** The bits of each who letter (read, write and execute of the owner, the group, the others). */
const WHO: Record<string, number> = { u: 0o700, g: 0o070, o: 0o007, a: 0o777 };
/** The bits of each perm letter, for every who at once. */
const PERMS: Record<string, number> = { r: 0o444, w: 0o222, x: 0o111 };

/**
 * Reads a symbolic mode: clauses applied in order to no bits, as chmod would to a mode of 000.
 * @param text the mode, without its prefix
 * @param value the whole value, for the error message
 * @returns the bits, and whether only '+' was used (no '=' or '-')
 * @throws RglobError BAD_PREDICATE naming the clause that is wrong
 */
function symbolic(text: string, value: string): { bits: number; addsOnly: boolean } {
  let bits = 0;
  let addsOnly = true;
  for (const clause of text.split(",")) {
    const m = /^([ugoa]*)([-+=])([rwx]*)$/.exec(clause);
    if (!m) {
      const why =
        clause === ""
          ? "an empty clause"
          : /[st]/.test(clause.replace(/^[ugoa]*[-+=]/, ""))
            ? `setuid, setgid and sticky bits are spelled in octal ('-4000', '/6000', '-1000')`
            : `'${clause}' is not WHO (u g o a) OP (+ - =) PERMS (r w x)`;
      throw new RglobError("BAD_PREDICATE", `perm: '${value}': ${why}; a mode is ${FORMS}`);
    }
    const who = [...(m[1] || "a")].reduce((acc, c) => acc | (WHO[c] as number), 0);
    const perms = [...(m[3] as string)].reduce((acc, c) => acc | (PERMS[c] as number), 0) & who;
    if (m[2] === "+") bits |= perms;
    else if (m[2] === "-") {
      bits &= ~perms;
      addsOnly = false;
    } else {
      bits = (bits & ~who) | perms;
      addsOnly = false;
    }
  }
  return { bits, addsOnly };
}

/**
 * Compiles a permission test.
 * @param value the perm text
 * @returns a test of a file mode
 * @throws RglobError BAD_PREDICATE for a bad value
 */
export function compilePerm(value: string): (mode: number) => boolean {
  const m = /^(!?)([-/]?)(.*)$/s.exec(value.trim()) as RegExpExecArray;
  const body = m[3] as string;
  let bits: number;
  let how = m[2] as "" | "-" | "/";
  if (/^[0-7]{1,4}$/.test(body)) bits = Number.parseInt(body, 8);
  else if (/^[ugoa]*[-+=]/.test(body)) {
    const s = symbolic(body, value);
    bits = s.bits;
    if (how === "" && s.addsOnly) how = "-";
  } else {
    const why =
      body === ""
        ? "has no mode"
        : /^[0-7]*[89]|^[0-7]{5,}$/.test(body)
          ? "is not an octal mode (digits 0 to 7, at most four)"
          : "is neither an octal nor a symbolic mode";
    throw new RglobError("BAD_PREDICATE", `perm: '${value}' ${why}; a mode is ${FORMS}`);
  }
  let test: (mode: number) => boolean;
  if (how === "-") test = (mode) => (mode & bits) === bits;
  else if (how === "/") test = (mode) => bits === 0 || (mode & bits) !== 0;
  else test = (mode) => (mode & 0o7777) === bits;
  return m[1] === "!" ? (mode) => !test(mode) : test;
}

/**
 * The modes of a perm option: one, several (AND'd, as GNU find's repeated -perm tests), or none.
 * @param perm the option's value
 * @returns the modes, in the order given
 */
export function permList(perm: string | readonly string[] | undefined): readonly string[] {
  if (perm === undefined) return [];
  return typeof perm === "string" ? [perm] : perm;
}
