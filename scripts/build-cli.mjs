// Bundles the command-line programs and the MCP server into dist/ with esbuild. Code splitting gives
// one chunk per command (and per dependency a command loads lazily), so `heimdall-resolve F12` loads
// only the resolve code. Entry points: one line each.
//
// Pure JavaScript dependencies (the MCP SDK, zod, yaml, the NATS client, the Prisma driver adapters
// and pg) are bundled: the installed package needs no node_modules for them, which is most of what
// keeps its install small. Left to node_modules at run time, on purpose:
//   - ajv and gpt-tokenizer: the core loads them with createRequire on first use (a bundler cannot
//     see those requires); they are the package's only `dependencies`;
//   - better-sqlite3: a native addon, compiled for the user's Node; an optional peer dependency that
//     only the SQLite read model (`heimdall wire state|listen|replay|release`) needs;
//   - pg-native: pg's optional native binding, never required unless asked for.
//
// Start-up time is the CLI's main cost: agents run these programs from bash hundreds of times per
// task, and `heimdall-resolve F12` must cost at most 1.2x `node -e 0` (BENCHMARKS.md, "Core protocol
// CLI"). Four steps after esbuild's split build get it there (each measured, see bench/cli.bench.ts):
//   1. Every output file becomes a CommonJS module. Node 20 loads an ES module through its
//      asynchronous loader (URL resolution, a facade per built-in, a job per file): about 10 ms more
//      than require() for the same code. esbuild splits ES modules only, so its ES output is
//      converted file by file (esbuild's transform; `import()` of a chunk becomes a lazy require,
//      import.meta.url a getter on the file's own path) and each folder gets a package.json saying
//      "commonjs". Bundled code is strict (it was ES module code), so every file says "use strict".
//   2. The chunks the common commands load (the static closure of the CLI entry and of HOT below)
//      are joined into one file, dist/chunks/hot-defs.js, each kept in its own function and run on
//      first require, exactly once, as Node runs a module; dist/chunks/hot.js is their loader.
//      Opening and compiling twenty small files costs more than one; a joined chunk a command does
//      not use costs only its pre-parse. Every other file reaches a joined chunk through hot.js, so
//      each chunk exists once per process (one HeimdallError class, one set of storage limits, one
//      lock registry).
//   3. hot.js compiles hot-defs.js with a V8 code cache kept beside it (written by the first run of
//      a build on a given Node; see the comment in hot.js): compiling our code is most of what is
//      left of the start-up. HEIMDALL_CODE_CACHE=0 turns it off.
//   4. Source maps follow (an index map for hot-defs.js), and each file names the npm packages
//      bundled into it on `// node_modules/<package>/` lines, which the license notice
//      (scripts/build-package.mjs) and the engines test read.
// A startup snapshot (node --build-snapshot) was measured and left out: BENCHMARKS.md says why.
import { createHash } from 'node:crypto';
import { build, transform } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreBarrelPlugin } from './lib/core-barrel.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entries = {
  'cli/main': 'server/cli/main.ts',
  'mcp/stdio': 'server/mcp/stdio.ts',
  // `heimdall hook ...` runs before every edit and commit: its own entry skips main's dispatch and
  // the caller resolution every other command may do (a hook only reads; bench/hooks.bench.ts).
  'cli/hook': 'server/cli/hook-main.ts',
};

/** Loaded from node_modules at run time (see above); everything else is bundled. */
export const RUNTIME_EXTERNALS = ['ajv', 'gpt-tokenizer', 'better-sqlite3', 'pg-native'];

/**
 * Sources whose static closure goes into hot.js: what the agent-facing commands load, and the
 * identity rule every command of an agent session (HEIMDALL_AGENT set) runs. The CLI entry's own
 * closure is always in.
 */
