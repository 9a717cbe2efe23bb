/**
 * heimdall-ledger-mcp: the team ledger (claims, HAIDs, decisions, conflict PRs, capsules) over the
 * Model Context Protocol, built on the official SDK's `Server`. The low-level `Server` (not
 * `McpServer`) is used because the tools publish plain JSON Schemas, the same ones that validate
 * their arguments, rather than zod shapes.
 *
 * Everything tool-independent lives here, once: tools/list, argument validation, attribution, the
 * result shape (a JSON text block plus a `structuredContent` mirror, echoing `haid`) and the error
 * mapping (errors.ts). Tools are a registry (tools/index.ts): one file per concept.
 *
 * Attribution: one identity per connection, fixed when `initialize` arrives and resolved by the
 * composition root's one rule (server/core/identity/session.ts): HEIMDALL_AGENT in the server's
 * environment, else the client session id the host put there (Claude Code's
 * CLAUDE_CODE_SESSION_ID: a reconnect keeps its identity), else a fresh session identity
 * `{root}/{client}.s{n}` for this connection, never shared with another. A second `initialize` on
 * the connection is refused, so the attribution of calls already sent never changes. A call's
 * `client_identity` (a HAID, a herd address, `name.instance` or a client name) acts as that agent
 * for that one call. Every call's writes are authored (`ctx.actor`) by the identity it ran as.
 *
 * Leniency at initialize: the spec's own example sends only `clientInfo: {name}`. Missing
 * `protocolVersion` is read as 2024-11-05 (the revision this contract was written against), missing
 * `capabilities` as `{}` and a missing `clientInfo.version` as "0", so such clients are served.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { HeimdallError, withoutBlocking, type CallerIdentity } from '../core/index.js';
import type { Runtime } from '../runtime.js';
import { toolErrorResult } from './errors.js';
import { ALL_TOOLS } from './tools/index.js';
import type { ToolDef } from './tools/types.js';
import { type ArgsCheck, compileArgsCheck, signature } from './validate.js';

/**
 * The tool contract's semver. 2.0.0: release_claim releases one claim by `id` or all of yours and
 * answers `released` as a list; make_claim adds a claim per task (claiming the same task extends).
 */
export const LEDGER_SERVER_INFO = { name: 'heimdall-ledger-mcp', version: '2.0.0' } as const;
/** The revision assumed when initialize names none. */
export const DEFAULT_PROTOCOL_VERSION = '2024-11-05';
/** The revisions answered as requested (others get the SDK's latest). */
export const PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
/** The client name used when initialize gave none. */
export const ANONYMOUS_CLIENT = 'mcp';

export const INSTRUCTIONS =
  'Heimdall team ledger, shared by every agent on this repository. Before editing files, read_claims and make_claim them; release_claim when done. Record team-wide decisions with append_decision; to override another agent, raise_conflict_pr.';

export interface LedgerServerOptions {
  /** The composition root: the planning tree, the wire log, and who the caller is. */
  runtime: Runtime;
  tools?: ToolDef[];
  /** Diagnostics; the stdio entry sends them to stderr. */
  log?: (message: string) => void;
}

interface Registered {
  tool: ToolDef;
  check: ArgsCheck;
  signature: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Fill the initialize fields a minimal client leaves out (see the header comment). */
export function normalizeInitialize(message: JSONRPCMessage): { message: JSONRPCMessage; clientName?: string } {
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== 'initialize' || m.id === undefined) return { message };
  if (m.params !== undefined && !isObject(m.params)) return { message }; // let the SDK say what is wrong
  const params: Record<string, unknown> = { ...((m.params as Record<string, unknown>) ?? {}) };
  if (params.protocolVersion === undefined) params.protocolVersion = DEFAULT_PROTOCOL_VERSION;
  if (params.capabilities === undefined) params.capabilities = {};
  let clientName: string | undefined;
  if (params.clientInfo === undefined) params.clientInfo = { name: ANONYMOUS_CLIENT, version: '0' };
  else if (isObject(params.clientInfo)) {
    const info = { ...params.clientInfo };
    if (typeof info.name === 'string') clientName = info.name;
    if (info.version === undefined) info.version = '0';
    params.clientInfo = info;
  }
  return { message: { ...(message as object), params } as JSONRPCMessage, clientName };
}

/**
 * A transport decorator that applies `normalizeInitialize`, reports the client's name once, and
 * refuses a second `initialize` on the connection itself (it never reaches the SDK), so the identity
 * fixed by the first cannot change under calls already sent.
 */
class InitializeShim implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: unknown) => void;
  private initialized = false;

  constructor(
    private readonly inner: Transport,
    private readonly onClient: (name: string | undefined) => Promise<string | undefined>,
  ) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  async start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (e) => this.onerror?.(e);
    // Messages reach the SDK one after another, in the order they came; `initialize` is held until
    // the connection's identity is resolved, so its answer, and every call after it, follow that.
    this.inner.onmessage = (msg, extra) => {
      this.queue = this.queue.then(() => this.deliver(msg, extra)).catch((e: Error) => this.onerror?.(e));
    };
    await this.inner.start();
  }

  private queue: Promise<void> = Promise.resolve();
  private who: string | undefined;

  private async deliver(msg: JSONRPCMessage, extra: unknown): Promise<void> {
    const m = msg as { method?: unknown; id?: unknown };
    if (m.method === 'initialize' && m.id !== undefined) {
      if (this.initialized) {
        const error = {
          code: ErrorCode.InvalidRequest,
          message: `initialize was already received on this connection${this.who ? ` (acting as ${this.who})` : ''}; a connection's identity is fixed: open a new connection for a new session`,
        };
        await this.inner.send({ jsonrpc: '2.0', id: m.id as string | number, error } as JSONRPCMessage);
        return;
      }
      this.initialized = true;
      const { message, clientName } = normalizeInitialize(msg);
      this.who = await this.onClient(clientName);
      this.onmessage?.(message, extra);
      return;
    }
    this.onmessage?.(msg, extra);
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }
}

