/** herd_checkin and herd_send (core: server/core/herd). The caller is the connection's agent, by its herd address. */
import { HeimdallError, checkin, send, HERD_MESSAGE_TYPES } from '../../core/index.js';
import type { ToolContext } from './types.js';
import { type ToolDef, defineTool } from './types.js';

/** The calling agent's herd address: its HAID and its address are one identity. */
function caller({ identity }: ToolContext): string {
  if (!identity.address) {
    throw new HeimdallError(
      'usage',
      `${identity.haid} names a client, not an agent session, so it has no herd address; name yourself with client_identity as name.instance@team, e.g. "mason.1@core" (or start the server with HEIMDALL_AGENT)`,
    );
  }
  return identity.address;
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
    run: async (a, tc) => {
      const as = caller(tc);
      const wire = await tc.runtime.tryWireLog();
      const r = await checkin(tc.ctx, { as, status: a.status, task: a.task, depends: a.depends }, { wire: wire.log });
      const warnings = [...(r.warnings ?? []), ...(wire.problem ? [`wire log unavailable, no event appended: ${wire.problem}`] : [])];
      return { messages: r.messages, context: r.context, heartbeat_ack: r.heartbeat_ack, agent: r.agent, tier: r.tier, ...(warnings.length ? { warnings } : {}) };
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
    run: (a, tc) => {
      const r = send(tc.ctx, { from: caller(tc), to: a.to, type: a.type, body: a.body });
      return { id: r.id, recipients: r.recipients, pooled: r.pooled };
    },
  }),
];
