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
// CLI"). Three steps after esbuild's split build get it there (each measured, see bench/cli.bench.ts):
//   1. Every output file becomes a CommonJS module. Node 20 loads an ES module through its
//      asynchronous loader (URL resolution, a facade per built-in, a job per file): about 10 ms more
//      than require() for the same code. esbuild splits ES modules only, so its ES output is
//      converted file by file (esbuild's transform; `import()` of a chunk becomes a lazy require,
//      import.meta.url a getter on the file's own path) and each folder gets a package.json saying
//      "commonjs". Bundled code is strict (it was ES module code), so every file says "use strict".
//   2. The chunks the common commands load (the static closure of the CLI entry, the runtime, the
//      identity rule and the agent-facing commands in HOT below) are joined into one file,
//      dist/chunks/hot.js, each kept in its own function and run on first require, exactly once, as
//      Node runs a module. Opening and compiling fourteen small files costs more than one; a chunk
//      in hot.js that a command does not use costs only its pre-parse. Every other file reaches a
//      joined chunk through hot.js's loader, so each chunk exists once per process (one
//      HeimdallError class, one set of storage limits, one lock registry).
//   3. Source maps follow both steps (an index map for hot.js), and each file names the npm
//      packages bundled into it on `// node_modules/<package>/` lines, which the license notice
//      (scripts/build-package.mjs) and the engines test read.
import { build, transform } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entries = {
  'cli/main': 'server/cli/main.ts',
  'mcp/stdio': 'server/mcp/stdio.ts',
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
  'server/cli/commands/resolve.ts',
  'server/cli/commands/blackboard.ts',
];
/** A chunk this large is vendored code (the MCP SDK, zod, yaml, NATS): left in its own file. */
const HOT_MAX_BYTES = 64 * 1024;

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
    if (body.includes('__heimdallMeta')) {
      // import.meta.url, computed on first use: pathToFileURL costs a little, and most files never ask.
      body = `var __heimdallMeta = { get url() { return require("node:url").pathToFileURL(__filename).href; } };\n${body}`;
      out.map = shiftMap(out.map, 1);
    }
    modules.set(name, { code: body, map: out.map, packages: [...packages].sort(), entry: Boolean(meta?.entryPoint && Object.values(entries).includes(meta.entryPoint)) });
  }),
);

// ---- 2. Join the common chunks into chunks/hot.js.
const staticDeps = (name) => [...modules.get(name).code.matchAll(/\brequire\("(\.\.?\/[^"\n]+\.js)"\)/g)].map((m) => target(name, m[1])).filter((t) => modules.has(t));
const hot = new Set();
const visit = (name) => {
  if (hot.has(name)) return;
  hot.add(name);
  for (const d of staticDeps(name)) visit(d);
};
const bySource = new Map(Object.entries(result.metafile.outputs).filter(([, o]) => o.entryPoint).map(([out, o]) => [o.entryPoint, rel(path.join(root, out))]));
for (const src of [entries['cli/main'], ...HOT]) {
  const out = bySource.get(src);
  if (!out) throw new Error(`build-cli: ${src} is listed in HOT but is no chunk of the build (moved or renamed?)`);
  visit(out);
}
for (const name of [...hot]) {
  if (modules.get(name).entry || !name.startsWith('chunks/') || modules.get(name).code.length > HOT_MAX_BYTES) hot.delete(name);
}
const HOT_FILE = 'chunks/hot.js';

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
  let code = link(name, m.code, false);
  const head = ['"use strict";', ...markers(m.packages)];
  if (code.includes('__heimdallHot(')) head.push(`var __heimdallHot = require(${JSON.stringify(specifier(name, HOT_FILE))});`);
  const base = path.posix.basename(name);
  files.set(name, `${head.join('\n')}\n${code}//# sourceMappingURL=${base}.map\n`);
  files.set(`${name}.map`, shiftMap(m.map, head.length));
}
if (hot.size) {
  const members = [...hot].sort();
  const lines = [
    '"use strict";',
    '// The chunks the common commands load, joined (scripts/build-cli.mjs, step 2): each runs on first use, once.',
    ...markers([...new Set(members.flatMap((n) => modules.get(n).packages))].sort()),
    'const __heimdallDefs = {',
  ];
  const sections = [];
  for (const n of members) {
    const m = modules.get(n);
    lines.push(`${JSON.stringify(path.posix.basename(n))}: function (exports, require, module, __filename, __dirname) {`);
    sections.push({ offset: { line: lines.length, column: 0 }, map: JSON.parse(m.map) });
    const code = link(n, m.code, true);
    lines.push(code.endsWith('\n') ? code.slice(0, -1) : code, '},');
  }
  lines.push(
    '};',
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
    '//# sourceMappingURL=hot.js.map',
    '',
  );
  files.set(HOT_FILE, lines.join('\n'));
  files.set(`${HOT_FILE}.map`, JSON.stringify({ version: 3, file: 'hot.js', sections }));
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
    if (!written.has(file)) rmSync(file, { recursive: true, force: true });
  }
}
