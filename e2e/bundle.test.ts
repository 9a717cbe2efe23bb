/**
 * The shape of the CLI bundle scripts/build-cli.mjs writes, which start-up time depends on and which
 * must not change what the programs do: CommonJS everywhere, every joined chunk in one copy per
 * process, and a code cache that is only ever an optimisation (a refused or damaged one changes
 * nothing but time).
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runBin, tmpPlanning } from '../server/testing/fixtures.js';

const DIST = path.join(REPO_ROOT, 'dist');
const CHUNKS = path.join(DIST, 'chunks');
const jsFiles = () => ['cli', 'mcp', 'chunks'].flatMap((d) => fs.readdirSync(path.join(DIST, d)).filter((f) => f.endsWith('.js')).map((f) => path.join(d, f)));
const members = () => [...fs.readFileSync(path.join(CHUNKS, 'hot-defs.js'), 'utf8').matchAll(/^"([\w.-]+\.js)": function \(exports, require, module, __filename, __dirname\) \{$/gm)].map((m) => m[1] as string);

beforeAll(() => {
  if (!fs.existsSync(path.join(CHUNKS, 'hot-defs.js'))) throw new Error('dist/chunks/hot-defs.js is missing: run node scripts/build-cli.mjs first');
});

describe('the CLI bundle', () => {
  it('is CommonJS in strict mode, each folder saying so, the bin/ shims too', () => {
    for (const dir of ['dist/cli', 'dist/mcp', 'dist/chunks', 'bin']) {
      expect(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, dir, 'package.json'), 'utf8')).type, dir).toBe('commonjs');
    }
    const files = jsFiles();
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const text = fs.readFileSync(path.join(DIST, f), 'utf8');
      expect(text.startsWith('"use strict";') || text.startsWith('// heimdall-build '), f).toBe(true);
      // ES module syntax would not load under require().
      expect(text, f).not.toMatch(/^(import|export) /m);
    }
  });

  it('keeps each joined chunk in one copy: no file of its own, and nothing requires it but through hot.js', () => {
    const joined = members();
    expect(joined).toEqual(expect.arrayContaining([expect.stringMatching(/^resolve-/), expect.stringMatching(/^runtime-/)]));
    const files = jsFiles();
    for (const m of joined) expect(files, m).not.toContain(path.join('chunks', m));
    for (const f of files) {
      const text = fs.readFileSync(path.join(DIST, f), 'utf8');
      for (const spec of text.matchAll(/\brequire\("(\.\.?\/[^"]+)"\)/g)) {
        expect(joined, `${f} requires ${spec[1]} directly`).not.toContain(path.basename(spec[1] as string));
      }
    }
    // vm.Script code has no dynamic-import hook on Node 20: the joined code must not need one.
    expect(fs.readFileSync(path.join(CHUNKS, 'hot-defs.js'), 'utf8')).not.toMatch(/\bimport\(/);
  });

  it('loads no bundled npm package for `heimdall-resolve F12`, though the command imports the whole core barrel', () => {
    // The commands import server/core/index.ts, which re-exports the MCP-free core and, through it,
    // modules that pull in yaml, zod and the NATS client. The build rewrites barrel imports to the
    // declaring files (scripts/lib/core-barrel.mjs); without that, esbuild puts every core module and
    // their packages into one chunk that every command loads.
    const planning = tmpPlanning();
    expect(runBin('heimdall-protocol', ['init'], { planning }).code).toBe(0);
    expect(runBin('heimdall-resolve', ['set', 'F12', 'src/a.ts'], { planning }).code).toBe(0);
    const out = path.join(planning, '..', 'loaded.json');
    const probe = path.join(planning, '..', 'probe.cjs');
    fs.writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));\n`);
    const r = runBin('heimdall-resolve', ['F12'], { planning, env: { NODE_OPTIONS: `--require ${probe}` } });
    expect(r).toMatchObject({ code: 0, stdout: 'src/a.ts\n' });
    const loaded = (JSON.parse(fs.readFileSync(out, 'utf8')) as string[]).filter((f) => f.startsWith(DIST));
    expect(loaded.map((f) => path.relative(DIST, f))).toEqual(expect.arrayContaining(['cli/main.js', 'chunks/hot.js']));
    // hot.js compiles hot-defs.js itself (vm.Script), so it is not in require's cache: read it too.
    for (const f of [...loaded, path.join(CHUNKS, 'hot-defs.js')]) expect(fs.readFileSync(f, 'utf8'), path.relative(DIST, f)).not.toMatch(/^\/\/ node_modules\//m);
  });

  it('gives the same answers with the code cache, without it, and with a damaged one (then replaced)', () => {
    const planning = tmpPlanning();
    expect(runBin('heimdall-protocol', ['init'], { planning }).code).toBe(0);
    expect(runBin('heimdall-resolve', ['set', 'F12', 'src/matching/engine.ts'], { planning }).code).toBe(0);
    const resolve = (extra: Record<string, string> = {}) => runBin('heimdall-resolve', ['F12'], { planning, env: extra });
    const expected = { code: 0, stdout: 'src/matching/engine.ts\n', stderr: '' };
    expect(resolve()).toEqual(expected);
    const build = /^\/\/ heimdall-build ([0-9a-f]{16})$/m.exec(fs.readFileSync(path.join(CHUNKS, 'hot-defs.js'), 'utf8'))?.[1];
    expect(build).toBeDefined();
    const cache = fs.readdirSync(CHUNKS).find((f) => f.startsWith(`.hot-defs.${build}.${process.version}-`) && f.endsWith('.cache'));
    expect(cache, 'the first run of a build writes its code cache').toBeDefined();
    const file = path.join(CHUNKS, cache as string);
    expect(resolve({ HEIMDALL_CODE_CACHE: '0' })).toEqual(expected);
    // Garbage of the same size: V8 refuses it, the program compiles as usual and writes a good one.
    const size = fs.statSync(file).size;
    const scratch = `${file}.test.tmp`;
    fs.writeFileSync(scratch, Buffer.alloc(size, 0x5a));
    fs.renameSync(scratch, file);
    expect(resolve()).toEqual(expected);
    expect(fs.readFileSync(file).equals(Buffer.alloc(size, 0x5a))).toBe(false);
    expect(resolve()).toEqual(expected);
    // A truncated one too.
    fs.writeFileSync(scratch, fs.readFileSync(file).subarray(0, 100));
    fs.renameSync(scratch, file);
    expect(resolve()).toEqual(expected);
    expect(fs.statSync(file).size).toBeGreaterThan(100);
  });

  it('runs when the cache cannot be read or written (the path is taken), leaving no scratch file', () => {
    const planning = tmpPlanning();
    expect(runBin('heimdall-protocol', ['init'], { planning }).code).toBe(0);
    const build = /^\/\/ heimdall-build ([0-9a-f]{16})$/m.exec(fs.readFileSync(path.join(CHUNKS, 'hot-defs.js'), 'utf8'))?.[1];
    const file = path.join(CHUNKS, `.hot-defs.${build}.${process.version}-${process.arch}.cache`);
    fs.rmSync(file, { force: true });
    // A folder where the cache goes: reading it fails, and so does renaming a scratch file over it
    // (permissions would not stop root, which these tests may run as).
    fs.mkdirSync(path.join(file, 'taken'), { recursive: true });
    try {
      expect(runBin('heimdall-blackboard', ['list', '--json'], { planning })).toEqual({ code: 0, stdout: '{"facts":{}}\n', stderr: '' });
      expect(fs.readdirSync(CHUNKS).filter((f) => f.startsWith(`.hot-defs.${build}`) && f.endsWith('.tmp'))).toEqual([]);
    } finally {
      fs.rmSync(file, { recursive: true, force: true });
    }
    expect(runBin('heimdall-blackboard', ['list', '--json'], { planning }).code).toBe(0);
    expect(fs.statSync(file).isFile()).toBe(true);
  });
});
