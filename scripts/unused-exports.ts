/*! Unused exports (`bun scripts/unused-exports.ts`): lists each export of `src/` that no other file imports.
 * An export is used when a file of `src/`, `test/` or `scripts/` imports it by name (`import { X }`, `import type
 * { X }`, `export { X } from`, `import * as m` then `m.X`, `(await import(...)).X`, `const { X } = await
 * import(...)`), or when it is an export of a package entry (`src/index.ts`, `src/agent/index.ts`). Each line
 * says whether the name is still used in its own file (then only the `export` goes) or nowhere (dead code).
 * Read-only: it never edits a file. Exits 1 when it lists anything with `--check`. */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const root = join(import.meta.dir, "..");
/** The package's entries: everything they export is the library's API. */
const ENTRIES = new Set(["src/index.ts", "src/agent/index.ts"]);

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (name === "node_modules" || name === "__snapshots__") continue;
    if (statSync(full).isDirectory()) out.push(...tsFiles(full));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts"))
      out.push(relative(root, full).split("\\").join("/"));
  }
  return out;
}

/** Resolves a relative import of a file to a repository path, or null. */
function resolveSpec(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const target = resolve(dirname(join(root, from)), spec);
  const hit = [target, `${target}.ts`, join(target, "index.ts")].find(
    (c) => existsSync(c) && statSync(c).isFile(),
  );
  return hit === undefined ? null : relative(root, hit).split("\\").join("/");
}

/** The names a file exports itself (not re-exports), each with its line. */
function exportsOf(file: string, sf: ts.SourceFile): Map<string, number> {
  const out = new Map<string, number>();
  const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  for (const st of sf.statements) {
    const mods = ts.canHaveModifiers(st) ? ts.getModifiers(st) : undefined;
    const exported = mods?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) === true;
    if (ts.isExportDeclaration(st) && st.moduleSpecifier === undefined && st.exportClause !== undefined) {
      if (ts.isNamedExports(st.exportClause))
        for (const el of st.exportClause.elements) out.set(el.name.text, line(el));
      continue;
    }
    if (!exported) continue;
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations)
        if (ts.isIdentifier(d.name)) out.set(d.name.text, line(d));
    } else if (
      (ts.isFunctionDeclaration(st) ||
        ts.isClassDeclaration(st) ||
        ts.isInterfaceDeclaration(st) ||
        ts.isTypeAliasDeclaration(st) ||
        ts.isEnumDeclaration(st)) &&
      st.name !== undefined
    ) {
      out.set(st.name.text, line(st));
    }
  }
  void file;
  return out;
}

const files = [
  ...tsFiles(join(root, "src")),
  ...tsFiles(join(root, "test")),
  ...tsFiles(join(root, "scripts")),
];
const sources = new Map(files.map((f) => [f, readFileSync(join(root, f), "utf8")] as const));
/** `file name` of every import by name. */
const used = new Set<string>();
/** Files imported whole into the library's API (`export * from`). */
for (const [file, text] of sources) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined
    ) {
      const target = ts.isStringLiteral(node.moduleSpecifier)
        ? resolveSpec(file, node.moduleSpecifier.text)
        : null;
      if (target !== null) {
        if (ts.isImportDeclaration(node)) {
          const b = node.importClause?.namedBindings;
          if (b !== undefined && ts.isNamedImports(b))
            for (const el of b.elements) used.add(`${target} ${(el.propertyName ?? el.name).text}`);
          if (b !== undefined && ts.isNamespaceImport(b)) {
            const ns = b.name.text;
            for (const m of text.matchAll(new RegExp(`\\b${ns}\\.([A-Za-z_$][\\w$]*)`, "g")))
              used.add(`${target} ${m[1]}`);
          }
        } else if (node.exportClause === undefined) {
          used.add(`${target} *`);
        } else if (ts.isNamedExports(node.exportClause)) {
          for (const el of node.exportClause.elements)
            used.add(`${target} ${(el.propertyName ?? el.name).text}`);
        }
      }
    }
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const target = resolveSpec(file, node.arguments[0].text);
      if (target !== null) {
        // (await import(x)).Name, or const { A, B } = await import(x), or m = await import(x) then m.Name.
        let up: ts.Node = node.parent;
        while (ts.isAwaitExpression(up) || ts.isParenthesizedExpression(up)) up = up.parent;
        if (ts.isPropertyAccessExpression(up)) used.add(`${target} ${up.name.text}`);
        else if (ts.isVariableDeclaration(up) && ts.isObjectBindingPattern(up.name)) {
          for (const el of up.name.elements) {
            const key = el.propertyName ?? el.name;
            if (ts.isIdentifier(key)) used.add(`${target} ${key.text}`);
          }
        } else if (ts.isVariableDeclaration(up) && ts.isIdentifier(up.name)) {
          for (const m of text.matchAll(new RegExp(`\\b${up.name.text}\\.([A-Za-z_$][\\w$]*)`, "g")))
            used.add(`${target} ${m[1]}`);
        } else used.add(`${target} *`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

const lines: string[] = [];
for (const file of files) {
  if (!file.startsWith("src/") || file.startsWith("src/generated/") || ENTRIES.has(file)) continue;
  if (used.has(`${file} *`)) continue;
  const text = sources.get(file) ?? "";
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  for (const [name, line] of exportsOf(file, sf)) {
    if (used.has(`${file} ${name}`)) continue;
    const inFile = (text.match(new RegExp(`\\b${name.replace(/\$/g, "\\$")}\\b`, "g")) ?? []).length > 1;
    lines.push(
      `${file}:${line} ${name} (${inFile ? "used in its file only: drop the export" : "used nowhere"})`,
    );
  }
}
for (const l of lines) console.log(l);
console.error(`unused-exports: ${lines.length} exports no other file imports`);
if (process.argv.includes("--check") && lines.length > 0) process.exit(1);
