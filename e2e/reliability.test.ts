/**
 * Storage guarantees under concurrency and damage, with real processes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, runConcurrently, tmpDir, tmpPlanning } from '../server/testing/fixtures.js';

describe('reliability', () => {
  it('16 processes setting distinct symbols at once keep all 16', async () => {
    const planning = tmpPlanning();
    runBin('heimdall-protocol', ['init'], { planning });
    const results = await runConcurrently(16, (i) => ({ name: 'heimdall-resolve', args: ['set', `S${i}`, `src/file${i}.ts`] }), planning);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const symbols = JSON.parse(fs.readFileSync(path.join(planning, 'protocol/symbols.json'), 'utf8')).symbols;
    expect(Object.keys(symbols)).toHaveLength(16);
    for (let i = 0; i < 16; i++) expect(symbols[`S${i}`]).toBe(`src/file${i}.ts`);
    const log = fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8').trim().split('\n');
    expect(log.filter((l) => l.includes('\tresolve\tset\t'))).toHaveLength(16);
  });

  it('16 processes logging to the ledger at once leave 16 whole lines', async () => {
    const planning = tmpPlanning();
    const results = await runConcurrently(
      16,
      (i) => ({ name: 'heimdall-ledger', args: ['log', '--role', 'coder', '--kind', 'task_result', '--tokens', String(100 + i), '--msg-id', `m${i}`] }),
      planning,
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const lines = fs.readFileSync(path.join(planning, 'protocol/ledger.jsonl'), 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(16);
    const tokens = lines.map((l) => JSON.parse(l).tokens).sort((a, b) => a - b);
    expect(tokens).toEqual(Array.from({ length: 16 }, (_, i) => 100 + i));
  });

  it('a hand-corrupted symbols.json makes commands fail naming the file, and leaves it untouched', () => {
    const planning = tmpPlanning();
    runBin('heimdall-protocol', ['init'], { planning });
    const file = path.join(planning, 'protocol/symbols.json');
    const broken = '{"version":"2.0.0","symbols":{"F1":"a",,}}';
    fs.writeFileSync(file, broken);
    for (const args of [['F1'], ['set', 'F2', 'b'], ['list'], ['--reverse', 'a']]) {
      const r = runBin('heimdall-resolve', args, { planning });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`${file} is not valid JSON at line 1`);
    }
    expect(runBin('heimdall-protocol', ['init'], { planning }).code).toBe(2);
    expect(fs.readFileSync(file, 'utf8')).toBe(broken);
  });

  it('a torn last line in ledger.jsonl is reported, not fatal', () => {
    const planning = tmpPlanning();
    runBin('heimdall-ledger', ['log', '--role', 'o', '--kind', 'k', '--tokens', '10', '--msg-id', 'a'], { planning });
    runBin('heimdall-ledger', ['baseline', '--role', 'o', '--tokens', '40'], { planning });
    fs.appendFileSync(path.join(planning, 'protocol/ledger.jsonl'), '{"role":"o","kind":"k","tok');
    const r = runBin('heimdall-ledger', ['delta', '--role', 'o'], { planning });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('o: 40 -> 10 tokens (v1 baseline -> measured; -75%)\n');
    expect(r.stderr).toMatch(/ledger\.jsonl line 2 is cut short/);
  });

  it('a state file from a newer major version is refused with a clear error', () => {
    const planning = tmpPlanning();
    fs.mkdirSync(planning, { recursive: true });
    fs.writeFileSync(path.join(planning, 'blackboard.json'), JSON.stringify({ version: '3.1.0', facts: { dev_port: '5173' } }));
    const r = runBin('heimdall-blackboard', ['get', 'dev_port'], { planning });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/written by protocol version 3\.1\.0, newer than this heimdall \(2\.0\.0\); upgrade heimdall/);
  });

  it('HEIMDALL_PLANNING_DIR isolates trees', () => {
    const a = path.join(tmpDir(), 'a');
    const b = path.join(tmpDir(), 'b');
    for (const d of [a, b]) fs.mkdirSync(d);
    runBin('heimdall-blackboard', ['set', 'k', 'A'], { planning: a });
    runBin('heimdall-blackboard', ['set', 'k', 'B'], { planning: b });
    expect(runBin('heimdall-blackboard', ['get', 'k'], { planning: a }).stdout).toBe('A\n');
    expect(runBin('heimdall-blackboard', ['get', 'k'], { planning: b }).stdout).toBe('B\n');
  });
});
