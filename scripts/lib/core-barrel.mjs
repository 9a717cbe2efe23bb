// The core's public surface is server/core/index.ts, and the code outside the core imports it from
// there (house style rule 8, checked by dependency-cruiser). For the bundled CLI that barrel is a cost:
// esbuild splits chunks by which files an entry reaches, not by which names it uses, so a command
// importing one function from the barrel would pull every core module into its chunk (and the joined
// hot-defs.js grew from 270 KB to 625 KB when measured). The build therefore rewrites each import from
// the barrel into imports from the files that define the names, before esbuild reads the source:
// the source keeps one boundary, the bundle keeps one chunk per command.
//
// `barrelExports` follows the barrel's `export { } from` and `export * from` lines (and the folder
// barrels they name) down to the declaring file of every exported name, with the TypeScript parser
// (syntax only, no type checker: a few milliseconds). `coreBarrelPlugin` is the esbuild plugin.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The file a relative specifier names (`./x.js` -> x.ts, x.tsx or x/index.ts), or undefined. */
export function resolveSource(fromFile, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(fromFile), spec.replace(/\.(m?js|tsx?)$/, ''));
  for (const candidate of [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return undefined;
}

const parsed = new Map();
function parse(file) {
  let source = parsed.get(file);
  if (!source) {
    source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    parsed.set(file, source);
  }
  return source;
}

const hasExport = (node) => (ts.canHaveModifiers(node) ? ts.getModifiers(node) ?? [] : []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/**
 * Every name a module exports, mapped to where it is declared: `{ file, name, typeOnly }`, with
 * `name` the declaring file's own name for it (`export { A as B }` maps B to A).
 */
export function moduleExports(file, seen = new Set()) {
  const out = new Map();
  if (seen.has(file)) return out; // an export cycle: the first visit lists the names
  seen.add(file);
  const source = parse(file);
  const imports = new Map(); // local name -> { file, name } of an import, for `import { x } ...; export { x }`
  for (const st of source.statements) {
    if (ts.isImportDeclaration(st) && st.importClause?.namedBindings && ts.isNamedImports(st.importClause.namedBindings)) {
      const from = resolveSource(file, st.moduleSpecifier.text);
      if (!from) continue;
      for (const el of st.importClause.namedBindings.elements) imports.set(el.name.text, { file: from, name: (el.propertyName ?? el.name).text });
    }
  }
  const local = (name, typeOnly) => {
    const imported = imports.get(name);
    if (!imported) return { file, name, typeOnly };
    const target = moduleExports(imported.file, seen).get(imported.name);
    return target ? { ...target, typeOnly: typeOnly || target.typeOnly } : { file: imported.file, name: imported.name, typeOnly };
  };
  for (const st of source.statements) {
    if (ts.isExportDeclaration(st)) {
      const from = st.moduleSpecifier ? resolveSource(file, st.moduleSpecifier.text) : undefined;
      if (st.moduleSpecifier && !from) continue; // a package re-export: not part of the core
      if (!st.exportClause) {
        for (const [name, target] of moduleExports(from, seen)) if (name !== 'default' && !out.has(name)) out.set(name, { ...target, typeOnly: target.typeOnly || st.isTypeOnly });
        continue;
      }
      if (!ts.isNamedExports(st.exportClause)) continue; // `export * as ns from`: a namespace, never rewritten
      for (const el of st.exportClause.elements) {
        const exported = el.name.text;
        const original = (el.propertyName ?? el.name).text;
        const typeOnly = st.isTypeOnly || el.isTypeOnly;
        if (from) {
          const target = moduleExports(from, seen).get(original);
          out.set(exported, target ? { ...target, typeOnly: typeOnly || target.typeOnly } : { file: from, name: original, typeOnly });
        } else out.set(exported, local(original, typeOnly));
      }
      continue;
    }
    if (!hasExport(st)) continue;
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) out.set(d.name.text, { file, name: d.name.text, typeOnly: false });
    } else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) && st.name) {
      out.set(st.name.text, { file, name: st.name.text, typeOnly: false });
    } else if ((ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) && st.name) {
      out.set(st.name.text, { file, name: st.name.text, typeOnly: true });
    }
  }
  seen.delete(file);
  return out;
}

/** A specifier from `fromFile` to `toFile` in the ES module style the sources use (`./x.js`). */
function specifier(fromFile, toFile) {
  let rel = path.relative(path.dirname(fromFile), toFile).split(path.sep).join('/');
  rel = rel.replace(/\/index\.tsx?$/, '/index.js').replace(/\.tsx?$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/**
 * `source` (the text of `file`) with each import from `barrel` replaced by imports from the declaring
 * files, line numbers unchanged. Throws on a namespace import or a name the barrel does not export.
 */
export function rewriteBarrelImports(file, source, barrel, exportsOf = moduleExports(barrel)) {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const edits = [];
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || resolveSource(file, st.moduleSpecifier.text) !== barrel) continue;
    const clause = st.importClause;
    if (!clause || clause.isTypeOnly) continue; // a side-effect import, or erased anyway
    if (clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) {
      throw new Error(`${file}: import named values from the core's index (import { x } from '.../core/index.js'); a default or namespace import would bundle every core module`);
    }
    const byFile = new Map();
    for (const el of clause.namedBindings.elements) {
      if (el.isTypeOnly) continue;
      const name = (el.propertyName ?? el.name).text;
      const target = exportsOf.get(name);
      if (!target) throw new Error(`${file}: server/core/index.ts exports no '${name}'`);
      if (target.typeOnly) continue;
      const list = byFile.get(target.file) ?? [];
      list.push(target.name === el.name.text ? target.name : `${target.name} as ${el.name.text}`);
      byFile.set(target.file, list);
    }
    const text = [...byFile].map(([to, names]) => `import { ${names.join(', ')} } from '${specifier(file, to)}';`).join(' ');
    const original = source.slice(st.getStart(sf), st.getEnd());
    edits.push({ start: st.getStart(sf), end: st.getEnd(), text: text + '\n'.repeat(original.split('\n').length - 1) });
  }
  let out = source;
  for (const e of edits.reverse()) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/** The esbuild plugin: every TypeScript file outside the core gets its barrel imports rewritten. */
export function coreBarrelPlugin(root) {
  const barrel = path.join(root, 'server/core/index.ts');
  const core = path.join(root, 'server/core') + path.sep;
  let exportsOf;
  return {
    name: 'heimdall-core-barrel',
    setup(build) {
      build.onLoad({ filter: /\.tsx?$/ }, (args) => {
        if (args.path.startsWith(core) || args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!/core\/index(\.js)?['"]/.test(source)) return undefined;
        exportsOf ??= moduleExports(barrel);
        return { contents: rewriteBarrelImports(args.path, source, barrel, exportsOf), loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
      });
    },
  };
}