export interface LedgerServer {
  /** The SDK server (for tests and for hosts that compose several servers). */
  server: Server;
  tools: ToolDef[];
  /** Connect to a transport (stdio in production, in-memory in tests). */
  connect(transport: Transport): Promise<void>;
  /** The identity of this connection: calls without client_identity act as it (fixed at initialize). */
  sessionIdentity(): Promise<CallerIdentity>;
  /** Its HAID. */
  sessionHaid(): Promise<string>;
}

export function createLedgerServer(opts: LedgerServerOptions): LedgerServer {
  const { runtime } = opts;
  const log = opts.log ?? (() => {});
  const tools = opts.tools ?? ALL_TOOLS;
  const registry = new Map<string, Registered>();
  for (const tool of tools) {
    if (registry.has(tool.name)) throw new Error(`two tools are named ${tool.name}; tool names must be unique`);
    registry.set(tool.name, { tool, check: compileArgsCheck(tool.inputSchema), signature: signature(tool.name, tool.inputSchema) });
  }

  // The connection's identity, fixed once (at initialize, or at the first call of a client that
  // skipped it); a failure to resolve it is kept and reported on every call, where the agent reads it.
  let session: Promise<CallerIdentity> | undefined;
  const fix = (clientName: string | undefined): Promise<CallerIdentity> => {
    // Registering the session's HAID writes haids.json: wait for its lock without blocking the loop.
    const p = withoutBlocking(() => runtime.identify({ client: clientName, otherwise: { fresh: clientName ?? ANONYMOUS_CLIENT } }));
    p.catch(() => undefined); // reported at each call, not as an unhandled rejection
    session = p;
    return p;
  };
  const own = (): Promise<CallerIdentity> => session ?? fix(undefined);
  // client_identity overrides, resolved once per connection (a name that fails is tried again).
  const others = new Map<string, Promise<CallerIdentity>>();
  const actingAs = (explicit: string | undefined): Promise<CallerIdentity> => {
    if (explicit === undefined) return own();
    let id = others.get(explicit);
    if (!id) {
      const p = withoutBlocking(() => runtime.identify({ explicit, explicitKind: 'client_identity', otherwise: { fresh: ANONYMOUS_CLIENT } }));
      p.catch(() => others.delete(explicit));
      others.set(explicit, p);
      id = p;
    }
    return id;
  };

  const server = new Server(LEDGER_SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const { name } = req.params;
    const entry = registry.get(name);
    if (!entry) {
      // A JSON-RPC error (-32602), as the MCP spec shows for unknown tools; a plain Error with a code
      // keeps the SDK from prefixing the message with "MCP error -32602:".
      throw Object.assign(new Error(`Unknown tool ${JSON.stringify(name)}; expected one of: ${[...registry.keys()].join(', ')}`), {
        code: ErrorCode.InvalidParams,
      });
    }
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    const explicit = typeof args.client_identity === 'string' ? args.client_identity : undefined;
    let identity: CallerIdentity | undefined;
    try {
      const problems = entry.check(args);
      if (problems.length) {
        try {
          identity = await actingAs(explicit); // so even this error echoes who asked, when that is known
        } catch {
          /* the identity is one of the problems, or unusable: reported without a HAID */
        }
        throw new HeimdallError('invalid', `invalid arguments for ${name}: ${problems.join('; ')}. Expected ${entry.signature}`);
      }
      identity = await actingAs(explicit);
      const acting = identity;
      // Core writes wait for busy locks without blocking the event loop (core/planning/lock.ts).
      const out = await withoutBlocking(() => entry.tool.run(args, { ctx: runtime.actingAs(acting), haid: acting.haid, identity: acting, runtime }));
      const structured = { haid: identity.haid, ...out };
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    } catch (e) {
      return toolErrorResult(e, identity?.haid, log);
    }
  });

  const onClient = (clientName: string | undefined): Promise<string | undefined> =>
    fix(clientName).then(
      (id) => {
        log(`client ${JSON.stringify(clientName ?? ANONYMOUS_CLIENT)} attributed as ${id.haid}${id.address ? ` (${id.address})` : ''}, ${id.source}${id.via ? ` ${id.via}` : ''}`);
        return id.haid;
      },
      (e: Error) => {
        // Reported to the client on its first tool call, where it can act on it.
        log(`cannot attribute client ${JSON.stringify(clientName ?? ANONYMOUS_CLIENT)}: ${e.message}`);
        return undefined;
      },
    );

  return {
    server,
    tools,
    connect: (transport) => server.connect(new InitializeShim(transport, onClient)),
    sessionIdentity: own,
    sessionHaid: async () => (await own()).haid,
  };
}
