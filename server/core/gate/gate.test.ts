import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpCtx, tmpDir } from '../../testing/fixtures.js';
import { validateMessage } from '../messages/validate.js';
import { gateToMessage } from './gate.js';

function report(body: unknown): string {
  const file = path.join(tmpDir(), 'report.json');
  fs.writeFileSync(file, JSON.stringify(body));
  return file;
}

describe('gate adapter', () => {
  it('emits a valid gate_report that references the report by path, never its body', () => {
    const ctx = tmpCtx();
    const file = report({ gate_id: 'exchange-lob', status: 'pass', wave: 3, metrics: { p99_ms: 1.6, SECRET_METRIC_BODY: 'do-not-inline' } });
    const m = gateToMessage(ctx, { report: file, from: 'sentinel-bloat', msgId: 'g1' });
    expect(m).toEqual({ type: 'gate_report', from: 'sentinel-bloat', msg_id: 'g1', gate_id: 'exchange-lob', status: 'pass', wave: 3, report_ref: file });
    expect(validateMessage(m).valid).toBe(true);
    expect(JSON.stringify(m)).not.toContain('SECRET_METRIC_BODY');
    expect(JSON.stringify(m)).not.toContain('p99_ms');
  });

  it('refuses reports without the gate-agnostic fields', () => {
    const ctx = tmpCtx();
    expect(() => gateToMessage(ctx, { report: report({ status: 'pass' }), from: 'a', msgId: 'g' })).toThrow(/"gate_id" must be a non-empty string/);
    expect(() => gateToMessage(ctx, { report: report({ gate_id: 'x', status: 'green' }), from: 'a', msgId: 'g' })).toThrow(/"status" must be "pass" or "fail"/);
    expect(() => gateToMessage(ctx, { report: '/nonexistent/report.json', from: 'a', msgId: 'g' })).toThrow(/gate report not found/);
    const broken = path.join(tmpDir(), 'r.json');
    fs.writeFileSync(broken, '{"gate_id": ');
    expect(() => gateToMessage(ctx, { report: broken, from: 'a', msgId: 'g' })).toThrow(/is not valid JSON/);
  });
});
