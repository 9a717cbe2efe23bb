import { runDemo } from '../../core/demo/demo.js';
import { bool, parseArgs, str } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = 'heimdall-protocol demo [--show] [--fixture DIR] [--json]';

export const command: Command = {
  summary: 'measured demo',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { show: 'boolean', fixture: 'string', json: 'boolean' }, positionals: [0, 0] });
    const r = runDemo(ctx(), { fixture: str(p, 'fixture') });
    if (bool(p, 'json')) {
      printJson(io, r);
      return 0;
    }
    if (bool(p, 'show')) {
      for (const t of [...r.v1.briefs, ...r.v1.results, r.v2.symbolTable, ...r.v2.briefs, ...r.v2.results]) {
        io.out(`===== ${t.label} (${t.tokens} tokens) =====`);
        io.out(t.text.trimEnd());
      }
      io.out('=====');
    }
    for (const l of r.lines) io.out(l);
    return 0;
  },
};
