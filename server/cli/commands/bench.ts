import { benchGsd, formatBench } from '../../core/index.js';
import { bool, parseArgs, str, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE =
  'heimdall bench gsd DIR [--json] [--emit-briefs OUT] [--record] [--run ID] [--keep]   (DIR: a GSD project folder, its .planning, or a folder of projects; read only, measured on copies; --emit-briefs writes OUT/<plan-id>.{v1,lean,v2,v2.resolved}.txt, OUT/<tree>/... for several trees; --record writes the run to this planning root\'s ledger)';

export const command: Command = {
  summary: 'token benchmarks',
  async run(argv, { io, runtime }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { json: 'boolean', keep: 'boolean', 'emit-briefs': 'string', record: 'boolean', run: 'string' }, positionals: [2, 2] });
    const [kind, dir] = p.positionals as [string, string];
    if (kind !== 'gsd') throw unknownWord(USAGE, kind, ['gsd'], 'bench');
    const emit = str(p, 'emit-briefs');
    if (emit !== undefined && emit.trim() === '') throw usageError(USAGE, '--emit-briefs needs a folder');
    const run = str(p, 'run');
    const record = bool(p, 'record');
    // Measured on a copy in its own folder: only the ports are needed, not a planning tree here;
    // --record writes the run into this workspace's ledger, which must exist.
    const ctx = record ? runtime.ctx : runtime.ctxAt(runtime.tree.root);
    const r = benchGsd(ctx, dir, { keep: bool(p, 'keep'), record, ...(emit ? { emitBriefs: emit } : {}), ...(run ? { run } : {}) });
    if (bool(p, 'json')) printJson(io, r);
    else for (const line of formatBench(r)) io.out(line);
    // A brief that misses what its plan references is a negative answer: the saving it shows is not earned.
    return r.total.completeness_pct === 100 ? 0 : 1;
  },
};
