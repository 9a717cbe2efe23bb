import {
  parseAgentAddress,
  checkin,
  listAgents,
  peekInbox,
  send,
  isAddressLike,
  readTeam,
  teamFile,
  writeDefaultTeam,
} from '../../core/index.js';
import { bool, list, parseArgs, requireStr, str, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall herd checkin --as ADDRESS --status TEXT [--task ID | --no-task] [--depends ID,ID]',
  '       heimdall herd send --as ADDRESS --to ADDRESS|@anyone|@everyone --type directive|inform|flag [--body TEXT | body on stdin]',
  '       heimdall herd inbox --as ADDRESS          (pending messages, not drained)',
  '       heimdall herd status                      (every known agent: tier, heartbeat, last check-in, status)',
  '       heimdall herd team [--init]               (effective tiers; --init writes .planning/herd/team.json)',
  '  all take --json; --client-identity is the same as --as. ADDRESS: a herd address (mason.1@core), a session',
  '  (claude-code.2, i.e. claude-code.2@team) or the same agent\'s HAID. Default caller: HEIMDALL_AGENT, else the client session',
].join('\n');

function oneLine(s: string, max = 100): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
}

export const command: Command = {
  summary: 'herd check-in and messages',
  async run(argv, { io, ctx, prog, runtime, caller }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: {
        as: 'string',
        'client-identity': 'string',
        status: 'string',
        task: 'string',
        'no-task': 'boolean',
        depends: 'string',
        to: 'string',
        type: 'string',
        body: 'string',
        init: 'boolean',
        json: 'boolean',
      },
      positionals: [1, 1],
    });
    const json = bool(p, 'json');
    /** The caller (flag, else the environment's agent) and the context its writes are authored by. */
    const as = async () => {
      const a = str(p, 'as');
      const c = str(p, 'client-identity');
      if (a !== undefined && c !== undefined && a !== c) throw usageError(USAGE, '--as and --client-identity name different callers; give one');
      const flag = a ?? c;
      // A bare word is no agent: refused with the accepted forms rather than taken as a client name.
      if (flag !== undefined && !flag.includes('/') && !isAddressLike(flag)) parseAgentAddress(flag, 'caller');
      const who = await caller(flag, a !== undefined ? '--as' : '--client-identity');
      if (!who.identity.known) throw usageError(USAGE, 'name the caller with --as ADDRESS (e.g. --as mason.1@core) or HEIMDALL_AGENT');
      if (!who.identity.address) throw usageError(USAGE, `${who.identity.haid} names a client, not an agent session, so it has no herd address: name the caller as name.instance@team (e.g. --as mason.1@core)`);
      return { ctx: who.ctx, address: who.identity.address };
    };
    switch (p.positionals[0]) {
      case 'checkin': {
        if (bool(p, 'no-task') && str(p, 'task') !== undefined) throw usageError(USAGE, '--task and --no-task contradict each other');
        const dependsFlag = str(p, 'depends');
        const me = await as();
        const input = {
          as: me.address,
          status: requireStr(p, 'status', USAGE),
          task: bool(p, 'no-task') ? null : str(p, 'task'),
          depends: dependsFlag === undefined ? undefined : list(dependsFlag),
        };
        // Every check-in appends an agent.heartbeat to the wire log the environment selects.
        // If the log cannot be opened (NATS down, a bad HEIMDALL_STREAM_URL) the check-in still counts.
        const wire = await runtime.tryWireLog();
        if (wire.problem) io.err(`${prog}: warning: no agent.heartbeat wire event: ${wire.problem}`);
        const r = await checkin(me.ctx, input, { wire: wire.log });
        for (const w of r.warnings ?? []) io.err(`${prog}: warning: ${w}`);
        if (json) {
          printJson(io, r);
          return 0;
        }
        io.out(`heartbeat_ack ${r.agent} (${r.tier}) at ${r.checked_in_at}`);
        io.out(`messages: ${r.messages.length}`);
        for (const m of r.messages) io.out(`  [${m.type}] ${m.from}${m.to.startsWith('@') ? ` (${m.to})` : ''}: ${m.body}`);
        if (r.context === null) io.out(`context: none${r.context_budget === 0 ? ` (the ${r.tier} tier has no context budget)` : ' (nothing linked to your work)'}`);
        else {
          io.out(`context (${r.context_tokens}/${r.context_budget} tokens, ${r.tokenizer}):`);
          for (const l of r.context.split('\n')) io.out(`  ${l}`);
        }
        return 0;
      }
      case 'send': {
        let body = str(p, 'body');
        if (body === undefined) {
          if (io.stdinIsTTY) throw usageError(USAGE, 'give the message with --body TEXT or on stdin');
          body = (await io.readStdin()).replace(/\n$/, '');
        }
        const me = await as();
        const r = send(me.ctx, { from: me.address, to: requireStr(p, 'to', USAGE), type: requireStr(p, 'type', USAGE), body });
        if (r.note) io.err(`${prog}: note: ${r.note}`);
        if (json) printJson(io, r);
        else io.out(`${r.id} ${r.type} -> ${r.pooled ? '@anyone (the first eligible agent to check in)' : r.recipients.join(', ') || 'nobody'}`);
        return 0;
      }
      case 'inbox': {
        const me = await as();
        const r = peekInbox(me.ctx, me.address);
        if (r.tornLine) io.err(`${prog}: warning: mailbox.jsonl line ${r.tornLine} is cut short (a writer died mid-line); it is removed at the next check-in or send`);
        if (json) printJson(io, r);
        else {
          io.out(`${r.agent} (${r.tier}): ${r.messages.length} pending`);
          for (const m of r.messages) io.out(`  ${m.id} [${m.type}] ${m.from}${m.pooled ? ' (@anyone, first to check in takes it)' : ''}: ${oneLine(m.body)}`);
        }
        return 0;
      }
      case 'status': {
        const r = listAgents(ctx());
        if (json) {
          printJson(io, r);
          return 0;
        }
        if (r.agents.length === 0) {
          io.out('no agents yet: agents appear at their first check-in (heimdall herd checkin --as name.1@team --status ...)');
          return 0;
        }
        io.out('address\ttier\theartbeat\tlast check-in\tpending\ttask\tstatus');
        for (const a of r.agents) {
          const last = a.last_checkin === null ? 'never' : `${a.seconds_since_checkin}s ago`;
          io.out(`${a.address}\t${a.tier}\t${a.heartbeat.replace('_', ' ')}\t${last}\t${a.pending}\t${a.task ?? '-'}\t${a.status === null ? '-' : oneLine(a.status, 80)}`);
        }
        if (r.pooled) io.out(`@anyone: ${r.pooled} message(s) waiting for the first eligible check-in`);
        return 0;
      }
      case 'team': {
        if (bool(p, 'init')) {
          const file = writeDefaultTeam(ctx());
          if (!json) io.out(`wrote ${file}`);
        }
        const team = readTeam(ctx());
        if (json) printJson(io, { file: teamFile(ctx()), ...team });
        else {
          io.out('tier\tbudget\treceives\tsends\tvisibility');
          for (const [n, t] of Object.entries(team.tiers)) io.out(`${n}\t${t.context_budget}\t${t.receives.join(',')}\t${t.sends.join(',')}\t${t.visibility}`);
          io.out(`agents: ${Object.entries(team.agents).map(([a, t]) => `${a}=${t}`).join(' ')}; default ${team.default_tier}`);
        }
        return 0;
      }
      default:
        throw unknownWord(USAGE, p.positionals[0], ['checkin', 'send', 'inbox', 'status', 'team']);
    }
  },
};
