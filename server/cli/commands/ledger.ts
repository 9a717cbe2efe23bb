import fs from 'node:fs';
import {
  logTokens,
  setBaseline,
  ARMS,
  isArm,
  computeDelta,
  formatPct,
  report,
  readTextFile,
  HeimdallError,
  type Savings,
} from '../../core/index.js';
import type { Io } from '../io.js';
import { bool, int, parseArgs, requireStr, str, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall-ledger log --role ROLE --kind KIND --msg-id ID [--tokens N | --text-file PATH | text on stdin] [--run ID [--arm v1|lean|v2] [--phase P --plan P]]',
  '       heimdall-ledger baseline --role ROLE --tokens N',
  '       heimdall-ledger delta --role ROLE [--run ID]',
  '       heimdall-ledger report [--run ID]  (all take --json; report and delta show the latest run unless --run names one; --run - is the lines without a run)',
].join('\n');

export const command: Command = {
  summary: 'token ledger',
  async run(argv, { io, ctx, prog }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: { role: 'string', kind: 'string', tokens: 'int', 'msg-id': 'string', 'text-file': 'string', run: 'string', arm: 'string', phase: 'string', plan: 'string', json: 'boolean' },
      positionals: [1, 1],
    });
    const json = bool(p, 'json');
    const run = str(p, 'run');
    const torn = (line?: number) => {
      if (line) io.err(`${prog}: warning: ledger.jsonl line ${line} is cut short (a writer died mid-line); it was skipped`);
    };
    switch (p.positionals[0]) {
      case 'log': {
        let text: string | undefined;
        const tokens = int(p, 'tokens');
        const file = str(p, 'text-file');
        if (tokens === undefined) {
          if (file !== undefined) {
            text = readTextFile(file, `--text-file ${file}`);
            if (text === undefined) throw new HeimdallError('environment', `cannot read --text-file ${file}: no such file`);
          } else if (!io.stdinIsTTY) text = await io.readStdin();
          else throw usageError(USAGE, 'give --tokens N, --text-file PATH, or pipe the text to count on stdin');
        }
        const arm = str(p, 'arm');
        if (arm !== undefined && !isArm(arm)) throw usageError(USAGE, `--arm must be one of ${ARMS.join(', ')}, got ${JSON.stringify(arm)}`);
        if (arm !== undefined && run === undefined) throw usageError(USAGE, '--arm needs --run: an arm is one side of a run');
        const e = logTokens(ctx(), {
          role: requireStr(p, 'role', USAGE),
          kind: requireStr(p, 'kind', USAGE),
          msgId: requireStr(p, 'msg-id', USAGE),
          tokens,
          text,
          run,
          // v2 is what a line without an arm already means: keep such lines as they always were.
          ...(arm && arm !== 'v2' ? { arm } : {}),
          phase: str(p, 'phase'),
          plan: str(p, 'plan'),
        });
        if (json) printJson(io, { ...e, tokenizer: e.tokenizer ?? ctx().tokenizer.name });
        else io.out(`${e.role}/${e.kind}=${e.tokens} (${e.source === 'tokenizer' ? `counted with ${e.tokenizer}` : 'reported'})`);
        return 0;
      }
      case 'baseline': {
        const role = requireStr(p, 'role', USAGE);
        const tokens = int(p, 'tokens');
        if (tokens === undefined) throw usageError(USAGE, '--tokens is required');
        setBaseline(ctx(), role, tokens);
        if (json) printJson(io, { role, baseline: tokens });
        return 0;
      }
      case 'delta': {
        const d = computeDelta(ctx(), requireStr(p, 'role', USAGE), { run });
        torn(d.tornLine);
        if (json) printJson(io, d);
        else io.out(d.line);
        return 0;
      }
      case 'report': {
        const r = report(ctx(), { run });
        torn(r.tornLine);
        if (json) printJson(io, r);
        else printReport(io, r);
        return 0;
      }
      default:
        throw unknownWord(USAGE, p.positionals[0], ['log', 'baseline', 'delta', 'report']);
    }
  },
};

const cell = (n: number | undefined) => (n === undefined ? '-' : String(n));
const change = (pct: number | undefined) => (pct === undefined ? '-' : formatPct(pct));

/** The text form of one scope's savings: what is compared with what, then a table per role (and per GSD phase). */
function printReport(io: Io, r: Savings): void {
  if (r.run === null) {
    io.out('the ledger is empty: measure a run with `heimdall bench gsd . --record` or `heimdall-protocol demo`');
    return;
  }
  io.out(`${r.label} (workspace ${r.workspace}; tokenizer ${r.tokenizer})`);
  io.out(r.compared_with);
  for (const [arm, what] of Object.entries(r.arms)) io.out(`  ${arm}: ${what}`);
  const lean = r.roles.some((x) => x.lean !== undefined);
  io.out(`role\tentries\ttokens\tbaseline${lean ? '\tlean' : ''}\tchange`);
  for (const x of r.roles) io.out([x.role, x.entries, x.tokens, cell(x.baseline), ...(lean ? [cell(x.lean)] : []), change(x.pct)].join('\t'));
  io.out(`total\t\t${r.total_tokens}${r.total ? `\t${r.total.baseline}${lean ? `\t${cell(r.total.lean)}` : ''}\t${change(r.total.pct)}` : ''}`);
  if (r.gsd) {
    io.out('');
    io.out('phase\tplans\tv1\tlean\tv2\tsaved\tvs lean\trecall');
    for (const p of r.gsd.phases) io.out([p.phase, p.plans, cell(p.v1), cell(p.lean), cell(p.v2), p.saved_pct === undefined ? '-' : `${p.saved_pct}%`, p.saved_vs_lean_pct === undefined ? '-' : `${p.saved_vs_lean_pct}%`, p.recall_pct === undefined ? '-' : `${p.recall_pct}%`].join('\t'));
    if (r.gsd.missing.length) io.out(`not in the run record: ${r.gsd.missing.join(', ')}`);
  }
  if (r.runs.length > 1) io.out(`other runs: ${r.runs.filter((x) => x.run !== r.run).slice(0, 5).map((x) => x.run).join(', ')}${r.runs.length > 6 ? ', ...' : ''} (--run ID)`);
}