const HOT = [
  'server/runtime.ts',
  'server/core/identity/session.ts',
  'server/cli/commands/resolve.ts',
  'server/cli/commands/blackboard.ts',
  'server/cli/commands/validate.ts',
  'server/cli/commands/capsule.ts',
  'server/cli/commands/claim.ts',
  'server/cli/commands/haid.ts',
  'server/cli/commands/log.ts',
  'server/cli/commands/gate.ts',
  'server/cli/commands/ledger.ts',
];
/** A chunk this large is vendored code (the MCP SDK, zod, yaml, NATS): left in its own file. */
const HOT_MAX_BYTES = 64 * 1024;
/** Built-ins Node has loaded before any user code runs: requiring one costs a lookup. */
const PRELOADED = new Set(['fs', 'path', 'url', 'events', 'buffer', 'util', 'async_hooks', 'timers', 'querystring']);

const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

const entryPoints = Object.fromEntries(
  Object.entries(entries).filter(([, src]) => existsSync(path.join(root, src))).map(([out, src]) => [out, path.join(root, src)]),
);

const dist = path.join(root, 'dist');
const result = await build({
  absWorkingDir: root,
  entryPoints,
  outdir: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: RUNTIME_EXTERNALS,
  // `--version` prints these without reading package.json at run time (server/version.ts).
  // (Two strings rather than one object: esbuild inlines a string, but makes an object a module.)
  define: { __HEIMDALL_PACKAGE_NAME__: JSON.stringify(pkg.name), __HEIMDALL_PACKAGE_VERSION__: JSON.stringify(pkg.version) },
  // Inline, so the CommonJS transform below reads it and maps its output back to the sources.
  sourcemap: 'inline',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  loader: { '.json': 'json' },
  legalComments: 'linked',
  metafile: true,
  write: false,
  // Imports from server/core/index.ts become imports from the declaring files, so the barrel does not
  // put every core module into every command's chunk (scripts/lib/core-barrel.mjs).
  plugins: [coreBarrelPlugin(root)],
});

/** dist-relative name (`chunks/x.js`) of an output path. */
const rel = (p) => path.relative(dist, p).split(path.sep).join('/');
/** The dist-relative file a relative specifier in `from` names. */
const target = (from, spec) => path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
/** A relative specifier from `from` to `to` (both dist-relative). */
const specifier = (from, to) => {
  const s = path.posix.relative(path.posix.dirname(from), to);
  return s.startsWith('.') ? s : `./${s}`;
};

