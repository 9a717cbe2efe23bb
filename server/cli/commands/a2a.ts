import { parseJsonText, announce, dispatch, listPeers, routeOnly, submitResult, isAddressLike } from '../../core/index.js';
import { bool, parseArgs, str, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall a2a announce [--as ID]            SESSION_ANNOUNCE JSON on stdin -> the peer profile',
  '       heimdall a2a dispatch [--to PEER] [--as ID]   TASK_DISPATCH JSON on stdin -> the routing decision, or the blocked TASK_RESULT',
  '       heimdall a2a result [--as ID]              TASK_RESULT JSON on stdin -> accepted, with tokens_spent beside the ledger',
  '       heimdall a2a route                         TASK_DISPATCH JSON on stdin -> the decision, nothing recorded',
  '       heimdall a2a peers [--json]                the live peer profiles',
  '  all take --json (announce, dispatch, result and route print JSON either way); exit 1 when a dispatch ends',
  '  blocked and not re-routed; --client-identity is the same as --as',
  '  ID: an agent id (hermes-1), a herd address (mason.1@core), a session (claude-code.2) or a HAID; default: HEIMDALL_AGENT',
].join('\n');

async function stdinJson(io: Io, what: string): Promise<unknown> {
  if (io.stdinIsTTY) throw usageError(USAGE, `pipe the ${what} JSON on stdin`);
  const text = await io.readStdin();
  if (text.trim() === '') throw usageError(USAGE, `stdin is empty; expected a ${what} JSON object`);
  return parseJsonText(text, 'stdin', { example: `a ${what} object such as {"type": "${what}", "protocol_version": "2.0", ...}` });
}

export const command: Command = {
  summary: 'the three-message handshake',
  async run(argv, { io, ctx: plainCtx, prog, runtime, caller }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: { as: 'string', 'client-identity': 'string', to: 'string', json: 'boolean' },
      positionals: [1, 1],
    });
    const a = str(p, 'as');
    const c = str(p, 'client-identity');
    if (a !== undefined && c !== undefined && a !== c) throw usageError(USAGE, '--as and --client-identity name different callers; give one');
    const flag = a ?? c;
    // An agent named as an agent (address, session, HAID; or the environment's agent) authors the
    // writes; a bare agent id such as hermes-1 is a handshake peer, recorded as given.
    const named = flag === undefined ? runtime.envNamesCaller : flag.includes('/') || isAddressLike(flag);
    const sub = p.positionals[0];
    let who: Awaited<ReturnType<typeof caller>> | undefined;
    if (named && ['announce', 'dispatch', 'result'].includes(sub as string)) who = await caller(flag, a !== undefined ? '--as' : '--client-identity');
    const ctx = () => who?.ctx ?? plainCtx();
    const asOf = (): string | undefined => {
      if (!named) return flag;
      return who?.identity.known ? (who.identity.address ?? who.identity.haid) : undefined;
    };
    if (str(p, 'to') !== undefined && sub !== 'dispatch') throw usageError(USAGE, '--to is only for dispatch');
    switch (sub) {
      case 'announce': {
        const message = await stdinJson(io, 'SESSION_ANNOUNCE');
        // The profile also goes to the wire log (agent.started), so the read model keeps it.
        const as = asOf();
        const wire = await runtime.tryWireLog();
        if (wire.problem) io.err(`${prog}: warning: the profile is not in the wire log: ${wire.problem}`);
        const r = await announce(ctx(), message, { as, wire: wire.log });
        for (const w of r.warnings ?? []) io.err(`${prog}: warning: ${w}`);
        printJson(io, r);
        return 0;
      }
      case 'dispatch': {
        const message = await stdinJson(io, 'TASK_DISPATCH');
        const r = await dispatch(ctx(), message, { as: asOf(), to: str(p, 'to') });
        if (r.decision === 'routed') {
          printJson(io, r);
          return 0;
        }
        for (const w of r.warnings ?? []) io.err(`${prog}: warning: ${w}`);
        // The blocked TASK_RESULT itself, with what the hub did about it (receivers ignore unknown fields).
        printJson(io, { ...r.result, handling: r.handling });
        return r.handling.rerouted_to ? 0 : 1;
      }
      case 'result': {
        const message = await stdinJson(io, 'TASK_RESULT');
        const r = await submitResult(ctx(), message, { as: asOf() });
        for (const w of r.warnings ?? []) io.err(`${prog}: warning: ${w}`);
        printJson(io, r);
        return 0;
      }
      case 'route': {
        printJson(io, await routeOnly(ctx(), await stdinJson(io, 'TASK_DISPATCH')));
        return 0;
      }
      case 'peers': {
        const peers = await listPeers(ctx());
        if (bool(p, 'json')) printJson(io, peers);
        else if (peers.length === 0) io.out('no peers yet: a worker announces itself with heimdall a2a announce (SESSION_ANNOUNCE on stdin)');
        else {
          io.out('agent_id\ttier\tload\tclean\tmcp\tannounced');
          for (const x of peers) {
            io.out(`${x.agent_id}\t${x.model_tier}\t${x.load}\t${x.repo_state.clean ? 'yes' : 'no'}\t${Object.entries(x.mcp_health).map(([s, h]) => `${s}:${h}`).join(',') || '-'}\t${x.announced_at}`);
          }
        }
        return 0;
      }
      default:
        throw unknownWord(USAGE, sub, ['announce', 'dispatch', 'result', 'route', 'peers']);
    }
  },
};
