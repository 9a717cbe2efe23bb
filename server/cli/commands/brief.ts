import { buildBrief, gsdBrief, listUnits, resolveUnit, reverseUnit, unitText, readUnitsFile, HeimdallError } from '../../core/index.js';
import { bool, list, parseArgs, requireStr, str, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall-brief build --task REF --spec TEXT [--symbols A,B] [--capsules w1,w2] [--invariants PATH] [--role ROLE] [--msg-id ID] [--json]',
  '       heimdall brief gsd PLAN-ID [--json]            (the v2 brief of an imported GSD plan: what an orchestrator sends, what the bench counts)',
  '       heimdall brief unit ID [--phase N] [--json]    (what a unit id or label stands for: 02-CONTEXT#D-07, D-07 --phase 02)',
  '       heimdall brief unit --reverse TEXT [--json]    (the unit ids of a text)',
  '       heimdall brief unit --list [--file PATH] [--json]',
].join('\n');

export const command: Command = {
  summary: 'delta briefs',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: {
        task: 'string',
        spec: 'string',
        symbols: 'string',
        capsules: 'string',
        invariants: 'string',
        role: 'string',
        'msg-id': 'string',
        run: 'string',
        json: 'boolean',
        reverse: 'string',
        list: 'boolean',
        file: 'string',
        phase: 'string',
      },
      positionals: [1, 2],
    });
    const sub = p.positionals[0];
    const json = bool(p, 'json');
    if (sub === 'gsd') {
      const id = p.positionals[1];
      if (!id) throw usageError(USAGE, 'brief gsd needs a PLAN-ID (e.g. heimdall brief gsd 02-01)');
      const b = gsdBrief(ctx(), id);
      if (json) printJson(io, b);
      else {
        io.out(b.text.trimEnd());
        if (b.reads.length) {
          io.out(`# the executor must also read ${b.reads.length} file${b.reads.length === 1 ? '' : 's'} (${b.read_tokens} tokens): ${b.reads.map((r) => r.path).join(', ')}`);
        }
        io.out(`# ${b.tokens} tokens sent, ${b.total_tokens} counted with reads (${b.tokenizer})`);
      }
      return 0;
    }
    if (sub === 'unit') {
      const c = ctx();
      const reverse = str(p, 'reverse');
      if (reverse !== undefined) {
        if (p.positionals.length !== 1) throw usageError(USAGE, '--reverse takes the TEXT, not an ID');
        const r = reverseUnit(c, reverse);
        if (json) printJson(io, { text: reverse, exact: r.exact, ids: r.units.map((u) => u.id) });
        else for (const u of r.units) io.out(`${u.id}\t${u.file}${r.exact ? '' : '\t(contains it)'}`);
        return 0;
      }
      if (bool(p, 'list')) {
        const us = listUnits(c, { ...(str(p, 'file') ? { file: str(p, 'file') as string } : {}) });
        if (json) printJson(io, { units: us.map(({ text: _t, ...u }) => u) });
        else for (const u of us) io.out(`${u.id}\t${u.kind}\t${u.file}\t${u.title}`);
        return 0;
      }
      const id = p.positionals[1];
      if (!id) throw usageError(USAGE, 'brief unit needs an ID, --reverse TEXT or --list');
      const store = readUnitsFile(c);
      if (!store) throw new HeimdallError('not_found', 'no units here; run heimdall import gsd first');
      const hits = resolveUnit(c, id, { ...(str(p, 'phase') ? { phase: str(p, 'phase') as string } : {}) });
      if (json) printJson(io, { ref: id, units: hits.map((u) => ({ ...u, text: unitText(store, u) })) });
      else
        hits.forEach((u, i) => {
          if (hits.length > 1) io.out(`${i ? '\n' : ''}== ${u.id} (${u.file})`);
          io.out(unitText(store, u).trimEnd());
        });
      return 0;
    }
    if (sub !== 'build') throw unknownWord(USAGE, sub, ['build', 'gsd', 'unit']);
    if (p.positionals.length !== 1) throw usageError(USAGE, `unexpected argument ${JSON.stringify(p.positionals[1])}`);
    const b = buildBrief(ctx(), {
      task: requireStr(p, 'task', USAGE),
      spec: requireStr(p, 'spec', USAGE),
      symbols: list(str(p, 'symbols')),
      capsules: list(str(p, 'capsules')),
      invariants: str(p, 'invariants'),
      role: str(p, 'role'),
      msgId: str(p, 'msg-id'),
      run: str(p, 'run'),
    });
    if (json) printJson(io, { text: b.text, tokens: b.tokens, tokenizer: b.tokenizer, symbols: b.symbols, capsules: b.capsules, msg_id: b.ledger.msg_id });
    else io.out(b.text.trimEnd());
    return 0;
  },
};
