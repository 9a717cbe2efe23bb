import { closure, hydrate, listCapsuleIds, readCapsule, writeCapsule } from '../../core/index.js';
import { bool, list, parseArgs, requireStr, str, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall-capsule write ID --what TEXT --where REF [--decision TEXT] [--gotcha TEXT] [--depends a,b] [--json]',
  '       heimdall-capsule hydrate ID... | deps ID... | show ID | list   [--json]',
].join('\n');

export const command: Command = {
  summary: 'context capsules',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: { what: 'string', where: 'string', decision: 'string', gotcha: 'string', depends: 'string', json: 'boolean' },
      positionals: [1, Infinity],
    });
    const json = bool(p, 'json');
    const [verb, ...ids] = p.positionals as [string, ...string[]];
    const one = () => {
      if (ids.length !== 1) throw usageError(USAGE, `${verb} needs exactly one ID`);
      return ids[0] as string;
    };
    const some = () => {
      if (ids.length === 0) throw usageError(USAGE, `${verb} needs at least one ID`);
      return ids;
    };
    switch (verb) {
      case 'write': {
        const id = one();
        const cap = writeCapsule(ctx(), id, {
          what: requireStr(p, 'what', USAGE),
          where: requireStr(p, 'where', USAGE),
          decision: str(p, 'decision'),
          gotcha: str(p, 'gotcha'),
          depends: list(str(p, 'depends')),
        });
        if (json) printJson(io, { id, depends: cap.depends, lines: cap.text.trimEnd().split('\n').length });
        return 0;
      }
      case 'hydrate': {
        const h = hydrate(ctx(), some());
        if (json) printJson(io, h);
        else io.out(h.text.trimEnd());
        return 0;
      }
      case 'deps': {
        const order = closure(ctx(), some()).map((c) => c.id);
        if (json) printJson(io, { ids: order });
        else for (const id of order) io.out(id);
        return 0;
      }
      case 'show': {
        const cap = readCapsule(ctx(), one());
        if (json) printJson(io, cap);
        else io.out(cap.text.trimEnd());
        return 0;
      }
      case 'list': {
        if (ids.length) throw usageError(USAGE, 'list takes no arguments');
        const all = listCapsuleIds(ctx());
        if (json) printJson(io, { ids: all });
        else for (const id of all) io.out(id);
        return 0;
      }
      default:
        throw unknownWord(USAGE, verb, ['write', 'hydrate', 'deps', 'show', 'list']);
    }
  },
};
