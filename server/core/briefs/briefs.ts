/**
 * Mechanism 4, delta briefs: a spawned agent's brief is the task spec, only the symbol entries the
 * task names, the hydrated closure of the capsules it names, and a reference to the invariants.
 * Never the plan, prior conversation or restated criteria. Its token cost goes to the ledger.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { hydrate } from '../capsules/capsules.js';
import { type LedgerEntry, logTokens } from '../ledger/ledger.js';
import { logAction } from '../log/protocolLog.js';
import { checkName } from '../planning/ids.js';
import { readSymbols } from '../symbols/symbols.js';

export interface BriefInput {
  task: string;
  spec: string;
  symbols: string[];
  capsules: string[];
  invariants?: string;
  /** Ledger attribution; defaults: role orchestration, msg id brief-<task>. */
  role?: string;
  msgId?: string;
  run?: string;
}

export interface Brief {
  text: string;
  tokens: number;
  tokenizer: string;
  capsules: string[];
  symbols: string[];
  ledger: LedgerEntry;
}

/** Build the brief text without logging (used by the demo and benchmarks to price alternatives). */
export function renderBrief(ctx: Ctx, input: Omit<BriefInput, 'role' | 'msgId' | 'run'>): { text: string; capsules: string[] } {
  if (!input.task.trim()) throw new HeimdallError('usage', '--task is required (e.g. --task 3.2)');
  if (!input.spec.trim()) throw new HeimdallError('usage', '--spec is required (one line saying what to do)');
  const table = readSymbols(ctx);
  const missing = input.symbols.filter((id) => table[checkName('symbol', id)] === undefined);
  if (missing.length) {
    throw new HeimdallError('not_found', `unknown symbol${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; define with: heimdall-resolve set ID VALUE`);
  }
  const lines = [`TASK ${input.task}`, `SPEC ${input.spec}`];
  if (input.symbols.length) {
    lines.push('SYMBOLS');
    for (const id of input.symbols) lines.push(`${id}\t${table[id]}`);
  }
  let capsules: string[] = [];
  if (input.capsules.length) {
    const h = hydrate(ctx, input.capsules);
    capsules = h.ids;
    lines.push('CAPSULES', h.text.trimEnd());
  }
  if (input.invariants) lines.push(`INVARIANTS see ${input.invariants}`);
  return { text: `${lines.join('\n')}\n`, capsules };
}

export function buildBrief(ctx: Ctx, input: BriefInput): Brief {
  const { text, capsules } = renderBrief(ctx, input);
  const ledger = logTokens(ctx, {
    role: input.role ?? 'orchestration',
    kind: 'delta_brief',
    msgId: input.msgId ?? `brief-${input.task.replace(/[^A-Za-z0-9_.-]/g, '_')}`,
    text,
    run: input.run,
  });
  logAction(ctx, 'brief', 'build', `task ${input.task}: ${input.symbols.length} symbols, capsules ${capsules.join(',') || '-'}, ${ledger.tokens} tokens`);
  return { text, tokens: ledger.tokens, tokenizer: ctx.tokenizer.name, capsules, symbols: input.symbols, ledger };
}
