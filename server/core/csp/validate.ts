/**
 * The seed's VALIDATION checklist. A valid CSP message must have: the CSP/1 header, FROM/TO agents,
 * a CTX reference, an INTENT type and a matching body block. The parser finds the problems; this
 * module sorts them under the checklist item they break, so a person sees which box is unticked.
 */
import { parseCsp } from './parse.js';
import type { CspDocument, CspDocumentKind, CspError } from './types.js';

export const CHECKLIST = ['CSP/1 header', 'FROM/TO agents', 'CTX reference', 'INTENT type', 'Matching body block'] as const;
export type ChecklistItem = (typeof CHECKLIST)[number];

export interface CspCheckedError extends CspError {
  check: ChecklistItem;
}

export interface CspValidation {
  valid: boolean;
  /** The kind of document the text is, when it parsed. */
  kind?: CspDocumentKind;
  /** Each checklist item and whether it holds; empty for non-message documents accepted with `any`. */
  checklist: { item: ChecklistItem; ok: boolean }[];
  errors: CspCheckedError[];
  /** The parsed document when valid. */
  message?: CspDocument;
}

function checkOf(e: CspError): ChecklistItem {
  if (e.line === 1 && /header/.test(e.expected)) return 'CSP/1 header';
  const m = /^(?:line \d of a message: )?(FROM|TO|CTX|INTENT)\b/.exec(e.expected);
  if (m) return m[1] === 'CTX' ? 'CTX reference' : m[1] === 'INTENT' ? 'INTENT type' : 'FROM/TO agents';
  return 'Matching body block';
}

/**
 * Validate one CSP text against the checklist. By default only a full message passes (a bare body,
 * a DEF/LAWS block or a template is not a message); with `any` every CSP document kind is accepted.
 * Never throws.
 */
export function validateCsp(text: unknown, opts: { any?: boolean } = {}): CspValidation {
  const r = parseCsp(text);
  if (r.ok) {
    const kind = r.message.kind;
    if (kind === 'message') return { valid: true, kind, checklist: CHECKLIST.map((item) => ({ item, ok: true })), errors: [], message: r.message };
    if (opts.any) return { valid: true, kind, checklist: [], errors: [], message: r.message };
    const missing: CspCheckedError = {
      line: 1,
      expected: `a message starting with the header line CSP/1 (this text is a valid ${kind === 'body' ? 'bare body block' : kind === 'context' ? 'DEF/LAWS block' : 'task template'}, not a message; --any accepts it)`,
      got: JSON.stringify((typeof text === 'string' ? text : '').split('\n')[0] ?? ''),
      example: 'CSP/1\nFROM MAIN\nTO CODE_EXP\nCTX C0\nINTENT TASK\n\nTASK T001',
      check: 'CSP/1 header',
    };
    const broken = new Set<ChecklistItem>(kind === 'task_tpl' ? ['FROM/TO agents', 'CTX reference', 'INTENT type', 'Matching body block'] : ['CSP/1 header', 'FROM/TO agents', 'CTX reference', 'INTENT type']);
    if (kind === 'context') broken.add('Matching body block');
    return { valid: false, kind, checklist: CHECKLIST.map((item) => ({ item, ok: !broken.has(item) })), errors: [missing] };
  }
  const errors = r.errors.map((e) => ({ ...e, check: checkOf(e) }));
  const broken = new Set(errors.map((e) => e.check));
  return { valid: false, checklist: CHECKLIST.map((item) => ({ item, ok: !broken.has(item) })), errors };
}
