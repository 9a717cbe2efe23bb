/**
 * heimdall-ledger-mcp: the team ledger (claims, HAIDs, decisions, conflict PRs, capsules) over the
 * Model Context Protocol, built on the official SDK's `Server`. The low-level `Server` (not
 * `McpServer`) is used because the tools publish plain JSON Schemas, the same ones that validate
 * their arguments, rather than zod shapes.
 *
 * Everything tool-independent lives here, once: tools/list, argument validation, HAID attribution,
 * the result shape (a JSON text block plus a `structuredContent` mirror, echoing `haid`) and the
 * error mapping (errors.ts). Tools are a registry (tools/index.ts): one file per concept.
 *
 * Attribution: `clientInfo.name` at initialize becomes the spawn HAID `{root}/{client}`, registered
 * active right away; a call's `client_identity` (a client name or a HAID of this tree) overrides it
 * for that call. Each identity is registered once per connection; a client that sent no name acts
 * as `{root}/mcp`.
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
import type { Ctx } from '../core/context.js';
import { HeimdallError } from '../core/errors.js';
import { spawnAndRegister } from '../core/identity/index.js';
import { withoutBlocking } from '../core/planning/fsx.js';
import { toolErrorResult } from './errors.js';
import { ALL_TOOLS } from './tools/index.js';
import type { ToolDef } from './tools/types.js';
import { type ArgsCheck, compileArgsCheck, signature } from './validate.js';

export const LEDGER_SERVER_INFO = { name: 'heimdall-ledger-mcp', version: '1.0.0' } as const;
/** The revision assumed when initialize names none. */
export const DEFAULT_PROTOCOL_VERSION = '2024-11-05';
/** The revisions answered as requested (others get the SDK's latest). */
export const PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
/** The client name used when initialize gave none. */
export const ANONYMOUS_CLIENT = 'mcp';

export const INSTRUCTIONS =
  'Heimdall team ledger, shared by every agent on this repository. Before editing files, read_claims and make_claim them; release_claim when done. Record team-wide decisions with append_decision; to override another agent, raise_conflict_pr.';

export interface LedgerServerOptions {
  ctx: Ctx;
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

/** A transport decorator that applies `normalizeInitialize` and reports the client's name. */
class InitializeShim implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: unknown) => void;

  constructor(
    private readonly inner: Transport,
    private readonly onClient: (name: string) => void,
  ) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  async start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (e) => this.onerror?.(e);
    this.inner.onmessage = (msg, extra) => {
      const { message, clientName } = normalizeInitialize(msg);
      if (clientName !== undefined) this.onClient(clientName);
      this.onmessage?.(message, extra);
    };
    await this.inner.start();
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
  /** The HAID calls without client_identity are attributed to (registering it if needed). */
  sessionHaid(): string;
}

export function createLedgerServer(opts: LedgerServerOptions): LedgerServer {
  const { ctx } = opts;
  const log = opts.log ?? (() => {});
  const tools = opts.tools ?? ALL_TOOLS;
  const registry = new Map<string, Registered>();
  for (const tool of tools) {
    if (registry.has(tool.name)) throw new Error(`two tools are named ${tool.name}; tool names must be unique`);
    registry.set(tool.name, { tool, check: compileArgsCheck(tool.inputSchema), signature: signature(tool.name, tool.inputSchema) });
  }

  // Attribution state of this connection: identity given -> registered HAID.
  let clientName = ANONYMOUS_CLIENT;
  const haids = new Map<string, string>();
  const attribute = (identity: string): string => {
    let haid = haids.get(identity);
    if (!haid) {
      haid = spawnAndRegister(ctx, identity).haid;
      haids.set(identity, haid);
    }
    return haid;
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
    const identity = typeof args.client_identity === 'string' ? args.client_identity : clientName;
    let haid: string | undefined;
    try {
      const problems = entry.check(args);
      if (problems.length) {
        try {
          haid = attribute(identity); // so even this error echoes who asked, when that is known
        } catch {
          /* the identity is one of the problems, or unusable: reported without a HAID */
        }
        throw new HeimdallError('invalid', `invalid arguments for ${name}: ${problems.join('; ')}. Expected ${entry.signature}`);
      }
      // Core writes wait for busy locks without blocking the event loop (core/planning/lock.ts).
      haid = await withoutBlocking(() => attribute(identity));
      const out = await withoutBlocking(() => entry.tool.run(args, { ctx, haid: haid as string }));
      const structured = { haid, ...out };
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    } catch (e) {
      return toolErrorResult(e, haid, log);
    }
  });

  const onClient = (name: string) => {
    clientName = name;
    try {
      const haid = attribute(name);
      log(`client ${JSON.stringify(name)} attributed as ${haid}`);
    } catch (e) {
      // Reported to the client on its first tool call, where it can act on it.
      log(`cannot register client ${JSON.stringify(name)}: ${(e as Error).message}`);
    }
  };

  return {
    server,
    tools,
    connect: (transport) => server.connect(new InitializeShim(transport, onClient)),
    sessionHaid: () => attribute(clientName),
  };
}
