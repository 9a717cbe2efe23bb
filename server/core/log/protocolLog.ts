/**
 * protocol.log: one plain-text, tab-separated line per action,
 * `ISO-8601-UTC<TAB>mechanism<TAB>action<TAB>detail[<TAB>author]`. Nothing is encoded beyond escaping
 * tabs and newlines inside fields, so a person can read it with `tail`.
 *
 * The optional fifth field is the author: the HAID of the agent or person the write was made for
 * (`ctx.actor`, set by the transport that knows the caller: an MCP session, Studio's operator, a CLI
 * run with HEIMDALL_AGENT). Lines without it are the seed's four-field lines and still parse; fields
 * are escaped, so a raw tab can only ever separate fields.
 */
import type { Ctx } from '../context.js';
import { type Audit, appendLine, readLines } from '../planning/fsx.js';
import { escapeField, unescapeField } from '../planning/escape.js';
import { isoSeconds } from '../ports.js';

export interface LogEntry {
  ts: string;
  mechanism: string;
  action: string;
  detail: string;
  /** 1-based line number in protocol.log. */
  line: number;
  /** Who the write was made for (a HAID), when the transport knew. */
  author?: string;
}

export function formatLogLine(ts: string, mechanism: string, action: string, detail: string, author?: string): string {
  const fields = [ts, escapeField(mechanism), escapeField(action), escapeField(detail)];
  if (author !== undefined && author !== '') fields.push(escapeField(author));
  return fields.join('\t');
}

/** Append one action to protocol.log, attributed to `ctx.actor` when the caller is known. */
export function logAction(ctx: Ctx, mechanism: string, action: string, detail: string): void {
  appendLine(ctx.paths.protocolLog, formatLogLine(isoSeconds(ctx.clock.now()), mechanism, action, detail, ctx.actor));
}

/**
 * The protocol.log line of a state change, to hand to the write that makes the change: the state
 * and its line are then committed together (planning/fsx.ts), and a writer killed in between has
 * its line added by the next writer of that file.
 */
export function auditEntry(ctx: Ctx, mechanism: string, action: string, detail: string): Audit {
  return auditEntries(ctx, [[mechanism, action, detail]]);
}

/** Several protocol.log lines committed with one state change (e.g. a dispatch and its re-route). */
export function auditEntries(ctx: Ctx, entries: Array<[mechanism: string, action: string, detail: string]>): Audit {
  const ts = isoSeconds(ctx.clock.now());
  return { log: ctx.paths.protocolLog, lines: entries.map(([m, a, d]) => formatLogLine(ts, m, a, d, ctx.actor)) };
}

export function parseLogLine(text: string, line: number): LogEntry {
  const [ts = '', mechanism = '', action = '', detail = '', author, ...extra] = text.split('\t');
  const entry: LogEntry = {
    ts,
    mechanism: unescapeField(mechanism),
    action: unescapeField(action),
    // A hand-written line may carry raw tabs beyond the fifth field: keep them in the detail's tail
    // rather than dropping text.
    detail: unescapeField(extra.length ? [detail, author ?? '', ...extra].join('\t') : detail),
    line,
  };
  if (author !== undefined && author !== '' && extra.length === 0) entry.author = unescapeField(author);
  return entry;
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
