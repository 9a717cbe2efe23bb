/**
 * What installing Heimdall costs a user: `npm pack` of this checkout (its prepack builds what the
 * package ships), then `npm install <tarball>` into an empty project outside the repository, its
 * dependencies fetched from the registry, with an empty npm cache ("clean") and with the cache that
 * install left ("warm"). Reported: wall time (median), node_modules on disk and the package count.
 *
 * The baseline is measured the same way in the same run: the tree of the commit before the package
 * was made installable (BASELINE below; HEIMDALL_BENCH_INSTALL_BASELINE names another), packed as it
 * was (no build: it had no `files` and its dist/ was gitignored). Its install compiles
 * better-sqlite3 twice and takes minutes, so it runs once per cache state; the package runs
 * HEIMDALL_BENCH_INSTALL_RUNS times (default 3) per cache state.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median } from './stats.js';

/** The last commit before the packaging work: dependencies as they were (Next, React, Prisma, ...). */
const BASELINE = '970f4735d0eb522da573564e4c67096ef3eb6726';

interface Install {
  ms: number;
  mb: number;
  packages: number;
}

/** npm as a user runs it: this machine's ~/.npmrc, none of the npm_* variables `npm run` exports. */
type Env = NodeJS.ProcessEnv;

function cleanEnv(): Env {
  const env: Env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('npm_') || k.startsWith('HEIMDALL_')) delete env[k];
  return env;
}

function run(cmd: string, args: string[], cwd: string, env: Env): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stderr.slice(-4000)}`);
  return r.stdout;
}

function pack(dir: string, dest: string, env: Env, ignoreScripts: boolean): { file: string; size: number; unpacked: number; files: number } {
  const out = run('npm', ['pack', '--json', '--pack-destination', dest, ...(ignoreScripts ? ['--ignore-scripts'] : [])], dir, env);
  const r = (JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string; size: number; unpackedSize: number; entryCount: number }>)[0]!;
  return { file: path.join(dest, r.filename), size: r.size, unpacked: r.unpackedSize, files: r.entryCount };
}

function install(tarball: string, cache: string, work: string, env: Env): Install {
  const project = fs.mkdtempSync(path.join(work, 'project-'));
  fs.writeFileSync(path.join(project, 'package.json'), '{"name":"install-bench","version":"1.0.0","private":true}\n');
  const t = process.hrtime.bigint();
  run('npm', ['install', '--no-audit', '--no-fund', '--cache', cache, tarball], project, env);
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  const kb = Number(run('du', ['-sk', path.join(project, 'node_modules')], project, env).split('\t')[0]);
  const lock = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/.package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  const packages = Object.keys(lock.packages).filter((k) => k.startsWith('node_modules/')).length;
  fs.rmSync(project, { recursive: true, force: true });
  return { ms, mb: kb / 1024, packages };
}

/** `runs` installs with a fresh empty cache each, then `runs` with the cache the first one filled. */
function measure(tarball: string, runs: number, work: string, env: Env): { clean: Install[]; warm: Install[] } {
  const clean: Install[] = [];
  let warmCache = '';
  for (let i = 0; i < runs; i++) {
    const cache = fs.mkdtempSync(path.join(work, 'cache-'));
    clean.push(install(tarball, cache, work, env));
    if (i === 0) warmCache = cache;
    else fs.rmSync(cache, { recursive: true, force: true });
  }
  const warm: Install[] = [];
  for (let i = 0; i < runs; i++) warm.push(install(tarball, warmCache, work, env));
  fs.rmSync(warmCache, { recursive: true, force: true });
  return { clean, warm };
}

const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (x: number) => `${x.toFixed(0)} MB`;

export default async function ({ root }: { root: string }): Promise<string> {
  const env = cleanEnv();
  const runs = Number.parseInt(process.env.HEIMDALL_BENCH_INSTALL_RUNS ?? '3', 10);
  const baselineRef = process.env.HEIMDALL_BENCH_INSTALL_BASELINE ?? BASELINE;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-bench-install-'));
  try {
    const now = pack(root, work, env, false);
    const after = measure(now.file, runs, work, env);

    // The baseline tree, exported from git and packed as it was.
    const old = path.join(work, 'baseline');
    fs.mkdirSync(old);
    const archive = spawnSync('git', ['archive', '--format=tar', baselineRef], { cwd: root, maxBuffer: 512 * 1024 * 1024 });
    if (archive.status !== 0) throw new Error(`git archive ${baselineRef} failed: ${archive.stderr}`);
    spawnSync('tar', ['-x', '-C', old], { input: archive.stdout });
    const then = pack(old, work, env, true);
    const before = measure(then.file, 1, work, env);

    const row = (label: string, p: typeof now, m: { clean: Install[]; warm: Install[] }) => {
      const c = median(m.clean.map((x) => x.ms));
      const w = median(m.warm.map((x) => x.ms));
      return { label, p, c, w, mb: median(m.clean.map((x) => x.mb)), packages: median(m.clean.map((x) => x.packages)), n: m.clean.length };
    };
    const b = row(`before (${baselineRef.slice(0, 7)}, packed as it was)`, then, before);
    const a = row('after (this tree)', now, after);
    const lines = [
      '## Install',
      '',
      '`npm pack`, then `npm install <tarball>` into an empty project outside the repository (dependencies from the registry; this machine builds native addons from source). "Clean": an empty npm cache; "warm": the cache a previous install of the same tarball left. Median of the runs shown.',
      '',
      '| package | tarball | unpacked | clean install | warm install | node_modules | packages | runs |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...[b, a].map((r) => `| ${r.label} | ${(r.p.size / 1e6).toFixed(1)} MB | ${(r.p.unpacked / 1e6).toFixed(1)} MB | ${sec(r.c)} | ${sec(r.w)} | ${mb(r.mb)} | ${r.packages} | ${r.n} + ${r.n} |`),
      '',
      `After / before: install time ${(a.c / b.c).toFixed(3)}x clean, ${(a.w / b.w).toFixed(3)}x warm; disk ${(a.mb / b.mb).toFixed(3)}x; packages ${a.packages} vs ${b.packages} (target: at most 0.25x of time and disk).`,
      '',
      'The baseline tarball has no dist/, so its programs fail after installing (ERR_MODULE_NOT_FOUND); its time and size are what a user paid for that.',
      `Every sample, clean then warm: before ${[...before.clean, ...before.warm].map((x) => sec(x.ms)).join(', ')}; after ${[...after.clean, ...after.warm].map((x) => sec(x.ms)).join(', ')}.`,
    ];
    return lines.join('\n');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
