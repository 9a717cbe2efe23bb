/** herd_checkin and herd_send (core: server/core/herd). The caller is client_identity, an address such as mason.1@core. */
import { HeimdallError } from '../../core/errors.js';
import { checkin, resolveCaller, send } from '../../core/herd/checkin.js';
import { HERD_MESSAGE_TYPES } from '../../core/herd/team.js';
import type { Ctx } from '../../core/context.js';
import type { WireLog } from '../../core/wire/log.js';
import { type ToolDef, defineTool } from './types.js';

/**
 * Run `fn` with the wire log the environment selects, opened for this call and closed after (a
 * check-in is a handful of calls per session; a long-lived NATS connection would outlive stdin).
 * A log that cannot be opened is reported in `warnings`, and the call goes on without it.
 */
export async function withWireLog<T extends { warnings?: string[] }>(ctx: Ctx, fn: (wire: WireLog | undefined) => Promise<T>): Promise<T> {
  const { openWireLog } = await import('../../runtime.js');
  let wire: WireLog | undefined;
  let problem: string | undefined;
  try {
    wire = await openWireLog(ctx);
  } catch (e) {
    problem = `wire log unavailable, no event appended: ${(e as Error).message}`;
  }
  try {
    const r = await fn(wire);
    return problem ? { ...r, warnings: [...(r.warnings ?? []), problem] } : r;
  } finally {
    await wire?.close();
  }
}

function caller(ctx: Ctx, args: { client_identity?: string }, haid: string): string {
  const who = resolveCaller(ctx, args.client_identity, haid);
  if (!who) throw new HeimdallError('usage', 'name yourself with client_identity as name.instance@team, e.g. "mason.1@core"');
  return who;
}

/** {id, from, to, type, body, ts} */
const MESSAGE = { type: 'object' as const };

export const herdTools: ToolDef[] = [
  defineTool<{ status: string; task?: string; depends?: string[]; client_identity?: string }>({
    name: 'herd_checkin',
    description: 'Check in at each transition (phase done, blocked, before finishing): reports your status, returns your messages and what linked agents are doing.',
    input: {
      properties: {
        status: { type: 'string', minLength: 1, description: 'Where you are, one line' },
        task: { type: 'string', description: 'Task id you work on' },
        depends: { type: 'array', items: { type: 'string' }, description: 'Task ids it depends on' },
      },
      required: ['status'],
    },
    output: {
      properties: {
        messages: { type: 'array', items: MESSAGE },
        context: { description: 'string or null' },
        heartbeat_ack: { type: 'boolean' },
        agent: { type: 'string' },
        tier: { type: 'string' },
        warnings: { type: 'array', items: { type: 'string' } },
      },
      required: ['messages', 'context', 'heartbeat_ack', 'agent'],
    },
    run: async (a, { ctx, haid }) => {
      const as = caller(ctx, a, haid);
      const r = await withWireLog(ctx, (wire) => checkin(ctx, { as, status: a.status, task: a.task, depends: a.depends }, { wire }));
      return { messages: r.messages, context: r.context, heartbeat_ack: r.heartbeat_ack, agent: r.agent, tier: r.tier, ...(r.warnings ? { warnings: r.warnings } : {}) };
    },
  }),
  defineTool<{ to: string; type: string; body: string; client_identity?: string }>({
    name: 'herd_send',
    description: 'Message agents: to name.instance@team, @anyone (first to check in) or @everyone. directive = change course, inform = context, flag = needs attention.',
    input: {
      properties: {
        to: { type: 'string', minLength: 1 },
        type: { type: 'string', enum: [...HERD_MESSAGE_TYPES] },
        body: { type: 'string', minLength: 1 },
      },
      required: ['to', 'type', 'body'],
    },
    output: { properties: { id: { type: 'string' }, recipients: { type: 'array', items: { type: 'string' } }, pooled: { type: 'boolean' } } },
    run: (a, { ctx, haid }) => {
      const r = send(ctx, { from: caller(ctx, a, haid), to: a.to, type: a.type, body: a.body });
      return { id: r.id, recipients: r.recipients, pooled: r.pooled };
    },
  }),
];
