import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeCapsule } from '../capsules/capsules.js';
import { makeClaim } from '../claims/claims.js';
import { makeCtx } from '../context.js';
import { rootHaid } from '../identity/registry.js';
import { tailLog } from '../log/protocolLog.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { completedDir, readLedgerCapsules } from './capsules.js';
import { conflictsDir, raiseConflictPr } from './conflicts.js';
import { appendDecision, decisionsFile, readDecisions } from './decisions.js';
import { thrown } from '../../testing/fixtures.js';

const T0 = Date.parse('2026-06-11T12:07:27Z');
const dirs: string[] = [];
function setup() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-dec-'));
  dirs.push(base);
  const dir = path.join(base, '.planning');
  const clock = fixedClock(T0);
  const ctx = makeCtx(dir, { clock, ids: sequentialIds('x') });
  const root = rootHaid(ctx);
  return { ctx, clock, a: `${root}/cursor`, b: `${root}/copilot` };
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('appendDecision', () => {
  it('appends HAID-attributed, timestamped entries; earlier bytes are never rewritten', () => {
    const { ctx, clock, a, b } = setup();
    const d1 = appendDecision(ctx, { haid: a, title: 'Use the v2 engine', body: 'Because it is faster.\n\nBenchmarks in bench/.' });
    expect(d1).toMatchObject({ id: 'D-0001', at: '2026-06-11T12:07:27Z', haid: a, path: '.planning/ledger/decisions.md' });
    const first = fs.readFileSync(decisionsFile(ctx), 'utf8');
    expect(first).toBe(
      `# Decisions\n\nAppend-only: each entry is attributed to a HAID and timestamped; earlier entries are never rewritten.\n\n## D-0001: Use the v2 engine\n- at: 2026-06-11T12:07:27Z\n- by: ${a}\n\n> Because it is faster.\n>\n> Benchmarks in bench/.\n`,
    );
    clock.advance(60_000);
    expect(appendDecision(ctx, { haid: b, title: 'Tabs', body: 'Two spaces.' }).id).toBe('D-0002');
    const second = fs.readFileSync(decisionsFile(ctx), 'utf8');
    expect(second.startsWith(first)).toBe(true);
    expect(readDecisions(ctx)).toEqual([
      { id: 'D-0001', title: 'Use the v2 engine', at: '2026-06-11T12:07:27Z', haid: a, body: 'Because it is faster.\n\nBenchmarks in bench/.' },
      { id: 'D-0002', title: 'Tabs', at: '2026-06-11T12:08:27Z', haid: b, body: 'Two spaces.' },
    ]);
    expect(tailLog(ctx).entries.filter((e) => e.mechanism === 'decision').map((e) => e.detail)).toEqual([
      `D-0001 by ${a}: Use the v2 engine`,
      `D-0002 by ${b}: Tabs`,
    ]);
  });

  it('a body cannot forge an entry heading', () => {
    const { ctx, a } = setup();
    appendDecision(ctx, { haid: a, title: 'Real', body: '## D-0099: Forged\n- by: someone' });
    expect(readDecisions(ctx).map((d) => d.id)).toEqual(['D-0001']);
    expect(appendDecision(ctx, { haid: a, title: 'Next', body: 'x' }).id).toBe('D-0002');
  });

  it.each([
    [{ title: '', body: 'b' }, /decision title value must be a non-empty string/],
    [{ title: 'a\nb', body: 'b' }, /one line/],
    [{ title: 't', body: '   ' }, /decision body must be non-empty text/],
    [{ title: 't', body: 'bell\u0007' }, /control characters/],
    [{ title: 't', body: 'x'.repeat(20_001) }, /at most 20000/],
  ])('refuses %j without touching the file', (input, re) => {
    const { ctx, a } = setup();
    const e = thrown(() => appendDecision(ctx, { haid: a, ...input }));
    expect(e.code).toBe('invalid');
    expect(e.message).toMatch(re);
    expect(fs.existsSync(decisionsFile(ctx))).toBe(false);
  });
});

