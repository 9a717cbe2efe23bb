import { listHaids, registerHaid, retireHaid, rootHaid, spawnHaid } from '../../core/identity/index.js';
import { bool, parseArgs, str, usageError } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall-haid spawn CLIENT | register HAID [--role ROLE] | list | retire HAID | root   [--json]',
  '  spawn derives {root}/{client} (e.g. cursor, copilot, claude-code) without registering it;',
  '  register records a HAID active; its role is its last segment (--role, if given, must match).',
].join('\n');

export const command: Command = {
  summary: 'HAID identities',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { role: 'string', json: 'boolean' }, positionals: [1, 2] });
    const json = bool(p, 'json');
    const [verb, arg] = p.positionals as [string, string?];
    const noArg = () => {
      if (arg !== undefined) throw usageError(USAGE, `${verb} takes no argument`);
    };
    const needArg = (what: string): string => {
      if (arg === undefined) throw usageError(USAGE, `${verb} needs ${what}`);
      return arg;
    };
    if (verb !== 'register' && str(p, 'role') !== undefined) throw usageError(USAGE, `--role applies to register only`);
    switch (verb) {
      case 'root': {
        noArg();
        const root = rootHaid(ctx());
        if (json) printJson(io, { root });
        else io.out(root);
        return 0;
      }
      case 'spawn': {
        const haid = spawnHaid(ctx(), needArg('a CLIENT name such as cursor'));
        if (json) printJson(io, { haid });
        else io.out(haid);
        return 0;
      }
      case 'register': {
        const r = registerHaid(ctx(), needArg('a HAID'), str(p, 'role'));
        if (json) printJson(io, { ...r.record, changed: r.changed });
        else io.out(`${r.changed ? 'registered' : 'already registered'} ${r.record.haid} role=${r.record.role}`);
        return 0;
      }
      case 'list': {
        noArg();
        const l = listHaids(ctx());
        if (json) printJson(io, l);
        else for (const h of l.haids) io.out([h.haid, h.role, h.status, h.registered_at].join('\t'));
        return 0;
      }
      case 'retire': {
        const r = retireHaid(ctx(), needArg('a HAID'));
        if (json) printJson(io, { ...r.record, changed: r.changed });
        else io.out(`${r.changed ? 'retired' : 'already retired'} ${r.record.haid}`);
        return 0;
      }
      default:
        throw usageError(USAGE, `unknown subcommand ${JSON.stringify(verb)}`);
    }
  },
};
