/*! grep's regions field (#37): with `in` naming several regions, each match line says which its matches are in,
 * the same in the CLI's human output and the MCP text. */
import type { Submatch } from "./schema.ts";

/**
 * The regions field of a match line when `in` names several regions (#37): `[comment]:` or `[code,string]:`, the
 * regions its matches start in, in their order, each once; empty when the submatches carry none. It comes after the
 * line number (and column) and before the text, as one more `:`-separated field.
 */
export function regionTag(r: { readonly submatches: readonly Submatch[] }): string {
  let names = "";
  for (const m of r.submatches) {
    if (m.region === undefined) continue;
    if (!`,${names},`.includes(`,${m.region},`)) names += names === "" ? m.region : `,${m.region}`;
  }
  return names === "" ? "" : `[${names}]:`;
}
