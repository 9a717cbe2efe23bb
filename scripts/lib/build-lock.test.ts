import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the build scripts, without types
import { withBuildLock } from './build-lock.mjs';

const lockOf = (name: string, root: string) => {
  return path.join(os.tmpdir(), `heimdall-${name}-${createHash('sha1').update(root).digest('hex').slice(0, 12)}.lock`);
};

describe('the build lock of the scripts', () => {
  it('runs the function holding the lock and removes only its own lock', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bl-'));
    const lock = lockOf('t', root);
    const seen = withBuildLock('t', root, () => fs.readFileSync(lock, 'utf8'));
    expect(seen).toBe(String(process.pid));
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('takes over a dead holder, and gives up on a live one naming it', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bl-'));
    const lock = lockOf('t', root);
    // A dead holder: a process that has exited.
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    fs.writeFileSync(lock, String(dead.pid));
    expect(withBuildLock('t', root, () => 'ran')).toBe('ran');
    // A live holder (a sleeping child) is waited for, then named when the wait ends.
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      fs.writeFileSync(lock, String(live.pid));
      const messages: string[] = [];
      expect(() => withBuildLock('t', root, () => 'never', { timeoutMs: 0, pollMs: 1, onTimeout: (m: string) => messages.push(m) })).toThrow(`pid ${live.pid}`);
      expect(messages[0]).toContain(`another build (pid ${live.pid}) holds`);
      expect(fs.readFileSync(lock, 'utf8')).toBe(String(live.pid));
    } finally {
      live.kill();
      fs.rmSync(lock, { force: true });
    }
  });
});