// ---- 1. ES module -> CommonJS, file by file.
const modules = new Map(); // dist-relative .js name -> { code, map, packages, entry }
const others = []; // outputs that are not JavaScript (legal notices)
const jsOutputs = result.outputFiles.filter((f) => f.path.endsWith('.js'));
const known = new Set(jsOutputs.map((f) => rel(f.path)));
for (const f of result.outputFiles) if (!f.path.endsWith('.js')) others.push(f);
await Promise.all(
  jsOutputs.map(async (f) => {
    const name = rel(f.path);
    const meta = result.metafile.outputs[path.relative(root, f.path).split(path.sep).join('/')];
    // import() of a chunk becomes a marker the link step turns into a lazy require; any other
    // import() (a computed path to an ES module such as the generated Prisma client) stays one.
    const code = f.text.replace(/\bimport\((["'])(\.\.?\/[^"'\n]+\.js)\1\)/g, (all, _q, spec) => (known.has(target(name, spec)) ? `__heimdallLoad(${JSON.stringify(spec)})` : all));
    const out = await transform(code, {
      loader: 'js',
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      sourcemap: 'external',
      sourcefile: name,
      supported: { 'dynamic-import': true },
      define: { 'import.meta.url': '__heimdallMeta.url' },
      logLevel: 'warning',
    });
    const packages = new Set();
    for (const input of Object.keys(meta?.inputs ?? {})) {
      const m = /node_modules\/(?:@[^/]+\/)?[^/]+(?:\/node_modules\/(?:@[^/]+\/)?[^/]+)*\//.exec(input);
      if (m) packages.add(m[0]);
    }
    // A default or namespace import of a Node built-in (`import fs from 'node:fs'`) becomes
    // __toESM(require("node:fs")), which defines a getter per export (fs has a hundred) in every
    // file that imports it; a built-in has no ES module shape to imitate, so its module object
    // serves as its own namespace, with `default` on top.
    let body = out.code.replace(/__toESM\(require\("(node:[\w/]+)"\)(?:, 1)?\)/g, '__heimdallBuiltin(require("$1"))');
    if (body.includes('__heimdallBuiltin(')) {
      body = `var __heimdallBuiltin = (m) => ({ __proto__: m, default: m });\n${body}`;
      out.map = shiftMap(out.map, 1);
    }
    body = lazyBuiltins(body);
    if (body.includes('__heimdallMeta')) {
      // import.meta.url, computed on first use: pathToFileURL costs a little, and most files never ask.
      body = `var __heimdallMeta = { get url() { return require("node:url").pathToFileURL(__filename).href; } };\n${body}`;
      out.map = shiftMap(out.map, 1);
    }
    modules.set(name, { code: body, map: out.map, packages: [...packages].sort(), entry: Boolean(meta?.entryPoint && Object.values(entries).includes(meta.entryPoint)) });
  }),
);

// ---- 2. Join the common chunks into chunks/hot-defs.js, loaded by chunks/hot.js.
const staticDeps = (name) => [...modules.get(name).code.matchAll(/\brequire\("(\.\.?\/[^"\n]+\.js)"\)/g)].map((m) => target(name, m[1])).filter((t) => modules.has(t));
const hot = new Set();
const visit = (name) => {
  if (hot.has(name)) return;
  hot.add(name);
  for (const d of staticDeps(name)) visit(d);
};
const bySource = new Map(Object.entries(result.metafile.outputs).filter(([, o]) => o.entryPoint).map(([out, o]) => [o.entryPoint, rel(path.join(root, out))]));
for (const src of [entries['cli/main'], entries['cli/hook'], ...HOT]) {
  const out = bySource.get(src);
  if (!out) throw new Error(`build-cli: ${src} is listed in HOT but is no chunk of the build (moved or renamed?)`);
  visit(out);
}
for (const name of [...hot]) {
  const m = modules.get(name);
  // A real import() stays out: code compiled by vm.Script has no dynamic-import hook on Node 20.
  if (m.entry || !name.startsWith('chunks/') || m.code.length > HOT_MAX_BYTES || /\bimport\(/.test(m.code)) hot.delete(name);
}
const HOT_FILE = 'chunks/hot.js';
const HOT_DEFS = 'chunks/hot-defs.js';
/** Files of a previous run that stay (the code caches of this very build). */
const keep = new Set();

/** Requires of joined chunks go through hot.js's loader; import() markers become lazy requires. */
function link(name, code, inHot) {
  return code
    .replace(/\brequire\("(\.\.?\/[^"\n]+\.js)"\)/g, (all, spec) => {
      const t = target(name, spec);
      return hot.has(t) ? `__heimdallHot(${JSON.stringify(path.posix.basename(t))})` : all;
    })
    .replace(/__heimdallLoad\("([^"\n]+)"\)/g, (_all, spec) => {
      const t = target(name, spec);
      const load = hot.has(t) ? `__heimdallHot(${JSON.stringify(path.posix.basename(t))})` : `require(${JSON.stringify(inHot ? specifier(HOT_FILE, t) : spec)})`;
      return `Promise.resolve().then(() => ${load})`;
    });
}

/**
 * A built-in that is not preloaded (node:module, node:os, node:crypto, ...) is required when first
 * used rather than when the file loads: `import os from 'node:os'` for a lock's host name would
 * otherwise cost every command that only reads. Done only where the module object is used for
 * its properties alone (`import_node_os.default.hostname()`, `(0, import_node_module.createRequire)(...)`),
 * so a getter per property read stands in for it; anything else keeps the plain require.
 */
function lazyBuiltins(code) {
  return code.replace(/^var (import_node_\w+) = (__heimdallBuiltin\()?require\("node:([\w/]+)"\)\)?;$/gm, (line, name, wrapped, mod) => {
    if (PRELOADED.has(mod)) return line;
    const uses = [...code.matchAll(new RegExp(`\\b${name}\\b(\\.[A-Za-z_$][\\w$]*)?`, 'g'))];
    // The declaration itself, then only property reads.
    if (uses.length < 2 || uses.slice(1).some((u) => u[1] === undefined)) return line;
    const props = [...new Set(uses.slice(1).map((u) => u[1].slice(1)))];
    const getters = props.map((p) => (p === 'default' && wrapped ? `get default() { return require("node:${mod}"); }` : `get ${p}() { return require("node:${mod}").${p}; }`));
    return `var ${name} = { ${getters.join(', ')} };`;
  });
}

/** A source map with `lines` more generated lines at its top. */
function shiftMap(mapText, lines) {
  const map = JSON.parse(mapText);
  map.mappings = ';'.repeat(lines) + map.mappings;
  return JSON.stringify(map);
}

const markers = (packages) => packages.map((p) => `// ${p}`);
const files = new Map(); // dist-relative name -> contents
for (const [name, m] of modules) {
  if (hot.has(name)) continue;
  const code = link(name, m.code, false);
  const head = ['"use strict";', ...markers(m.packages)];
  if (code.includes('__heimdallHot(')) head.push(`var __heimdallHot = require(${JSON.stringify(specifier(name, HOT_FILE))});`);
  const base = path.posix.basename(name);
  files.set(name, `${head.join('\n')}\n${code}//# sourceMappingURL=${base}.map\n`);
  files.set(`${name}.map`, shiftMap(m.map, head.length));
}
if (hot.size) {
  const members = [...hot].sort();
  // hot-defs.js: one expression, a function returning every joined chunk as a function. Its first
  // line names the build (a hash of the rest), which names the code cache made from it.
  const lines = ['(function (require, __heimdallHot) {', '"use strict";', 'return {'];
  const sections = [];
  for (const n of members) {
    const m = modules.get(n);
    lines.push(`${JSON.stringify(path.posix.basename(n))}: function (exports, require, module, __filename, __dirname) {`);
    // +1: the build line goes on top.
    sections.push({ offset: { line: lines.length + 1, column: 0 }, map: JSON.parse(m.map) });
    const code = link(n, m.code, true);
    lines.push(code.endsWith('\n') ? code.slice(0, -1) : code, '},');
  }
  lines.push('};', '})');
  const body = lines.join('\n');
  const build = createHash('sha256').update(body).digest('hex').slice(0, 16);
  files.set(HOT_DEFS, `// heimdall-build ${build}\n${body}\n//# sourceMappingURL=hot-defs.js.map\n`);
  files.set(`${HOT_DEFS}.map`, JSON.stringify({ version: 3, file: 'hot-defs.js', sections }));
  keep.add(new RegExp(`^\\.hot-defs\\.${build}\\.[^/]+\\.cache$`));
  files.set(
    HOT_FILE,
    [
      '"use strict";',
      '// The chunks the common commands load, joined (scripts/build-cli.mjs, steps 2 and 3): their code is in',
      '// hot-defs.js, compiled with a V8 code cache; each chunk runs on first use, once.',
      ...markers([...new Set(members.flatMap((n) => modules.get(n).packages))].sort()),
      'const fs = require("node:fs");',
      'const vm = require("node:vm");',
      'const DEFS = `${__dirname}/hot-defs.js`;',
      '',
      '/**',
      ' * hot-defs.js, compiled from its code cache when there is one for this build, this Node and this',
      " * architecture (V8 refuses a cache made with other flags, and the file name carries the build's hash,",
      ' * since V8 checks only the length of the source). A missing or refused cache is written when the',
      ' * process exits, with what the run compiled, to a scratch file renamed into place; where the folder',
      ' * is read-only, or HEIMDALL_CODE_CACHE=0, the code is compiled as usual.',
      ' */',
      'function compileDefs() {',
      '  const source = fs.readFileSync(DEFS, "utf8");',
      '  const build = /^\\/\\/ heimdall-build ([0-9a-f]{16})\\n/.exec(source)?.[1];',
      '  const cacheFile = build && process.env.HEIMDALL_CODE_CACHE !== "0" ? `${__dirname}/.hot-defs.${build}.${process.version}-${process.arch}.cache` : undefined;',
      '  let cachedData;',
      '  if (cacheFile) {',
      '    try {',
      '      cachedData = fs.readFileSync(cacheFile);',
      '    } catch {',
      '      // none yet',
      '    }',
      '  }',
      '  const script = new vm.Script(source, { filename: DEFS, cachedData });',
      '  if (cacheFile && (cachedData === undefined || script.cachedDataRejected)) {',
      '    process.once("exit", () => {',
      '      const scratch = `${cacheFile}.${process.pid}.tmp`;',
      '      try {',
      '        fs.writeFileSync(scratch, script.createCachedData());',
      '        fs.renameSync(scratch, cacheFile);',
      '      } catch {',
      '        fs.rmSync(scratch, { force: true });',
      '      }',
      '    });',
      '  }',
      '  return script.runInThisContext()(require, __heimdallHot);',
      '}',
      '',
      'const __heimdallDefs = compileDefs();',
      'const __heimdallCache = Object.create(null);',
      '/** require() for a joined chunk: evaluated once, on first use; a chunk that throws is evaluated again next time, as Node does. */',
      'function __heimdallHot(name) {',
      '  const cached = __heimdallCache[name];',
      '  if (cached) return cached.exports;',
      '  const mod = (__heimdallCache[name] = { exports: {} });',
      '  try {',
      '    __heimdallDefs[name].call(mod.exports, mod.exports, require, mod, `${__dirname}/${name}`, __dirname);',
      '  } catch (e) {',
      '    delete __heimdallCache[name];',
      '    throw e;',
      '  }',
      '  return mod.exports;',
      '}',
      'module.exports = __heimdallHot;',
      '',
    ].join('\n'),
  );
}
for (const dir of ['cli', 'mcp', 'chunks']) files.set(`${dir}/package.json`, '{ "type": "commonjs" }\n');
for (const f of others) files.set(rel(f.path), f.contents);

// Written only where the content changed, each file by rename, and stale chunks removed after: a
// test or `npm pack` running this while a bin/ program is being spawned elsewhere never sees a
// missing or half-written chunk, and two builds of the same sources change nothing.
const written = new Set();
for (const [name, contents] of files) {
  const file = path.join(dist, name);
  written.add(file);
  const bytes = typeof contents === 'string' ? Buffer.from(contents) : Buffer.from(contents);
  let same = false;
  try {
    same = Buffer.compare(readFileSync(file), bytes) === 0;
  } catch {
    /* new file */
  }
  if (same) continue;
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
}
// The entry files carry the build time (scripts/start.mjs compares it with the sources' times).
const now = new Date();
for (const out of Object.keys(entryPoints)) utimesSync(path.join(dist, `${out}.js`), now, now);
for (const dir of ['cli', 'mcp', 'chunks']) {
  const full = path.join(dist, dir);
  if (!existsSync(full)) continue;
  for (const name of readdirSync(full)) {
    const file = path.join(full, name);
    if (!written.has(file) && ![...keep].some((k) => k.test(name))) rmSync(file, { recursive: true, force: true });
  }
}
