import { gateToMessage } from '../../core/gate/gate.js';
import { parseArgs, requireStr, usageError } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = 'heimdall-gate to-message --report PATH --from ID --msg-id ID';

export const command: Command = {
  summary: 'gate adapter',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { report: 'string', from: 'string', 'msg-id': 'string' }, positionals: [1, 1] });
    if (p.positionals[0] !== 'to-message') throw usageError(USAGE, `unknown subcommand ${JSON.stringify(p.positionals[0])}`);
    const msg = gateToMessage(ctx(), { report: requireStr(p, 'report', USAGE), from: requireStr(p, 'from', USAGE), msgId: requireStr(p, 'msg-id', USAGE) });
    printJson(io, msg);
    return 0;
  },
};
