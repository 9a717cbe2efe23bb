import {
  checkJsonDepth,
  readRequiredText,
  cspToJson,
  JSON_TARGETS,
  jsonToCsp,
  formatCsp,
  formatUnknown,
  parseCsp,
  checkpointToContext,
  applyPatchText,
  initState,
  readCheckpoint,
  stateReport,
  verifyState,
  formatCspErrors,
  validateCsp,
  HeimdallError,
  type JsonTarget,
  type MappingNote,
  type CspError,
} from '../../core/index.js';
import path from 'node:path';
import { bool, int, parseArgs, str, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall csp parse [FILE|-] [--json]          CSP text -> the parsed document as JSON',
  '       heimdall csp format [FILE|-] [--json]         parsed document JSON -> canonical CSP text',
  '       heimdall csp validate [FILE|-] [--any] [--json]   the seed checklist (--any: DEF/LAWS, bare bodies, templates too)',
  '       heimdall csp init [FILE|-] [--empty] [--json]     create checkpoint C0 from a DEF/LAWS document',
  '       heimdall csp apply [FILE|-] [--json]          apply a PATCH to the current checkpoint (.planning/csp)',
  '       heimdall csp state [CHECKPOINT] [--verify] [--json]   show a checkpoint; --verify rebuilds all from C0 + patches',
  `       heimdall csp to-json [FILE|-] [--target ${JSON_TARGETS.join('|')}] [--msg-id ID] [--severity blocker|warning|info] [--json]`,
  '                 TASK_DISPATCH: --token-budget N [--reply-schema prose|structured|json]; TASK_RESULT: --tokens-spent N [--remaining TEXT]',
  '       heimdall csp from-json [FILE|-] [--from ID] [--to ID] [--ctx ID] [--json]',
  'FILE defaults to stdin. Exit 0 ok, 1 invalid input or refused patch, 2 usage or environment error.',
].join('\n');

const VERBS = ['parse', 'format', 'validate', 'init', 'apply', 'state', 'to-json', 'from-json'];

async function readInput(io: Io, file: string | undefined): Promise<string> {
  if (file === undefined || file === '-') {
    if (io.stdinIsTTY) throw usageError(USAGE, 'no input: pass a FILE or pipe the text on stdin');
    return io.readStdin();
  }
  return readRequiredText(path.resolve(file), file);
}

/** A negative answer: errors on stderr (or the JSON result on stdout), exit 1. */
function refuse(io: Io, prog: string, errors: CspError[], json: boolean, extra: Record<string, unknown> = {}): number {
  if (json) printJson(io, { ok: false, ...extra, errors });
  else io.err(`${prog}: refused\n${formatCspErrors(errors)}`);
  return 1;
}

function parseJsonInput(text: string): { ok: true; value: unknown } | { ok: false; errors: CspError[] } {
  try {
    // Depth first: formatting and conversion walk the value recursively.
    checkJsonDepth(text, 'the JSON input');
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    if (e instanceof HeimdallError) return { ok: false, errors: [{ line: 0, expected: 'JSON input nested at most as deep as the limit', got: e.message, example: '{"kind":"body","body":{"intent":"TASK","id":"T001"}}' }] };
    return { ok: false, errors: [{ line: 0, expected: 'JSON input', got: `text that is not JSON (${(e as Error).message})`, example: '{"kind":"body","body":{"intent":"TASK","id":"T001"}}' }] };
  }
}

function notes(io: Io, prog: string, label: string, list: MappingNote[]): void {
  for (const n of list) io.err(`${prog}: ${label} ${n.field} = ${JSON.stringify(n.value)}: ${n.reason}`);
}

