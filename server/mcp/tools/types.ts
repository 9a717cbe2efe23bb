/**
 * What a tool of heimdall-ledger-mcp is: a name, a description that tells an agent when to call it,
 * JSON Schemas for its arguments and its result, and a `run` that makes one core call. The server
 * (server.ts) does everything else once for all tools: argument validation against `inputSchema`,
 * HAID attribution, the JSON text block plus `structuredContent`, and the error mapping.
 *
 * `defineTool` adds the two fields every tool shares, so a tool file never repeats them:
 * the optional `client_identity` argument and the `haid` echoed in every result.
 */
import type { Ctx, CallerIdentity } from '../../core/index.js';
import type { Runtime } from '../../runtime.js';

/** The subset of JSON Schema the tools use (draft-07 and 2020-12 read it the same way). */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: string[];
  additionalProperties?: boolean;
}

export interface ObjectSchema extends JsonSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
}

export interface ToolContext {
  /** The core context, its writes authored by the calling agent. */
  ctx: Ctx;
  /** The HAID the call is attributed to: the connection's identity, or the call's client_identity. */
  haid: string;
  /** The same agent with its herd address (null for a client HAID such as `{root}/cursor`). */
  identity: CallerIdentity;
  /** The composition root (the wire log for tools that append events). */
  runtime: Runtime;
}

export interface ToolDef {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema: ObjectSchema;
  /** One core call. Throw HeimdallError for a refusal; the server maps it to an isError result. */
  run(args: Record<string, unknown>, tc: ToolContext): Record<string, unknown> | Promise<Record<string, unknown>>;
}

export const CLIENT_IDENTITY: JsonSchema = { type: 'string', description: 'Act as another agent for this call (HAID or name.instance@team)' };

export interface ToolSpec<A> {
  name: string;
  description: string;
  input?: { properties?: Record<string, JsonSchema>; required?: string[] };
  output: { properties: Record<string, JsonSchema>; required?: string[] };
  run(args: A, tc: ToolContext): Record<string, unknown> | Promise<Record<string, unknown>>;
}

export function defineTool<A>(spec: ToolSpec<A>): ToolDef {
  const inProps = { ...(spec.input?.properties ?? {}), client_identity: CLIENT_IDENTITY };
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: {
      type: 'object',
      properties: inProps,
      ...(spec.input?.required?.length ? { required: spec.input.required } : {}),
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { haid: { type: 'string' }, ...spec.output.properties },
      required: ['haid', ...(spec.output.required ?? Object.keys(spec.output.properties))],
    },
    run: (args, tc) => spec.run(args as A, tc),
  };
}

/** Result schema of a claim, shared by the claim tools. */
export const CLAIM_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    haid: { type: 'string' },
    surfaces: { type: 'array', items: { type: 'string' } },
    task: { type: 'string' },
    task_ref: { type: 'string' },
    created_at: { type: 'string' },
    expires_at: { type: 'string' },
    status: { type: 'string', enum: ['active', 'expired', 'retired', 'released'] },
  },
  // Also in each claim: address (the holder's herd address), and released_at, released_by, reason.
  required: ['id', 'haid', 'surfaces', 'task_ref', 'expires_at'],
};
