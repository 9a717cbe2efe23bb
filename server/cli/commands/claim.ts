import { DEFAULT_TTL_MINUTES, listClaims, makeClaim, releaseClaim, splitSurfaceList } from '../../core/index.js';
import { bool, int, parseArgs, requireStr, str, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall-claim claim --surfaces GLOB[,GLOB...] --task REF [--ttl-minutes N] [--as AGENT] [--json]',
  '       heimdall-claim list [--all] [--json]                    (--all: released and older expired claims too)',
  '       heimdall-claim release [--id CLAIM] [--holder AGENT] [--reason TEXT] [--as AGENT] [--json]',
  '  AGENT: a HAID, a herd address (mason.1@core) or a session (claude-code.2); --haid is the same as --as.',
  '  Without --as: $HEIMDALL_AGENT, else the client session this shell belongs to, else {root}/cli (see heimdall-haid whoami).',
  '  One claim per task: claiming the same task again extends it, another task adds a claim.',
  '  release: one claim by --id, or every claim of yours; --holder releases another agent\'s claims once they stopped blocking.',
  `  --ttl-minutes defaults to ${DEFAULT_TTL_MINUTES}; commas inside braces stay in one glob: src/{a,b}.ts,docs/**`,
].join('\n');

export const command: Command = {
  summary: 'claims with a collision gate',
  async run(argv, { io, ctx, caller }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: { surfaces: 'string', task: 'string', 'ttl-minutes': 'int', haid: 'string', as: 'string', json: 'boolean', all: 'boolean', id: 'string', holder: 'string', reason: 'string' },
      positionals: [1, 1],
    });
    const json = bool(p, 'json');
    const verb = p.positionals[0] as string;
    const only = (allowed: string[]) => {
      for (const f of Object.keys(p.flags)) {
        if (!allowed.includes(f)) throw usageError(USAGE, `--${f} does not apply to ${verb}`);
      }
    };
    const who = () => {
      const a = str(p, 'as');
      const h = str(p, 'haid');
      if (a !== undefined && h !== undefined && a !== h) throw usageError(USAGE, '--as and --haid name different agents; give one');
      return caller(a ?? h, a !== undefined ? '--as' : '--haid');
    };
    switch (verb) {
      case 'claim': {
        only(['surfaces', 'task', 'ttl-minutes', 'haid', 'as', 'json']);
        const surfaces = splitSurfaceList(requireStr(p, 'surfaces', USAGE));
        if (surfaces.length === 0) throw usageError(USAGE, '--surfaces needs at least one glob');
        const task = requireStr(p, 'task', USAGE);
        const { ctx: c, identity } = await who();
        const r = makeClaim(c, { haid: identity.haid, surfaces, task, ttlMinutes: int(p, 'ttl-minutes') });
        if (json) printJson(io, { haid: identity.haid, address: identity.address, extended: r.extended, claim: r.claim });
        else io.out(`${r.extended ? 'extended' : 'claimed'} ${r.claim.id} ${r.claim.surfaces.join(',')} for ${r.claim.task_ref} until ${r.claim.expires_at}`);
        return 0;
      }
      case 'list': {
        only(['json', 'all']);
        const l = listClaims(ctx(), { history: bool(p, 'all') });
        if (json) printJson(io, l);
        else for (const c of l.claims) io.out([c.haid, c.status, c.expires_at, c.task_ref, c.surfaces.join(','), c.id, c.address ?? '-'].join('\t'));
        return 0;
      }
      case 'release': {
        only(['haid', 'as', 'id', 'holder', 'reason', 'json']);
        const { ctx: c, identity } = await who();
        const r = releaseClaim(c, { by: identity.haid, id: str(p, 'id'), haid: str(p, 'holder'), reason: str(p, 'reason') });
        if (json) printJson(io, { haid: identity.haid, address: identity.address, released: r.released, count: r.released.length });
        else for (const x of r.released) io.out(`released ${x.id} ${x.surfaces.join(',')} held by ${x.haid} (was ${x.was})`);
        return 0;
      }
      default:
        throw unknownWord(USAGE, verb, ['claim', 'list', 'release']);
    }
  },
};
