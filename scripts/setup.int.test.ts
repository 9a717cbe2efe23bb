/**
 * scripts/setup.sh's services step. The "already answering" path runs for real against the
 * PostgreSQL and NATS this machine runs (and must leave them as they are); the install-and-start
 * path runs as a plan (--dry-run --assume-unreachable), checked for the commands a fresh Debian
 * machine needs, because acting on it here would reconfigure the running services.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../server/testing/fixtures.js';

const SCRIPT = path.join(REPO_ROOT, 'scripts/setup.sh');

function setup(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync('bash', [SCRIPT, ...args], { cwd: REPO_ROOT, env, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('scripts/setup.sh', () => {
  it('is valid bash', () => {
    expect(spawnSync('bash', ['-n', SCRIPT]).status).toBe(0);
  });

  it('leaves PostgreSQL and NATS alone when they already answer on 127.0.0.1', () => {
    const r = setup(['--services-only']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('PostgreSQL: already answering on 127.0.0.1:5432, left as it is');
    expect(r.err).toContain('NATS: already answering on 127.0.0.1:4222 with JetStream, left as it is');
    expect(r.out).toBe('');
  });

  it('plans to configure, start and prepare both services when neither answers', () => {
    const r = setup(['--services-only', '--dry-run', '--assume-unreachable']);
    expect(r.code, r.err).toBe(0);
    const plan = r.out.split('\n').filter((l) => l.startsWith('would run: '));
    const has = (re: RegExp) => expect(plan.some((l) => re.test(l)), `a planned command matching ${re}\n${r.out}`).toBe(true);
    has(/pg_conftool \S+ main set listen_addresses 127\.0\.0\.1$/);
    has(/pg_conftool \S+ main set port 5432$/);
    has(/sed -i 1i .*host all all 127\.0\.0\.1\/32 trust .*pg_hba\.conf$/);
    has(/(pg_ctlcluster --skip-systemctl-redirect \S+ main restart|systemctl restart postgresql@)/);
    has(/psql -p 5432 .* -c CREATE ROLE "[^"]+" LOGIN CREATEDB$/);
    has(/psql -p 5432 .* -c CREATE DATABASE test OWNER "[^"]+"$/);
    if (fs.existsSync('/run/systemd/system')) {
      has(/jetstream \{ store_dir: \/var\/lib\/nats-server \}/);
      has(/systemctl restart nats-server$/);
    } else {
      has(/start-stop-daemon --start --oknodo --background --exec \S*nats-server -- -a 127\.0\.0\.1 -p 4222 -js -sd \/var\/lib\/nats-server/);
    }
    expect(r.err).toContain('(dry run) then: PostgreSQL');
    expect(r.err).toContain('(dry run) then: NATS: running on 127.0.0.1:4222 with JetStream');
  });

  it('plans to install Debian\'s postgresql package when PostgreSQL is not installed', () => {
    // A PATH holding the script's tools but not PostgreSQL's: as on a fresh machine.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'setup-path-'));
    try {
      for (const tool of ['bash', 'timeout', 'ls', 'sort', 'tail', 'head', 'id', 'sed', 'grep', 'seq', 'sleep', 'dirname', 'cat', 'env']) {
        const found = ['/usr/bin', '/bin'].map((d) => path.join(d, tool)).find((f) => fs.existsSync(f));
        if (found) fs.symlinkSync(found, path.join(bin, tool));
      }
      const r = setup(['--services-only', '--dry-run', '--assume-unreachable'], { ...process.env, PATH: bin });
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/would run: (sudo )?apt-get update -qq\n/);
      expect(r.out).toMatch(/would run: (sudo )?env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql\n/);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  it('refuses to act as if services were down, and unknown options', () => {
    const acting = setup(['--services-only', '--assume-unreachable']);
    expect(acting.code).toBe(2);
    expect(acting.err).toContain('only plans');
    const unknown = setup(['--fast']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown option --fast');
  });
});
