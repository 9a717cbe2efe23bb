/**
 * Who is calling: one rule for every transport, so an agent has one identity whether it speaks MCP,
 * runs the CLI from its shell, or is Studio's operator. In order of precedence:
 *
 *  1. a name the call itself gives (CLI `--as`/`--haid`, MCP `client_identity` on one call);
 *  2. `HEIMDALL_AGENT` in the process environment: the agent session, as a HAID of this tree, a herd
 *     address (`mason.1@core`), a session (`claude-code.2`, i.e. `claude-code.2@team`) or a bare
 *     client name (`cursor`, shared by everything that sets it);
 *  3. `HEIMDALL_HAID` (the 1.x CLI variable, same forms);
 *  4. a session id the client puts in the environment of what it spawns (CLAUDE_CODE_SESSION_ID from
 *     Claude Code; CODEX_THREAD_ID where Codex passes it): the identity bound to that session, or a
 *     new one bound to it, so a reconnect of the same session, and the CLI run from that session's
 *     shell, act as the same agent;
 *  5. otherwise the transport's default: an MCP connection gets a fresh session identity
 *     (`{root}/{client}.s{n}`, never shared); the CLI acts as `{root}/cli` (its writes carry no
 *     author); Studio as its operator `{root}/studio`.
 *
 * Named identities (1-4) are registered in haids.json with their herd address when first seen.
 */
import { createHash } from 'node:crypto';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { type AgentIdentity, clientAgentName, identityOfHaid, parseAgentRef } from './agent.js';
import { AGENT_ENV, HAID_ENV, SESSION_ENV, envNamesCaller, namingValue, usableSessionId } from './env.js';
import { type HaidRegistry, ensureRegistered, readRegistry, resolveAgent, rootHaid, sessionIdentity } from './registry.js';

export { AGENT_ENV, SESSION_ENV, envNamesCaller };

export type CallerSource = 'explicit' | 'HEIMDALL_AGENT' | 'HEIMDALL_HAID' | 'session' | 'fresh' | 'default';

export interface CallerIdentity extends AgentIdentity {
  /** Which rule above named it. */
  source: CallerSource;
  /** The environment variable behind `session`. */
  via?: string;
  /** False for a transport default that names nobody in particular (the plain CLI): its writes carry no author. */
  known: boolean;
}

export interface CallerInput {
  /** Rule 1: a name given by the call (CLI --as/--haid, MCP client_identity). */
  explicit?: string;
  /** What `explicit` came from, for messages (`--as`, `client_identity`). */
  explicitKind?: string;
  /** The process environment (rules 2-4). */
  env: Record<string, string | undefined>;
  /**
   * Rule 5: `fresh` gives a new session identity for this client name (MCP: clientInfo.name);
   * `fallback` uses `{root}/{client}` without registering it (the CLI: `cli`; Studio: `studio`).
   */
  otherwise: { fresh: string } | { fallback: string; known: boolean };
  /** Rule 4 allocates for this client when the session is new (MCP: clientInfo.name). Default: the variable's client. */
  client?: string;
}

function sessionKey(client: string, id: string): string {
  return `${client}:${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}

/** The first session id in `env` this build knows about, as a registry key. */
export function sessionFromEnv(env: Record<string, string | undefined>): { key: string; variable: string; client: string } | undefined {
  for (const s of SESSION_ENV) {
    const id = usableSessionId(env[s.variable]);
    if (id) return { key: sessionKey(s.client, id), variable: s.variable, client: s.client };
  }
  return undefined;
}

function named(ctx: Ctx, value: string, kind: string, source: CallerSource): CallerIdentity {
  const id = resolveAgent(ctx, value, kind, { clients: true });
  if (id.haid === rootHaid(ctx)) throw new HeimdallError('invalid', `${kind} ${value} is the root HAID; an agent acts under it, e.g. ${id.haid}/cursor`);
  ensureRegistered(ctx, id);
  return { ...id, source, known: true };
}

/** Resolve the caller by the rules in this file's header (registering it when it is named). */
export function identifyCaller(ctx: Ctx, input: CallerInput): CallerIdentity {
  if (input.explicit !== undefined && input.explicit !== '') return named(ctx, input.explicit, input.explicitKind ?? 'caller', 'explicit');
  const agent = namingValue(input.env, AGENT_ENV);
  if (agent) return named(ctx, agent, `$${AGENT_ENV}`, 'HEIMDALL_AGENT');
  const legacy = namingValue(input.env, HAID_ENV);
  if (legacy) return named(ctx, legacy, `$${HAID_ENV}`, 'HEIMDALL_HAID');
  const session = sessionFromEnv(input.env);
  if (session) {
    const client = input.client !== undefined ? clientAgentName(input.client) : session.client;
    const { record } = sessionIdentity(ctx, client, session.key);
    return { ...identityOfHaid(rootHaid(ctx), record.haid), source: 'session', via: session.variable, known: true };
  }
  if ('fresh' in input.otherwise) {
    const { record } = sessionIdentity(ctx, clientAgentName(input.otherwise.fresh));
    return { ...identityOfHaid(rootHaid(ctx), record.haid), source: 'fresh', known: true };
  }
  const root = rootHaid(ctx);
  return { ...identityOfHaid(root, `${root}/${input.otherwise.fallback}`), source: 'default', known: input.otherwise.known };
}

export interface CallerLookup {
  /**
   * The agent the environment names, by rules 2-4 above; undefined when it names nobody, names a
   * client session this tree has not seen yet (`unbound`: that session holds nothing), or the tree
   * has no root HAID yet (then nothing has been claimed in it either).
   */
  identity?: AgentIdentity;
  /** Which rule named it; `none` when no rule applies. */
  source: Exclude<CallerSource, 'explicit' | 'fresh' | 'default'> | 'none';
  /** The environment variable behind `session`. */
  via?: string;
  /** A session id no identity is bound to yet. */
  unbound?: boolean;
}

/**
 * Who the environment says is calling, by the same rules 2-4 as `identifyCaller`, without writing
 * anything: nothing is registered and no session is bound (for checks that run before every edit,
 * such as the claims hook, which must neither take a lock nor change state). Throws `invalid` for a
 * HEIMDALL_AGENT / HEIMDALL_HAID that names no agent of this tree. `registry`: haids.json as the
 * caller already read it (`readRegistry`), so a hot path reads it once.
 */
export function lookupCaller(ctx: Ctx, env: Record<string, string | undefined>, registry?: HaidRegistry): CallerLookup {
  const reg = registry ?? readRegistry(ctx);
  const byName = (value: string, variable: string, source: 'HEIMDALL_AGENT' | 'HEIMDALL_HAID'): CallerLookup => {
    if (!reg.root) return { source };
    const id = parseAgentRef(reg.root, value, `$${variable}`, { clients: true });
    if (id.haid === reg.root) throw new HeimdallError('invalid', `$${variable} ${value} is the root HAID; an agent acts under it, e.g. ${id.haid}/cursor`);
    return { identity: id, source };
  };
  const agent = namingValue(env, AGENT_ENV);
  if (agent) return byName(agent, AGENT_ENV, 'HEIMDALL_AGENT');
  const legacy = namingValue(env, HAID_ENV);
  if (legacy) return byName(legacy, HAID_ENV, 'HEIMDALL_HAID');
  const session = sessionFromEnv(env);
  if (session) {
    const haid = reg.sessions[session.key];
    if (!reg.root || haid === undefined) return { source: 'session', via: session.variable, unbound: true };
    return { identity: identityOfHaid(reg.root, haid), source: 'session', via: session.variable };
  }
  return { source: 'none' };
}
