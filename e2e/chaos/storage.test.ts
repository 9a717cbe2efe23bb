/**
 * `npm run chaos` (also run by `npm test`): the proof of issue 15 through the real executables. See
 * harness.ts for what each scenario does. Every assertion holds whatever the random kills hit and
 * however slow the machine is: the interleavings that matter (a writer stopped inside its critical
 * section for longer than the old 10 s stale timeout) are forced, not hoped for.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runFullDisk, runMcpFrames, runStorageChaos } from './harness.js';

const SEED = Number(process.env.HEIMDALL_CHAOS_SEED ?? 15);

describe('chaos', () => {
  it('needs the built CLI (npm run chaos builds it)', () => {
    expect(fs.existsSync(path.join(ROOT, 'dist', 'cli', 'main.js')), 'dist/cli/main.js is missing: run node scripts/build-cli.mjs').toBe(true);
  });

  it('16 writers on every state file, random SIGKILLs, kills inside locks, a writer stopped 11 s inside its lock: nothing acknowledged is lost', async () => {
    const r = await runStorageChaos({ seed: SEED, log: (m) => console.log(`chaos: ${m}`) });
    console.log(`chaos storage (seed ${SEED}): ${JSON.stringify({ acknowledged: r.acknowledged, kept: r.keptOfAcknowledged, randomKills: r.randomKills, lockKills: r.lockKills, slow: r.slowWriter, seconds: r.seconds })}`);
    expect(r.lost).toEqual([]);
    expect(r.keptOfAcknowledged).toBe(r.acknowledged);
    expect(r.acknowledged).toBeGreaterThan(150);
    // The stopped writer kept its lock however long it slept, and its update survived with everyone else's.
    expect(r.slowWriter).toMatchObject({ exit: 0, kept: true, audited: true });
    expect(r.unparseable).toEqual([]);
    expect(r.leftovers).toEqual([]);
    expect(r.unaudited).toEqual([]);
    expect(r.unclearFailures).toEqual([]);
    expect(r.builtinForeign).toEqual([]);
    expect(r.hostile.filter((h) => !h.ok)).toEqual([]);
    for (const [kind, f] of Object.entries(r.byKind)) expect(f.keptOfAcknowledged, kind).toBe(f.acknowledged);
  });

  it('a full disk (tmpfs ENOSPC when mountable, ulimit -f EFBIG always): every failed write says why and changes nothing', async () => {
    const results = await runFullDisk();
    console.log(`chaos full disk: ${JSON.stringify(results)}`);
    expect(results.map((r) => r.mode)).toContain('ulimit -f (EFBIG)');
    for (const r of results) {
      expect(r.keptOfAcknowledged, r.mode).toBe(r.acknowledged);
      expect(r.failed, `${r.mode}: the limit was never reached`).toBeGreaterThan(0);
      expect(r.failedWithReason, r.mode).toBe(r.failed);
      expect(r.unparseable, r.mode).toEqual([]);
      expect(r.leftovers, r.mode).toEqual([]);
    }
  });

  it('10,000 MCP frames (valid calls, malformed JSON, absurd Content-Length, deep JSON, notifications): every request answered once, in order', async () => {
    const r = await runMcpFrames({ frames: 10_000 });
    console.log(`chaos MCP: ${JSON.stringify(r)}`);
    expect(r.serverAlive).toBe(true);
    expect(r.missing).toBe(0);
    expect(r.duplicates).toBe(0);
    expect(r.outOfOrder).toBe(0);
    expect(r.answered).toBe(r.requests);
    expect(r.parseErrors).toBeGreaterThan(1000);
    expect(r.claimsKept).toBe(r.claimsAcknowledged);
    expect(r.claimsAcknowledged).toBeGreaterThan(100);
  });
});
