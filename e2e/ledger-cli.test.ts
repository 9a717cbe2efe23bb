/**
 * `heimdall-ledger report` and `delta` per run, through the bundled executables: two demo runs are
 * each compared with their own v1 lines, the default is the latest run, lines logged by hand keep
 * the spec's delta line against baselines.json, and a run's arms can be logged from the shell.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, tmpDir, tmpPlanning } from '../server/testing/fixtures.js';

interface Report {
  run: string | null;
  workspace: string;
  kind?: string;
  baseline: string;
  compared_with: string;
  tokenizer: string;
  arms: Record<string, string>;
  roles: { role: string; tokens: number; baseline?: number; lean?: number; pct?: number; saved_pct?: number }[];
  runs: { run: string; saved: Record<string, number> }[];
}

function tree() {
  const planning = tmpPlanning();
  const run = (name: string, args: string[], env: Record<string, string> = {}) => runBin(name, args, { planning, env });
  const json = <T>(args: string[]) => JSON.parse(run('heimdall-ledger', [...args, '--json']).stdout) as T;
  return { planning, run, json };
}

describe('heimdall-ledger report and delta, per run', () => {
  it('compares each demo run with its own v1 texts and shows the latest by default', () => {
    const t = tree();
    const a = JSON.parse(t.run('heimdall-protocol', ['demo', '--json'], { HEIMDALL_NOW: '2026-06-11T10:00:00Z' }).stdout);
    const b = JSON.parse(t.run('heimdall-protocol', ['demo', '--json'], { HEIMDALL_NOW: '2026-06-11T11:00:00Z' }).stdout);
    const latest = t.json<Report>(['report']);
    expect(latest).toMatchObject({ run: b.run, kind: 'demo', workspace: 'exchange-lob', baseline: 'run' });
    expect(latest.arms.v1).toMatch(/restated into each of 3 briefs/);
    // Each run: its own v1 total against its own v2 total, the demo's own figures; never the sum of both.
    for (const d of [a, b]) {
      const r = t.json<Report>(['report', '--run', d.run]);
      expect(r.roles).toEqual([expect.objectContaining({ role: 'orchestration', baseline: d.v1.total, tokens: d.v2.total, pct: d.pct, saved_pct: -d.pct })]);
      expect(t.run('heimdall-ledger', ['delta', '--role', 'orchestration', '--run', d.run]).stdout).toBe(`orchestration: ${d.v1.total} -> ${d.v2.total} tokens (v1 baseline -> measured; ${d.pct}%)\n`);
    }
    expect(latest.runs.map((r) => r.run)).toEqual([b.run, a.run]);
    // The demo no longer writes baselines.json: its baseline is its own v1 lines.
    expect(t.run('heimdall-ledger', ['delta', '--role', 'orchestration', '--run', '-']).code).toBe(1);
    const text = t.run('heimdall-ledger', ['report']).stdout;
    expect(text).toContain(`${b.run} · demo, exchange-lob`);
    expect(text).toContain('Each role against the v1 lines of this run');
    expect(text).toMatch(new RegExp(`orchestration\\t7\\t${b.v2.total}\\t${b.v1.total}\\t${b.pct}%`));
  });

  it('keeps the spec line for lines logged by hand against baselines.json (--run -), beside a run', () => {
    const t = tree();
    t.run('heimdall-protocol', ['demo'], { HEIMDALL_NOW: '2026-06-11T10:00:00Z' });
    const env = { HEIMDALL_NOW: '2026-06-11T12:00:00Z' };
    t.run('heimdall-ledger', ['log', '--role', 'orchestration', '--kind', 'delta_brief', '--tokens', '3300', '--msg-id', 'b1'], env);
    t.run('heimdall-ledger', ['log', '--role', 'orchestration', '--kind', 'delta_brief', '--tokens', '7950', '--msg-id', 'b2'], env);
    t.run('heimdall-ledger', ['baseline', '--role', 'orchestration', '--tokens', '41000']);
    expect(t.run('heimdall-ledger', ['delta', '--role', 'orchestration']).stdout).toBe('orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)\n');
    const r = t.json<Report>(['report', '--run', '-']);
    expect(r).toMatchObject({ run: '-', baseline: 'workspace' });
    expect(r.compared_with).toMatch(/baselines\.json/);
  });

  it('logs a run arm by arm from the shell, and leaves out a role that has no measured line in it', () => {
    const t = tree();
    const log = (role: string, tokens: number, extra: string[]) => t.run('heimdall-ledger', ['log', '--role', role, '--kind', 'brief', '--msg-id', `${role}-${tokens}`, '--tokens', String(tokens), '--run', 'shell', ...extra]);
    expect(log('orchestration', 1000, ['--arm', 'v1', '--phase', '01-a', '--plan', '01-01']).code).toBe(0);
    expect(log('orchestration', 250, ['--phase', '01-a', '--plan', '01-01']).code).toBe(0);
    expect(log('coder', 40, ['--arm', 'v1']).code).toBe(0);
    t.run('heimdall-ledger', ['baseline', '--role', 'coder', '--tokens', '40']);
    const r = t.json<Report & { gsd?: { plans: { plan: string; v1: number; v2: number; saved_pct: number }[] } }>(['report', '--run', 'shell']);
    expect(r.roles.map((x) => x.role)).toEqual(['orchestration']);
    expect(r.roles[0]).toMatchObject({ baseline: 1000, tokens: 250, saved_pct: 75 });
    expect(r.gsd?.plans).toEqual([expect.objectContaining({ plan: '01-01', v1: 1000, v2: 250, saved_pct: 75 })]);
    const delta = t.run('heimdall-ledger', ['delta', '--role', 'coder', '--run', 'shell']);
    expect(delta.code).toBe(1);
    expect(delta.stderr).toMatch(/role coder has no measured lines in run shell/);
    // Bad input: an unknown arm, an arm without a run, an unknown run; nothing is written.
    const before = t.json<Report>(['report', '--run', 'shell']);
    const bad = t.run('heimdall-ledger', ['log', '--role', 'o', '--kind', 'k', '--msg-id', 'x', '--tokens', '1', '--run', 'shell', '--arm', 'v3']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--arm must be one of v1, lean, v2, got "v3"/);
    expect(t.run('heimdall-ledger', ['log', '--role', 'o', '--kind', 'k', '--msg-id', 'x', '--tokens', '1', '--arm', 'v1']).stderr).toMatch(/--arm needs --run/);
    const unknown = t.run('heimdall-ledger', ['report', '--run', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no run "nope" in the ledger; runs, newest first: shell/);
    expect(t.json<Report>(['report', '--run', 'shell'])).toEqual(before);
  });

  it('says the ledger is empty and names the real ways to measure', () => {
    const t = tree();
    expect(t.run('heimdall-ledger', ['report']).stdout).toMatch(/heimdall bench gsd \. --record/);
    expect(t.json<Report>(['report'])).toMatchObject({ run: null, roles: [] });
  });
});