export const command: Command = {
  summary: 'CSP/1 compact protocol',
  async run(argv, { io, ctx, prog }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: {
        json: 'boolean',
        any: 'boolean',
        empty: 'boolean',
        verify: 'boolean',
        target: 'string',
        'msg-id': 'string',
        severity: 'string',
        'token-budget': 'int',
        'reply-schema': 'string',
        'tokens-spent': 'int',
        remaining: 'string',
        from: 'string',
        to: 'string',
        ctx: 'string',
      },
      positionals: [1, 2],
    });
    const [verb, arg] = p.positionals as [string, string | undefined];
    if (!VERBS.includes(verb)) throw unknownWord(USAGE, verb, VERBS);
    const json = bool(p, 'json');
    const only = (allowed: string[]) => {
      const bad = Object.keys(p.flags).filter((f) => f !== 'json' && !allowed.includes(f));
      if (bad.length) throw usageError(USAGE, `--${bad[0]} does not apply to csp ${verb}`);
    };
    switch (verb) {
      case 'parse': {
        only([]);
        const r = parseCsp(await readInput(io, arg));
        if (!r.ok) return refuse(io, prog, r.errors, json);
        if (json) printJson(io, r);
        else io.out(JSON.stringify(r.message, null, 2));
        return 0;
      }
      case 'format': {
        only([]);
        const input = parseJsonInput(await readInput(io, arg));
        if (!input.ok) return refuse(io, prog, input.errors, json);
        // Accept the document itself or the {ok, message} result `csp parse --json` prints.
        const v = input.value as { ok?: unknown; message?: unknown } | null;
        const doc = v && typeof v === 'object' && v.ok === true && 'message' in v ? v.message : v;
        const r = formatUnknown(doc);
        if (!r.ok) return refuse(io, prog, r.errors, json);
        if (json) printJson(io, { ok: true, text: r.text });
        else io.out(r.text.replace(/\n$/, ''));
        return 0;
      }
      case 'validate': {
        only(['any']);
        const v = validateCsp(await readInput(io, arg), { any: bool(p, 'any') });
        if (json) {
          printJson(io, { valid: v.valid, kind: v.kind, checklist: v.checklist, errors: v.errors });
          return v.valid ? 0 : 1;
        }
        for (const c of v.checklist) io.out(`[${c.ok ? 'x' : ' '}] ${c.item}`);
        if (v.valid) io.out(`valid CSP/1 ${v.kind === 'message' ? 'message' : `${v.kind} document`}`);
        else io.err(formatCspErrors(v.errors));
        return v.valid ? 0 : 1;
      }
      case 'init': {
        only(['empty']);
        let context;
        if (bool(p, 'empty')) {
          if (arg !== undefined) throw usageError(USAGE, '--empty takes no FILE');
        } else {
          const parsed = parseCsp(await readInput(io, arg));
          if (!parsed.ok) return refuse(io, prog, parsed.errors, json);
          if (parsed.message.kind !== 'context') {
            return refuse(io, prog, [{ line: 1, expected: 'a DEF/LAWS document (DEF NAME = value lines, LAWS blocks), or --empty', got: `a ${parsed.message.kind} document`, example: 'DEF SRC = src/\nDEF LIB = lib/' }], json);
          }
          context = parsed.message;
        }
        const r = initState(ctx(), context);
        if (!r.ok) return refuse(io, prog, r.errors, json);
        if (json) printJson(io, r);
        else io.out(`C0: ${r.checkpoint.defs.length} DEFs, ${r.checkpoint.laws.length} LAWS`);
        return 0;
      }
      case 'apply': {
        only([]);
        const r = applyPatchText(ctx(), await readInput(io, arg));
        if (!r.ok) return refuse(io, prog, r.errors, json);
        if (json) printJson(io, r);
        else {
          const s = r.summary;
          io.out(r.applied ? `${r.patch}: ${r.base} -> ${r.target} (+${s.added.length} ~${s.changed.length} -${s.removed.length})` : `${r.patch} was already applied: ${r.base} -> ${r.target} (nothing changed)`);
        }
        return 0;
      }
      case 'state': {
        only(['verify']);
        if (bool(p, 'verify')) {
          if (arg !== undefined) throw usageError(USAGE, '--verify checks every checkpoint and takes no CHECKPOINT');
          const v = verifyState(ctx());
          if (json) printJson(io, v);
          else {
            io.out(`checked ${v.checked.join(', ')}`);
            for (const pr of v.problems) io.err(`${prog}: ${pr}`);
          }
          return v.ok ? 0 : 1;
        }
        const report = stateReport(ctx());
        const cp = readCheckpoint(ctx(), arg ?? report.head, report.index);
        if (json) {
          printJson(io, { head: report.head, chain: report.chain, checkpoint: cp });
          return 0;
        }
        const doc = checkpointToContext(cp);
        io.out(`# ${cp.id}${cp.id === report.head ? ' (head)' : ''}   ${report.chain}`);
        if (doc) io.out(formatCsp(doc).replace(/\n$/, ''));
        return 0;
      }
      case 'to-json': {
        only(['target', 'msg-id', 'severity', 'token-budget', 'reply-schema', 'tokens-spent', 'remaining']);
        const target = str(p, 'target');
        if (target !== undefined && !(JSON_TARGETS as readonly string[]).includes(target)) throw usageError(USAGE, `--target must be one of ${JSON_TARGETS.join(', ')}`);
        const severity = str(p, 'severity');
        if (severity !== undefined && !['blocker', 'warning', 'info'].includes(severity)) throw usageError(USAGE, '--severity must be blocker, warning or info');
        const replySchema = str(p, 'reply-schema');
        if (replySchema !== undefined && !['prose', 'structured', 'json'].includes(replySchema)) throw usageError(USAGE, '--reply-schema must be prose, structured or json');
        for (const f of ['token-budget', 'tokens-spent']) if ((int(p, f) ?? 0) < 0) throw usageError(USAGE, `--${f} must not be negative`);
        const remaining = str(p, 'remaining');
        const r = cspToJson(await readInput(io, arg), {
          target: target as JsonTarget | undefined,
          msgId: str(p, 'msg-id'),
          severity: severity as 'blocker' | undefined,
          tokenBudget: int(p, 'token-budget'),
          replySchema: replySchema as 'structured' | undefined,
          tokensSpent: int(p, 'tokens-spent'),
          remaining: remaining !== undefined ? [remaining] : undefined,
        });
        if (!r.ok) return refuse(io, prog, r.errors, json);
        if (json) printJson(io, r);
        else {
          // stdout carries the typed message alone, so it pipes into `heimdall validate`.
          printJson(io, r.message);
          notes(io, prog, 'unmapped', r.unmapped);
          notes(io, prog, 'derived', r.derived);
        }
        return 0;
      }
      case 'from-json': {
        only(['from', 'to', 'ctx']);
        const r = jsonToCsp(await readInput(io, arg), { from: str(p, 'from'), to: str(p, 'to'), ctx: str(p, 'ctx') });
        if (!r.ok) return refuse(io, prog, r.errors, json);
        if (json) printJson(io, r);
        else {
          io.out(r.text.replace(/\n$/, ''));
          notes(io, prog, 'unmapped', r.unmapped);
          notes(io, prog, 'derived', r.derived);
        }
        return 0;
      }
      default:
        throw unknownWord(USAGE, verb, VERBS);
    }
  },
};
