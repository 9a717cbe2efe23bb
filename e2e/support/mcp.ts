/**
 * The built MCP server (bin/heimdall-ledger-mcp -> dist/mcp/stdio.js) driven by the SDK's own Client
 * over stdio, as an MCP host drives it. Shared by the MCP end-to-end specs.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { REPO_ROOT } from '../../server/testing/fixtures.js';

/** The shim that starts the bundled server (it calls dist/mcp/stdio.js's main). */
export const MCP_SHIM = path.join(REPO_ROOT, 'bin/heimdall-ledger-mcp');

/**
 * Start a server process with `env` (PATH is kept) and connect a client named `clientName`. The client
 * lists the tools first, so it then checks every structuredContent against the tool's outputSchema.
 */
export async function connectMcp(env: Record<string, string>, clientName = 'claude-code'): Promise<{ client: Client; pid: number | null }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_SHIM],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  return { client, pid: transport.pid };
}

/** Call a tool; its text content parsed, `isError: true` added on an error, else equal to its structuredContent. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = JSON.parse((r.content[0] as { text: string }).text);
  if (r.isError) return { isError: true, ...text };
  expect(r.structuredContent).toEqual(text);
  return text;
}