describe('raiseConflictPr', () => {
  it('writes conflicts/{date}-{id}.md with both intents, surfaces and HAIDs; cross-links it from decisions.md; returns the path', () => {
    const { ctx, a, b } = setup();
    makeClaim(ctx, { haid: b, surfaces: ['src/engine/**'], task: 'T-3' });
    appendDecision(ctx, { haid: b, title: 'Engine owner', body: 'copilot owns the engine' });
    const pr = raiseConflictPr(ctx, {
      haid: a,
      id: 'engine-owner',
      title: 'Take over the engine',
      surfaces: ['src/engine/book.ts'],
      overridingIntent: 'Fix the crossing bug before the demo.',
    });
    expect(pr).toEqual({
      id: 'engine-owner',
      title: 'Take over the engine',
      path: '.planning/ledger/conflicts/2026-06-11-engine-owner.md',
      decision_id: 'D-0002',
      overriding: a,
      displaced: [{ haid: b, task_ref: `${b}:T-3` }],
      surfaces: ['src/engine/book.ts'],
      at: '2026-06-11T12:07:27Z',
    });
    const text = fs.readFileSync(path.join(conflictsDir(ctx), '2026-06-11-engine-owner.md'), 'utf8');
    expect(text).toContain(`- overriding: ${a}`);
    expect(text).toContain(`- displaced: ${b} (task_ref ${b}:T-3)`);
    expect(text).toContain('- surfaces: src/engine/book.ts');
    expect(text).toContain('- decision: D-0002 in [decisions.md](../decisions.md)');
    expect(text).toContain(`## Overriding intent (${a})\n\n> Fix the crossing bug before the demo.`);
    expect(text).toContain(`## Displaced intent (${b})\n\n> (not given; the displaced claim's task: ${b}:T-3)`);
    const decisions = readDecisions(ctx);
    expect(decisions[1]).toMatchObject({ id: 'D-0002', title: 'Conflict PR engine-owner: Take over the engine', haid: a });
    expect(decisions[1]?.body).toContain('[2026-06-11-engine-owner.md](conflicts/2026-06-11-engine-owner.md)');
    expect(tailLog(ctx).entries.at(-1)?.detail).toBe(`engine-owner by ${a} displacing ${b}: .planning/ledger/conflicts/2026-06-11-engine-owner.md`);
  });

  it('takes an explicit displaced HAID and intent', () => {
    const { ctx, a, b } = setup();
    const pr = raiseConflictPr(ctx, { haid: a, id: 'c1', title: 'T', surfaces: ['x'], displacedHaid: b, displacedIntent: 'was refactoring' });
    expect(pr.displaced).toEqual([{ haid: b }]);
    expect(fs.readFileSync(path.join(conflictsDir(ctx), '2026-06-11-c1.md'), 'utf8')).toContain('> was refactoring');
  });

  it('refuses a reused id (on any date), a path-like id, self-displacement and bad surfaces, writing nothing', () => {
    const { ctx, clock, a, b } = setup();
    raiseConflictPr(ctx, { haid: a, id: 'c1', title: 'T', surfaces: ['x'] });
    clock.advance(86_400_000);
    const reused = thrown(() => raiseConflictPr(ctx, { haid: a, id: 'c1', title: 'T', surfaces: ['x'] }));
    expect(reused.code).toBe('conflict');
    expect(reused.message).toContain('2026-06-11-c1.md');
    expect(thrown(() => raiseConflictPr(ctx, { haid: a, id: '../../etc/x', title: 'T', surfaces: ['x'] })).message).toMatch(/invalid conflict id/);
    expect(thrown(() => raiseConflictPr(ctx, { haid: a, id: 'c2', title: 'T', surfaces: ['x'], displacedHaid: a })).message).toMatch(/the caller itself/);
    expect(thrown(() => raiseConflictPr(ctx, { haid: a, id: 'c3', title: 'T', surfaces: ['/abs'] })).message).toMatch(/absolute paths/);
    expect(thrown(() => raiseConflictPr(ctx, { haid: a, id: 'c4', title: 'T', surfaces: ['x'], displacedHaid: 'Bad' })).message).toMatch(/invalid displaced_haid/);
    expect(fs.readdirSync(conflictsDir(ctx))).toEqual(['2026-06-11-c1.md']);
    expect(readDecisions(ctx)).toHaveLength(1);
    void b;
  });
});

describe('readLedgerCapsules', () => {
  it('reads ledger/completed/*.md and protocol/capsules/*.md, one by id or all', () => {
    const { ctx } = setup();
    fs.mkdirSync(completedDir(ctx), { recursive: true });
    fs.writeFileSync(path.join(completedDir(ctx), 'w1.md'), '# w1\nwhat: book diff\r\n');
    fs.writeFileSync(path.join(completedDir(ctx), 'not an id.md'), 'skipped');
    fs.writeFileSync(path.join(completedDir(ctx), 'notes.txt'), 'skipped');
    writeCapsule(ctx, 'w1', { what: 'LOB engine', where: 'F12' });
    writeCapsule(ctx, 'w2', { what: 'docs', where: 'README' });
    const all = readLedgerCapsules(ctx);
    expect(all.count).toBe(3);
    expect(all.capsules.map((c) => [c.source, c.id])).toEqual([
      ['completed', 'w1'],
      ['protocol', 'w1'],
      ['protocol', 'w2'],
    ]);
    expect(all.capsules[0]?.text).toBe('# w1\nwhat: book diff\n');
    expect(readLedgerCapsules(ctx, 'w2')).toEqual({ count: 1, capsules: [{ id: 'w2', source: 'protocol', text: '# w2\nwhat: docs\nwhere: README\n' }] });
    expect(thrown(() => readLedgerCapsules(ctx, 'w9')).code).toBe('not_found');
    expect(thrown(() => readLedgerCapsules(ctx, '../secret')).message).toMatch(/invalid capsule id/);
  });
  it('is empty when neither folder exists', () => {
    expect(readLedgerCapsules(setup().ctx)).toEqual({ capsules: [], count: 0 });
  });
});
