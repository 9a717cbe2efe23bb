/**
 * The gate adapter: the only component that reads a gate's report.json. It reads the gate-agnostic
 * fields only (gate_id, status, wave) and emits a gate_report message that references the report by
 * path, never inlining its body, so a change to the report contract is contained here.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { logAction } from '../log/protocolLog.js';
import { parseJsonFile, readTextFile } from '../planning/fsx.js';
import { validateMessage } from '../messages/validate.js';

export interface GateMessage {
  type: 'gate_report';
  from: string;
  msg_id: string;
  gate_id: string;
  status: 'pass' | 'fail';
  wave?: number | string;
  report_ref: string;
}

export function gateToMessage(ctx: Ctx, opts: { report: string; from: string; msgId: string }): GateMessage {
  const text = readTextFile(opts.report, `--report ${opts.report}`);
  if (text === undefined) throw new HeimdallError('environment', `gate report not found: ${opts.report}`);
  const data = parseJsonFile(opts.report, text);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new HeimdallError('invalid', `${opts.report} must be a JSON object with gate_id, status and (optionally) wave`);
  }
  const r = data as Record<string, unknown>;
  if (typeof r.gate_id !== 'string' || r.gate_id === '') throw new HeimdallError('invalid', `${opts.report}: "gate_id" must be a non-empty string`);
  if (r.status !== 'pass' && r.status !== 'fail') {
    throw new HeimdallError('invalid', `${opts.report}: "status" must be "pass" or "fail", got ${JSON.stringify(r.status)}`);
  }
  const msg: GateMessage = { type: 'gate_report', from: opts.from, msg_id: opts.msgId, gate_id: r.gate_id, status: r.status, report_ref: opts.report };
  if (typeof r.wave === 'number' || typeof r.wave === 'string') msg.wave = r.wave;
  const v = validateMessage(msg);
  if (!v.valid) throw new HeimdallError('invalid', `the gate_report would be invalid: ${v.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`);
  logAction(ctx, 'gate', 'to-message', `${msg.gate_id} ${msg.status} -> ${msg.msg_id} (ref ${opts.report})`);
  return msg;
}
