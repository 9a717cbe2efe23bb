/**
 * The CSP benchmark's inputs are fair and its output is what bench-all expects: every encoding
 * carries the fields it claims to, and the section has the promised tables.
 */
import { describe, expect, it } from 'vitest';
import cspBench, { generatedMessages, prose } from '../../../bench/csp.bench.js';
import { o200kTokenizer } from '../tokens/tokenizer.js';
import { formatCsp } from './format.js';
import { parseCsp } from './parse.js';

describe('bench/csp.bench.ts', () => {
  it('generates 50 valid task/result/error messages, the same on every call', () => {
    const a = generatedMessages();
    expect(a).toHaveLength(50);
    expect(new Set(a.map((m) => m.body.intent))).toEqual(new Set(['TASK', 'RESULT', 'ERROR']));
    for (const m of a) expect(parseCsp(formatCsp(m))).toEqual({ ok: true, message: m });
    expect(generatedMessages()).toEqual(a);
  });

  it('writes every field value of a message into its prose (the comparison is like for like)', () => {
    for (const m of generatedMessages()) {
      const text = prose(m);
      // STATUS is said in words; every other value appears as written.
      const status: Record<string, string> = { OK: 'is done', PARTIAL: 'is partly done', FAIL: 'failed' };
      const values = [m.from, m.to, m.ctx, ...Object.entries(m.body).flatMap(([k, v]) => (k === 'intent' ? [] : k === 'status' ? [status[v as string] as string] : Array.isArray(v) ? v : [String(v)]))];
      for (const v of values) expect(text, `${v} missing from: ${text}`).toContain(v);
    }
  });

  it('returns the Markdown section with token and speed tables', async () => {
    const md = await cspBench({ root: process.cwd(), runs: 5, reps: 2 });
    expect(md.startsWith('## CSP/1 encodings\n')).toBe(true);
    expect(md).toContain(o200kTokenizer.name);
    const all = /\| all \| 58 \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \|/.exec(md);
    expect(all).not.toBeNull();
    const seedRow = /\| seed examples \| 8 \| ([\d,]+) \|/.exec(md);
    const gen = /\| generated task\/result\/error \| 50 \| ([\d,]+) \|/.exec(md);
    const n = (s: string | undefined) => Number((s ?? '').replace(/,/g, ''));
    expect(n(seedRow?.[1]) + n(gen?.[1])).toBe(n(all?.[1]));
    expect(n(gen?.[1])).toBe(generatedMessages().reduce((k, m) => k + o200kTokenizer.count(formatCsp(m)), 0));
    expect(md).toMatch(/\| `parseCsp` .* \| [\d,]+ \|/);
  });
});
