import { importGsd } from '../../core/index.js';
import { bool, parseArgs, str, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE =
  'heimdall import gsd [--from DIR] [--json]   (DIR: a GSD project folder or its .planning; default: the planning root itself)';

export const command: Command = {
  summary: 'adopt an existing planning tree',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { from: 'string', json: 'boolean' }, positionals: [1, 1] });
    if (p.positionals[0] !== 'gsd') throw unknownWord(USAGE, p.positionals[0], ['gsd'], 'source');
    const c = ctx();
    const { report: r } = importGsd(c, { from: str(p, 'from') ?? c.root });
    if (bool(p, 'json')) {
      printJson(io, r);
      return 0;
    }
    io.out(`imported ${r.planning_dir} -> ${r.state_dir}${r.changed ? '' : ' (nothing changed)'}`);
    io.out(`plans ${r.plans} in ${r.phases} phases (${r.plans_imported} of ${r.plans_found} PLAN files), summaries ${r.summaries}`);
    const kinds = Object.entries(r.units.by_kind)
      .map(([k, n]) => (k === 'lines' ? `${n} line range${n === 1 ? '' : 's'}` : `${n} ${k}${n === 1 ? '' : 's'}`))
      .join(', ');
    io.out(`units ${r.units.total} (${kinds})${r.units.changed ? `, ${r.units.added} new, ${r.units.removed} pruned` : ', unchanged'}`);
    io.out(`blackboard facts ${r.facts.total} from STATE.md, ${r.facts.changed} changed, ${r.facts.removed} removed`);
    io.out(`symbols ${r.symbols.total} (${r.symbols.paths} paths, ${r.symbols.truths} truths), ${r.symbols.changed} changed, ${r.symbols.removed} removed`);
    io.out(`capsules ${r.capsules.total}, ${r.capsules.written} written, ${r.capsules.removed} removed`);
    io.out(`tasks ${r.tasks_file}${r.tasks_written ? ' (written)' : ' (unchanged)'}`);
    for (const f of r.plans_skipped) io.out(`  not imported\t${f.file}\t${f.reason ?? ''}`);
    if (r.issues.length) {
      io.out(`report: ${r.issues.length} item${r.issues.length === 1 ? '' : 's'} imported with what they have`);
      for (const i of r.issues) io.out(`  ${i.kind}\t${i.file}\t${i.detail}`);
    }
    return 0;
  },
};
