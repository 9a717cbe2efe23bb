import { gateToMessage } from '../../core/index.js';
import { parseArgs, requireStr, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = 'heimdall-gate to-message --report PATH --from ID --msg-id ID [--json]   (prints the gate_report message, JSON either way)';

export const command: Command = {
  summary: 'gate adapter',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { report: 'string', from: 'string', 'msg-id': 'string', json: 'boolean' }, positionals: [1, 1] });
    if (p.positionals[0] !== 'to-message') throw unknownWord(USAGE, p.positionals[0], ['to-message']);
    const msg = gateToMessage(ctx(), { report: requireStr(p, 'report', USAGE), from: requireStr(p, 'from', USAGE), msgId: requireStr(p, 'msg-id', USAGE) });
    printJson(io, msg);
    return 0;
  },
};
