/**
 * protocol.log: one plain-text, tab-separated line per action,
 * `ISO-8601-UTC<TAB>mechanism<TAB>action<TAB>detail`. Nothing is encoded beyond escaping tabs and
 * newlines inside fields, so a person can read it with `tail`.
 */
import type { Ctx } from '../context.js';
import { appendLine, readLines } from '../planning/fsx.js';
import { escapeField, unescapeField } from '../planning/escape.js';
import { isoSeconds } from '../ports.js';

export interface LogEntry {
  ts: string;
  mechanism: string;
  action: string;
  detail: string;
  /** 1-based line number in protocol.log. */
  line: number;
}

export function formatLogLine(ts: string, mechanism: string, action: string, detail: string): string {
  return [ts, escapeField(mechanism), escapeField(action), escapeField(detail)].join('\t');
}

/** Append one action to protocol.log. */
export function logAction(ctx: Ctx, mechanism: string, action: string, detail: string): void {
  appendLine(ctx.paths.protocolLog, formatLogLine(isoSeconds(ctx.clock.now()), mechanism, action, detail));
}

export function parseLogLine(text: string, line: number): LogEntry {
  const [ts = '', mechanism = '', action = '', ...rest] = text.split('\t');
  return {
    ts,
    mechanism: unescapeField(mechanism),
    action: unescapeField(action),
    detail: unescapeField(rest.join('\t')),
    line,
  };
}

export interface LogTail {
  entries: LogEntry[];
  total: number;
  /** Set when the last line was cut short (a writer died mid-line); it is reported, not parsed. */
  tornLine?: number;
}

/** The last `n` entries of protocol.log (all of them when n is undefined), oldest first. */
export function tailLog(ctx: Ctx, n?: number): LogTail {
  const { lines, torn } = readLines(ctx.paths.protocolLog);
  const start = n === undefined ? 0 : Math.max(0, lines.length - n);
  const entries: LogEntry[] = [];
  for (let i = start; i < lines.length; i++) entries.push(parseLogLine(lines[i] as string, i + 1));
  return { entries, total: lines.length, tornLine: torn?.lineNumber };
}
