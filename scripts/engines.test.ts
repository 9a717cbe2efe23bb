/**
 * The Node.js versions the project says it supports, checked against what the lockfile installs:
 * every package an installed copy of Heimdall loads supports the oldest Node `engines` allows, and
 * nothing `npm ci` installs here refuses the Node running it (npm's EBADENGINE warning; NATS 3.4.0
 * pulled @nats-io/nuid 3.0.0, which declares Node 22).
 */
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../server/testing/fixtures.js';

interface LockEntry {
  dev?: boolean;
  optional?: boolean;
  engines?: { node?: string } | string[];
}

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

function nodeRange(e: LockEntry): string | undefined {
  return e.engines && !Array.isArray(e.engines) ? e.engines.node : undefined;
}

/** Lockfile entries whose declared Node range excludes `version`. */
function refusing(version: string, keep: (e: LockEntry) => boolean): string[] {
  return Object.entries(lock.packages)
    .filter(([name, e]) => name !== '' && keep(e))
    .filter(([, e]) => {
      const range = nodeRange(e);
      return range !== undefined && !semver.satisfies(version, range);
    })
    .map(([name, e]) => `${name.replace(/^.*node_modules\//, '')} (node ${nodeRange(e)})`);
}

/** Node's lookup in lockfile terms: the nearest node_modules/<dep> at or above the dependent. */
function resolveDependency(from: string, dep: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base}/node_modules/${dep}`;
    if (lock.packages[candidate]) return candidate;
    const i = base.lastIndexOf('/node_modules/');
    if (i === -1) return lock.packages[`node_modules/${dep}`] ? `node_modules/${dep}` : undefined;
    base = base.slice(0, i);
  }
}

/**
 * What an installed copy loads: the packages esbuild bundled into dist/ (it marks each bundled file
 * with a `// node_modules/...` comment) and the package's dependencies, each with its own
 * dependencies as the lockfile resolves them.
 */
function shippedPackages(): string[] {
  const dist = path.join(REPO_ROOT, 'dist');
  if (!fs.existsSync(path.join(dist, 'cli', 'main.js'))) throw new Error('dist/ is not built: run node scripts/build-cli.mjs first');
  const found = new Set<string>();
  for (const dir of ['cli', 'mcp', 'chunks']) {
    for (const f of fs.readdirSync(path.join(dist, dir)).filter((n) => n.endsWith('.js'))) {
      for (const m of fs.readFileSync(path.join(dist, dir, f), 'utf8').matchAll(/^\/\/ (node_modules\/(?:@[^/\n]+\/)?[^/\n]+(?:\/node_modules\/(?:@[^/\n]+\/)?[^/\n]+)*)\//gm)) found.add(m[1] as string);
    }
  }
  const deps = Object.keys((JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: object }).dependencies);
  const queue = [...found, ...deps.map((n) => `node_modules/${n}`)];
  found.clear();
  while (queue.length) {
    const key = queue.pop() as string;
    if (found.has(key)) continue;
    const entry = lock.packages[key] as (LockEntry & { dependencies?: Record<string, string> }) | undefined;
    if (!entry) throw new Error(`${key} is not in package-lock.json`);
    found.add(key);
    for (const dep of Object.keys(entry.dependencies ?? {})) {
      const resolved = resolveDependency(key, dep);
      if (resolved) queue.push(resolved);
    }
  }
  return [...found].sort();
}

describe('Node.js versions', () => {
  it('every package an installed copy loads supports the oldest Node that engines allows', () => {
    const floor = semver.minVersion(pkg.engines.node)?.version as string;
    expect(floor).toBe('20.11.0');
    const shipped = shippedPackages();
    expect(shipped).toEqual(expect.arrayContaining(['node_modules/@nats-io/nuid', 'node_modules/@modelcontextprotocol/sdk', 'node_modules/gpt-tokenizer', 'node_modules/ajv']));
    const refused = shipped.filter((k) => {
      const range = nodeRange(lock.packages[k] as LockEntry);
      return range !== undefined && !semver.satisfies(floor, range);
    });
    expect(refused).toEqual([]);
  });

  it('nothing the checkout installs refuses the Node running the tests', () => {
    // Optional platform binaries are skipped by npm when they do not fit, without a warning.
    expect(refusing(process.version, (e) => !e.optional)).toEqual([]);
  });

  it('the check sees a package that refuses this Node', () => {
    const saved = lock.packages['node_modules/@nats-io/nuid'];
    lock.packages['node_modules/@nats-io/nuid'] = { dev: true, engines: { node: '>= 99.x' } };
    try {
      expect(refusing(process.version, (e) => !e.optional)).toEqual(['@nats-io/nuid (node >= 99.x)']);
    } finally {
      if (saved) lock.packages['node_modules/@nats-io/nuid'] = saved;
      else delete lock.packages['node_modules/@nats-io/nuid'];
    }
  });
});
