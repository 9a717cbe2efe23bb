/**
 * `heimdall studio`'s refusals, in process. Serving itself is tested on the installed package
 * (e2e/install.int.test.ts), where the prebuilt Studio it serves exists.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCtx } from '../../core/context.js';
import { memoryIo } from '../io.js';
import { main } from '../main.js';
import { findStudioBuild } from './studio.js';

let work: string;

beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-cli-'));
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

async function run(args: string[], root = path.join(work, '.planning')) {
  const io = memoryIo();
  const code = await main('heimdall', ['studio', ...args], io, () => makeCtx(root));
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

describe('heimdall studio', () => {
  it('refuses a port out of range, an unknown option and an empty host, with its usage', async () => {
    for (const args of [['--port', '70000'], ['--port', '-1'], ['--port', 'x'], ['--bind', '0.0.0.0'], ['--host', ' ']]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toContain('usage: heimdall studio');
    }
  });

  it('says to run heimdall init when there is no planning tree', async () => {
    const r = await run(['--port', '0']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`no planning tree at ${path.join(work, '.planning')}`);
    expect(r.err).toContain('heimdall init');
  });

  it('names a taken port instead of failing with a stack', async () => {
    fs.mkdirSync(path.join(work, '.planning'));
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (busy.address() as net.AddressInfo).port;
      const r = await run(['--port', String(port)]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`port ${port} on 127.0.0.1 is in use`);
      expect(r.err).not.toMatch(/^\s+at /m);
    } finally {
      busy.close();
    }
  });

  it('finds the prebuilt Studio of the installation it belongs to, and nothing elsewhere', () => {
    expect(findStudioBuild(work)).toBeUndefined();
    const fake = path.join(work, 'pkg');
    fs.mkdirSync(path.join(fake, 'dist', 'studio', '.next-package'), { recursive: true });
    fs.mkdirSync(path.join(fake, 'dist', 'chunks'), { recursive: true });
    fs.writeFileSync(path.join(fake, 'dist', 'studio', '.next-package', 'required-server-files.json'), '{"config":{}}');
    expect(findStudioBuild(path.join(fake, 'dist', 'chunks'))).toBe(path.join(fake, 'dist', 'studio'));
  });
});
