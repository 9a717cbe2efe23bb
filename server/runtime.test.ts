/**
 * The composition root: the tree it finds, the context it refuses to hand out without one, the wire
 * log and read model it opens once and serialises, and the caller it resolves.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCtx } from './core/context.js';
import { rootHaid } from './core/identity/registry.js';
import { createRuntime } from './runtime.js';
import { thrown, tmpDir } from './testing/fixtures.js';

function env(extra: Record<string, string> = {}) {
  return { HEIMDALL_CEILING_DIRECTORIES: path.dirname(fs.realpathSync(tmpDir())), ...extra };
}

describe('createRuntime', () => {
  it('without a tree it hands out no context (only ctxAt, for init and the demo), and creates nothing', () => {
    const dir = fs.realpathSync(tmpDir());
    const rt = createRuntime({ env: env(), cwd: dir });
    expect(rt.tree).toMatchObject({ root: path.join(dir, '.planning'), exists: false, source: 'none' });
    const e = thrown(() => rt.ctx);
    expect(e.code).toBe('environment');
    expect(e.message).toMatch(/no planning tree/);
    expect(rt.ctxAt(rt.tree.root).root).toBe(rt.tree.root);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('opens the wire log once per process, serialises exclusive work, and closes what it opened', async () => {
    const root = path.join(tmpDir(), '.planning');
    fs.mkdirSync(root);
    const rt = createRuntime({ env: env({ HEIMDALL_PLANNING_DIR: root, HEIMDALL_WIRE_FSYNC: '0' }) });
    const a = await rt.wireLog();
    expect(await rt.wireLog()).toBe(a);
    // Two exclusive jobs: the second starts only after the first has finished, whatever the timing.
    const order: string[] = [];
    let release!: () => void;
    let started!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const running = new Promise<void>((r) => {
      started = r;
    });
    const first = rt.exclusive(async ({ log }) => {
      order.push('first start');
      expect(log).toBe(a);
      started();
      await gate;
      order.push('first end');
    });
    const second = rt.exclusive(async () => {
      order.push('second');
    });
    await running;
    expect(order).toEqual(['first start']); // the second waits for the first to finish
    await Promise.resolve();
    expect(order).toEqual(['first start']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first start', 'first end', 'second']);
    // A failed job does not stop the next one.
    await expect(rt.exclusive(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await rt.exclusive(async () => 'next')).toBe('next');
    await rt.close();
    await rt.close(); // idempotent
  });

  it('a wire log that cannot be opened is reported, and tried again on the next use', async () => {
    const root = path.join(tmpDir(), '.planning');
    fs.mkdirSync(root);
    const rt = createRuntime({ env: env({ HEIMDALL_PLANNING_DIR: root, HEIMDALL_STREAM_URL: 'http://nope' }) });
    for (let i = 0; i < 2; i++) expect((await rt.tryWireLog()).problem).toMatch(/HEIMDALL_STREAM_URL must be a nats:\/\/ URL/);
    await rt.close();
  });

  it('resolves the caller in its own environment: HEIMDALL_AGENT names the agent, and actingAs authors its writes', async () => {
    const root = path.join(tmpDir(), '.planning');
    fs.mkdirSync(root);
    const rt = createRuntime({ env: env({ HEIMDALL_PLANNING_DIR: root, HEIMDALL_AGENT: 'mason.1@core' }) });
    const me = await rt.identify({ otherwise: { fallback: 'cli', known: false } });
    const r = rootHaid(makeCtx(root));
    expect(me).toMatchObject({ haid: `${r}/core/mason.1`, address: 'mason.1@core', source: 'HEIMDALL_AGENT', known: true });
    expect(rt.actingAs(me).actor).toBe(me.haid);
    const plain = await rt.identify({ env: {}, otherwise: { fallback: 'cli', known: false } });
    expect(plain).toMatchObject({ haid: `${r}/cli`, known: false });
    expect(rt.actingAs(plain).actor).toBeUndefined();
  });
});
