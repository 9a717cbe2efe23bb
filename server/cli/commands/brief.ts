import { buildBrief } from '../../core/briefs/briefs.js';
import { bool, list, parseArgs, requireStr, str, usageError } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE =
  'heimdall-brief build --task REF --spec TEXT [--symbols A,B] [--capsules w1,w2] [--invariants PATH] [--role ROLE] [--msg-id ID] [--json]';

export const command: Command = {
  summary: 'delta briefs',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: { task: 'string', spec: 'string', symbols: 'string', capsules: 'string', invariants: 'string', role: 'string', 'msg-id': 'string', run: 'string', json: 'boolean' },
      positionals: [1, 1],
    });
    if (p.positionals[0] !== 'build') throw usageError(USAGE, `unknown subcommand ${JSON.stringify(p.positionals[0])}`);
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
    if (bool(p, 'json')) printJson(io, { text: b.text, tokens: b.tokens, tokenizer: b.tokenizer, symbols: b.symbols, capsules: b.capsules, msg_id: b.ledger.msg_id });
    else io.out(b.text.trimEnd());
    return 0;
  },
};
