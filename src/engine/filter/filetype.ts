/*! Filter: file types by language (rg's --type/--type-not/--type-add, spelled --lang, --type-not/-T and
 * --type-add here). A built-in type selects the files of one language of engine/languages.ts (its extensions and
 * file names), so a file type and count's language breakdown agree; --type-add adds globs to a type, or makes a
 * new one ('NAME:GLOB', or 'NAME:include:A,B' for the union of other types), as rg does. Directories are never
 * of a type: a type selects files, and every directory is still entered. */
import { RglobError } from "../../contract/errors.ts";
import { anyGlob, compileGlob, type GlobTest } from "../glob.ts";
import { fileTypes, languageOf } from "../languages.ts";

/** A type as the filter uses it: the languages it names and the globs added to it. */
interface TypeDef {
  readonly languages: Set<string>;
  readonly globs: string[];
}

/**
 * Builds the table of types with --type-add applied.
 * @param adds the 'NAME:GLOB' / 'NAME:include:A,B' definitions, in order
 * @returns the types by name (built-in names and aliases included)
 * @throws RglobError BAD_PREDICATE for a malformed definition
 */
function typeTable(adds: readonly string[]): Map<string, TypeDef> {
  const table = new Map<string, TypeDef>();
  for (const t of fileTypes()) {
    const def: TypeDef = { languages: new Set([t.language]), globs: [] };
    for (const n of [t.name, ...t.aliases]) table.set(n, def);
  }
  for (const add of adds) {
    const m = /^([A-Za-z0-9_+-]+):(.+)$/.exec(add);
    if (!m) throw new RglobError("BAD_PREDICATE", `type_add: '${add}' is not NAME:GLOB (e.g. 'web:*.html')`);
    const name = m[1] as string;
    let def = table.get(name);
    if (def === undefined) {
      def = { languages: new Set(), globs: [] };
      table.set(name, def);
    }
    const rest = m[2] as string;
    const include = /^include:(.+)$/.exec(rest);
    if (include) {
      for (const other of (include[1] as string).split(",")) {
        const o = table.get(other);
        if (o === undefined) throw unknownType(other, "type_add");
        for (const l of o.languages) def.languages.add(l);
        def.globs.push(...o.globs);
      }
    } else def.globs.push(nameGlob(rest));
  }
  return table;
}

/**
 * Checks that a type's glob can match a file name: a '/' in it (but a leading '**\/', which matches any
 * directory, so the name) would never match one, as rg's type globs that hold one match nothing in a walk.
 * @param glob the glob of a 'NAME:GLOB' definition
 * @returns the glob
 * @throws RglobError BAD_PREDICATE for a glob that holds '/'
 */
function nameGlob(glob: string): string {
  if (!glob.replace(/^(\*\*\/)+/, "").includes("/")) return glob;
  throw new RglobError(
    "BAD_PREDICATE",
    `type_add: a type's globs match file names, not paths: '${glob}' holds '/'; select paths with a glob (an operand or -g on the CLI, patterns over MCP: '${glob}'), or give the names ('NAME:pre-commit')`,
  );
}

function unknownType(name: string, key: string): RglobError {
  return new RglobError(
    "BAD_PREDICATE",
    `${key}: unknown file type '${name}' (the names: ${fileTypes()
      .map((t) => t.name)
      .join(" ")}; --type-list shows their globs; type_add defines one)`,
  );
}

/**
 * Compiles a test of a file name against some types.
 * @param names the type names
 * @param table the types (typeTable)
 * @param key the option name, for errors
 * @param caseSensitive whether added globs match letters in case
 * @returns true when the name is of one of the types
 */
function typeTest(
  names: readonly string[],
  table: Map<string, TypeDef>,
  key: string,
  caseSensitive: boolean,
): (name: string) => boolean {
  const languages = new Set<string>();
  const globs: string[] = [];
  for (const n of names) {
    const def = table.get(n);
    if (def === undefined) throw unknownType(n, key);
    for (const l of def.languages) languages.add(l);
    globs.push(...def.globs);
  }
  const glob: GlobTest | null =
    globs.length > 0 ? anyGlob(globs.map((g) => compileGlob(g, caseSensitive))) : null;
  return (name) => {
    const lang = languageOf(name);
    if (lang !== null && languages.has(lang.name)) return true;
    return glob?.(name, name, false) === true;
  };
}

/**
 * Compiles the file type options into one test of a file's name, or null when none is set.
 * @param include file_types: a file must be of one of them
 * @param exclude file_types_not: a file must be of none of them
 * @param adds type_add definitions
 * @param caseSensitive whether added globs match letters in case
 * @returns a test of (name, isFile): directories and other entries always pass
 */
export function compileFileTypes(
  include: readonly string[],
  exclude: readonly string[],
  adds: readonly string[],
  caseSensitive: boolean,
): ((name: string, isFile: boolean) => boolean) | null {
  if (include.length === 0 && exclude.length === 0) {
    if (adds.length > 0) typeTable(adds); // a malformed definition is still an error
    return null;
  }
  const table = typeTable(adds);
  const yes = include.length > 0 ? typeTest(include, table, "file_types", caseSensitive) : null;
  const no = exclude.length > 0 ? typeTest(exclude, table, "file_types_not", caseSensitive) : null;
  return (name, isFile) => {
    if (!isFile) return yes === null; // a directory is of no type: with file_types only files are listed
    if (yes !== null && !yes(name)) return false;
    return no === null || !no(name);
  };
}

/**
 * Lists the types with their globs, --type-add applied, by name.
 * @param adds type_add definitions
 * @returns name and globs, sorted by name
 */
export function typeList(adds: readonly string[]): Array<{ name: string; globs: string[] }> {
  const table = typeTable(adds);
  return [...table.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([name, def]) => ({
      name,
      globs: [
        ...[...def.languages].flatMap((l) => fileTypes().find((t) => t.language === l)?.globs ?? []),
        ...def.globs,
      ],
    }));
}

/**
 * Lists the types as rg --type-list prints them (`name: glob, glob`).
 * @param adds type_add definitions
 * @returns one line per name
 */
export function typeListLines(adds: readonly string[]): string[] {
  return typeList(adds).map((t) => `${t.name}: ${t.globs.join(", ")}`);
}
