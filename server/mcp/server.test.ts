import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { claimsFile } from '../core/claims/claims.js';
import { writeCapsule } from '../core/capsules/capsules.js';
import { type Ctx, makeCtx } from '../core/context.js';
import { HeimdallError } from '../core/errors.js';
import { listHaids, retireHaid, rootHaid } from '../core/identity/registry.js';
import { tailLog } from '../core/log/protocolLog.js';
import { fixedClock, sequentialIds } from '../core/ports.js';
import { createRuntime } from '../runtime.js';
import { LEDGER_SERVER_INFO, createLedgerServer } from './server.js';
import { LEDGER_TOOLS, defineTool } from './tools/index.js';
import { until } from '../testing/fixtures.js';

const T0 = Date.parse('2026-06-11T12:07:27Z');
const dirs: string[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function planning(): Ctx {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-mcp-'));
  dirs.push(base);
  return makeCtx(path.join(base, '.planning'), { clock: fixedClock(T0), ids: sequentialIds('x') });
}

async function connect(ctx: Ctx, clientName: string, tools = LEDGER_TOOLS) {
  const ledger = createLedgerServer({ runtime: createRuntime({ ctx }), tools });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await ledger.connect(serverSide);
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(clientSide);
  clients.push(client);
  await client.listTools(); // caches the output-schema validators: every result below is checked against them
  return client;
}

const call = (c: Client, name: string, args: Record<string, unknown> = {}) => c.callTool({ name, arguments: args }) as Promise<CallToolResult>;

function payload(r: CallToolResult): Record<string, unknown> {
  const block = r.content[0] as { type: string; text: string };
  expect(block.type).toBe('text');
  const parsed = JSON.parse(block.text) as Record<string, unknown>;
  if (!r.isError) expect(r.structuredContent).toEqual(parsed); // the structured mirror says the same
  return parsed;
}

describe('initialize and attribution', () => {
  it('answers with serverInfo and tools capability, and gives the connection its own session identity at initialize', async () => {
    const ctx = planning();
    const client = await connect(ctx, 'cursor');
    expect(client.getServerVersion()).toEqual(LEDGER_SERVER_INFO);
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    expect(client.getInstructions()).toMatch(/make_claim/);
    const root = rootHaid(ctx);
    expect(listHaids(ctx).haids).toEqual([{ haid: `${root}/cursor.s1`, role: 'cursor', address: 'cursor.s1@team', status: 'active', registered_at: '2026-06-11T12:07:27Z' }]);
  });

  it('two connections of the same client are two agents; HEIMDALL_AGENT names the session instead', async () => {
    const ctx = planning();
    const a = await connect(ctx, 'claude-code');
    const b = await connect(ctx, 'claude-code');
    const root = rootHaid(ctx);
    expect(payload(await call(a, 'read_claims')).haid).toBe(`${root}/claude-code.s1`);
    expect(payload(await call(b, 'read_claims')).haid).toBe(`${root}/claude-code.s2`);
    const named = await connect(makeCtx(ctx.root, { clock: ctx.clock, ids: ctx.ids, env: { HEIMDALL_AGENT: 'claude-code.7' } }), 'claude-code');
    expect(payload(await call(named, 'read_claims')).haid).toBe(`${root}/claude-code.7`);
  });

  it('client_identity attributes one call to another agent, named any way (registered too)', async () => {
    const ctx = planning();
    const client = await connect(ctx, 'Claude Code');
    const root = rootHaid(ctx);
    expect(payload(await call(client, 'read_claims')).haid).toBe(`${root}/claude-code.s1`);
    expect(payload(await call(client, 'read_claims', { client_identity: 'copilot' })).haid).toBe(`${root}/copilot`);
    expect(payload(await call(client, 'read_claims', { client_identity: `${root}/copilot/w2` })).haid).toBe(`${root}/copilot/w2`);
    expect(payload(await call(client, 'read_claims', { client_identity: 'mason.1@core' })).haid).toBe(`${root}/core/mason.1`);
    expect(payload(await call(client, 'read_claims')).haid).toBe(`${root}/claude-code.s1`); // only for that call
    expect(listHaids(ctx).haids.map((h) => [h.haid, h.role, h.address])).toEqual([
      [`${root}/claude-code.s1`, 'claude-code', 'claude-code.s1@team'],
      [`${root}/copilot`, 'copilot', undefined],
      [`${root}/copilot/w2`, 'w2', undefined],
      [`${root}/core/mason.1`, 'mason', 'mason.1@core'],
    ]);
    const bad = await call(client, 'read_claims', { client_identity: 'h-elsewhere/x' });
    expect(bad.isError).toBe(true);
    expect(payload(bad).error).toMatchObject({ code: 'invalid', message: expect.stringMatching(/client_identity h-elsewhere\/x is not part of this planning tree/) });
  });
});

describe('tools/list', () => {
  it('lists the six tools of the spec with their required and optional arguments and both schemas', async () => {
    const client = await connect(planning(), 'cursor');
    const { tools } = await client.listTools();
    const shape = Object.fromEntries(
      tools.map((t) => [t.name, { required: t.inputSchema.required ?? [], optional: Object.keys(t.inputSchema.properties ?? {}).filter((k) => !(t.inputSchema.required ?? []).includes(k)) }]),
    );
    expect(shape).toEqual({
      read_claims: { required: [], optional: ['client_identity'] },
      make_claim: { required: ['surfaces', 'task'], optional: ['ttl_minutes', 'client_identity'] },
      release_claim: { required: [], optional: ['id', 'haid', 'reason', 'client_identity'] },
      read_capsules: { required: [], optional: ['id', 'client_identity'] },
      append_decision: { required: ['title', 'body'], optional: ['client_identity'] },
      raise_conflict_pr: { required: ['id', 'title', 'surfaces'], optional: ['displaced_haid', 'overriding_intent', 'displaced_intent', 'client_identity'] },
    });
    for (const t of tools) {
      expect(t.description?.length).toBeGreaterThan(40);
      expect(t.outputSchema?.type).toBe('object');
      expect(t.outputSchema?.required).toContain('haid');
    }
  });
});

describe('tools/call', () => {
  it('make_claim weaves the session HAID into task_ref, logs it (authored by the session), and read_claims shows it', async () => {
    const ctx = planning();
    const client = await connect(ctx, 'cursor');
    const h = `${rootHaid(ctx)}/cursor.s1`;
    const r = payload(await call(client, 'make_claim', { surfaces: ['src/a/**'], task: 'T-9', ttl_minutes: 30 }));
    expect(r).toEqual({
      haid: h,
      extended: false,
      claim: { id: 'c-0002', haid: h, address: 'cursor.s1@team', surfaces: ['src/a/**'], task: 'T-9', task_ref: `${h}:T-9`, created_at: '2026-06-11T12:07:27Z', expires_at: '2026-06-11T12:37:27Z', status: 'active' },
    });
    expect(tailLog(ctx).entries.at(-1)).toMatchObject({ mechanism: 'claim', action: 'claim', author: h });
    const list = payload(await call(client, 'read_claims'));
    expect(list).toMatchObject({ haid: h, count: 1, claims: [{ haid: h, task_ref: `${h}:T-9`, status: 'active' }] });
  });

  it('a colliding make_claim is an isError result naming holder, task and globs, echoing the caller', async () => {
    const ctx = planning();
    const cursor = await connect(ctx, 'cursor');
    const copilot = await connect(ctx, 'copilot');
    const root = rootHaid(ctx);
    await call(cursor, 'make_claim', { surfaces: ['src/a/**'], task: 'T-9' });
    const r = await call(copilot, 'make_claim', { surfaces: ['src/a/b.ts'], task: 'T-10' });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    const p = payload(r);
    expect(p.haid).toBe(`${root}/copilot.s1`);
    expect(p.error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining(`${root}/cursor.s1 holds src/a/** for task T-9`),
      collisions: [{ holder: `${root}/cursor.s1`, task: 'T-9', overlaps: [['src/a/b.ts', 'src/a/**']] }],
    });
  });

  it("release_claim releases the caller's claims, one by id or all; another agent's active claim is refused", async () => {
    const ctx = planning();
    const cursor = await connect(ctx, 'cursor');
    const copilot = await connect(ctx, 'copilot');
    const root = rootHaid(ctx);
    const one = payload(await call(cursor, 'make_claim', { surfaces: ['x/**'], task: 'T' })).claim as { id: string };
    const two = payload(await call(cursor, 'make_claim', { surfaces: ['y/**'], task: 'T2' })).claim as { id: string };
    expect(payload(await call(copilot, 'release_claim', { haid: `${root}/cursor.s1` })).error).toMatchObject({ code: 'forbidden' });
    expect(payload(await call(copilot, 'release_claim', { id: one.id })).error).toMatchObject({ code: 'forbidden' });
    const byId = payload(await call(cursor, 'release_claim', { id: one.id, reason: 'done' }));
    expect(byId).toMatchObject({ haid: `${root}/cursor.s1`, count: 1, released: [{ id: one.id, surfaces: ['x/**'], status: 'released', released_by: `${root}/cursor.s1`, reason: 'done' }] });
    const rest = payload(await call(cursor, 'release_claim'));
    expect(rest).toMatchObject({ count: 1, released: [{ id: two.id }] });
    expect(payload(await call(cursor, 'release_claim')).error).toMatchObject({ code: 'not_found' });
  });

  it('read_capsules, append_decision and raise_conflict_pr call the core and return paths', async () => {
    const ctx = planning();
    writeCapsule(ctx, 'w1', { what: 'LOB engine', where: 'F12' });
    const copilot = await connect(ctx, 'copilot');
    const cursor = await connect(ctx, 'cursor');
    const root = rootHaid(ctx);
    expect(payload(await call(cursor, 'read_capsules', { id: 'w1' }))).toEqual({
      haid: `${root}/cursor.s1`,
      count: 1,
      capsules: [{ id: 'w1', source: 'protocol', text: '# w1\nwhat: LOB engine\nwhere: F12\n' }],
    });
    expect(payload(await call(cursor, 'append_decision', { title: 'Use v2', body: 'Faster.' }))).toEqual({
      haid: `${root}/cursor.s1`,
      id: 'D-0001',
      at: '2026-06-11T12:07:27Z',
      path: '.planning/ledger/decisions.md',
    });
    await call(copilot, 'make_claim', { surfaces: ['src/engine/**'], task: 'T-3' });
    const pr = payload(await call(cursor, 'raise_conflict_pr', { id: 'engine', title: 'Take over the engine', surfaces: ['src/engine/a.ts'], overriding_intent: 'demo bug' }));
    expect(pr).toEqual({
      haid: `${root}/cursor.s1`,
      id: 'engine',
      path: '.planning/ledger/conflicts/2026-06-11-engine.md',
      decision_id: 'D-0002',
      displaced: [{ haid: `${root}/copilot.s1`, task_ref: `${root}/copilot.s1:T-3` }],
    });
    expect(fs.existsSync(path.join(path.dirname(ctx.root), pr.path as string))).toBe(true);
  });

  it('invalid arguments get an isError result saying what was expected', async () => {
    const client = await connect(planning(), 'cursor');
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['make_claim', { surface: ['x'] }, /surfaces is required; task is required; surface is not an argument of this tool\. Expected make_claim\(surfaces: string\[\], task: string, ttl_minutes\?: integer, client_identity\?: string\)/],
      ['make_claim', { surfaces: 'src/**', task: 'T' }, /surfaces must be of type array/],
      ['make_claim', { surfaces: [], task: 'T' }, /surfaces must NOT have fewer than 1 items/],
      ['make_claim', { surfaces: ['x'], task: 'T', ttl_minutes: 1.5 }, /ttl_minutes must be an integer/],
      ['make_claim', { surfaces: ['../x'], task: 'T' }, /invalid surface "\.\.\/x": "\.\." segments would leave the repository/],
      ['append_decision', { title: 'x' }, /body is required\. Expected append_decision\(title: string, body: string, client_identity\?: string\)/],
      ['read_capsules', { id: '../../etc/passwd' }, /invalid capsule id/],
      ['raise_conflict_pr', { id: 'a/b', title: 't', surfaces: ['x'] }, /invalid conflict id "a\/b"/],
      ['read_claims', { client_identity: 5 }, /client_identity must be of type string/],
    ];
    for (const [name, args, re] of cases) {
      const r = await call(client, name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect((payload(r).error as { message: string }).message).toMatch(re);
    }
  });

  it('an unknown tool is a JSON-RPC error listing the tools', async () => {
    const client = await connect(planning(), 'cursor');
    await expect(call(client, 'make_claims', {})).rejects.toThrow(
      /-32602.*Unknown tool "make_claims"; expected one of: read_claims, make_claim, release_claim, read_capsules, append_decision, raise_conflict_pr/,
    );
  });

  it('a hand-edited claims.json is reported as an environment error and left untouched', async () => {
    const ctx = planning();
    const client = await connect(ctx, 'cursor');
    fs.mkdirSync(path.dirname(claimsFile(ctx)), { recursive: true });
    fs.writeFileSync(claimsFile(ctx), '{"version":"2.0.0","claims":{"x":');
    const r = await call(client, 'make_claim', { surfaces: ['a'], task: 'T' });
    expect(payload(r).error).toMatchObject({ code: 'environment', message: expect.stringContaining('claims.json is not valid JSON') });
    expect(fs.readFileSync(claimsFile(ctx), 'utf8')).toBe('{"version":"2.0.0","claims":{"x":');
  });

  it('a retired client is refused claims until it registers again (retire sticks for the connection)', async () => {
    const ctx = planning();
    const client = await connect(ctx, 'cursor');
    retireHaid(ctx, `${rootHaid(ctx)}/cursor.s1`);
    expect(payload(await call(client, 'make_claim', { surfaces: ['a'], task: 'T' })).error).toMatchObject({ code: 'forbidden' });
  });
});

describe('the tool registry', () => {
  it('takes more tools without touching the server, with the shared client_identity and haid fields added', async () => {
    const echo = defineTool<{ text: string }>({
      name: 'echo_note',
      description: 'Test tool: echoes a note so registry extension is exercised.',
      input: { properties: { text: { type: 'string' } }, required: ['text'] },
      output: { properties: { text: { type: 'string' } } },
      run: (a) => ({ text: a.text.toUpperCase() }),
    });
    const ctx = planning();
    const client = await connect(ctx, 'cursor', [...LEDGER_TOOLS, echo]);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('echo_note');
    expect(Object.keys(tools.find((t) => t.name === 'echo_note')?.inputSchema.properties ?? {})).toEqual(['text', 'client_identity']);
    expect(payload(await call(client, 'echo_note', { text: 'hi' }))).toEqual({ haid: `${rootHaid(ctx)}/cursor.s1`, text: 'HI' });
  });

  it('maps a thrown HeimdallError of a new tool the same way', async () => {
    const failing = defineTool({ name: 'always_missing', description: 'Test tool that always reports not_found.', output: { properties: {} }, run: () => {
      throw new HeimdallError('not_found', 'nothing here');
    } });
    const client = await connect(planning(), 'cursor', [failing]);
    const r = await call(client, 'always_missing');
    expect(r.isError).toBe(true);
    expect(payload(r).error).toEqual({ code: 'not_found', message: 'nothing here' });
  });

  it('refuses two tools with the same name', () => {
    expect(() => createLedgerServer({ runtime: createRuntime({ ctx: planning() }), tools: [...LEDGER_TOOLS, LEDGER_TOOLS[0] as (typeof LEDGER_TOOLS)[number]] })).toThrow(/two tools are named read_claims/);
  });
});

describe('raw JSON-RPC', () => {
  async function raw(messages: object[], ctx = planning()) {
    const ledger = createLedgerServer({ runtime: createRuntime({ ctx }) });
    const [mine, serverSide] = InMemoryTransport.createLinkedPair();
    const got: JSONRPCMessage[] = [];
    mine.onmessage = (m) => {
      got.push(m);
    };
    await ledger.connect(serverSide);
    await mine.start();
    for (const m of messages) await mine.send(m as JSONRPCMessage);
    // Wait for an answer to every request sent, however long that takes (no fixed sleep).
    const ids = messages.filter((m) => 'id' in m && 'method' in m).map((m) => (m as { id: unknown }).id);
    await until(() => ids.every((id) => got.some((g) => (g as { id?: unknown }).id === id)));
    await mine.close();
    return got as Array<{ id: number; result?: { protocolVersion?: string }; error?: { code: number } }>;
  }

  it.each(['2024-11-05', '2025-03-26', '2025-06-18', LATEST_PROTOCOL_VERSION])('initialize answers protocol revision %s as requested', async (v) => {
    const [r] = await raw([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'cursor', version: '1' } } }]);
    expect(r?.result?.protocolVersion).toBe(v);
  });

  it('a minimal initialize (clientInfo.name only) is read as 2024-11-05; an unknown revision gets the latest; ping works', async () => {
    const got = await raw([
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'cursor' } } },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      { jsonrpc: '2.0', id: 4, method: 'resources/list' },
    ]);
    const other = await raw([{ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }]);
    // Sorted: the SDK answers an unknown method at once, before the handlers of earlier requests resolve.
    expect([...got, ...other].sort((x, y) => x.id - y.id).map((m) => [m.id, m.result?.protocolVersion ?? m.result ?? m.error?.code])).toEqual([
      [1, '2024-11-05'],
      [2, LATEST_PROTOCOL_VERSION],
      [3, {}],
      [4, -32601],
    ]);
  });

  it('a second initialize is refused and changes nothing: calls before and after it keep the first identity', async () => {
    const ctx = planning();
    const call = (id: number, client_identity?: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'read_claims', arguments: client_identity ? { client_identity } : {} },
    });
    const got = await raw(
      [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'cursor' } } },
        call(2),
        { jsonrpc: '2.0', id: 3, method: 'initialize', params: { clientInfo: { name: 'claude-code' } } },
        call(4),
      ],
      ctx,
    );
    const byId = new Map(got.map((m) => [m.id, m as { result?: { structuredContent?: { haid: string } }; error?: { code: number; message: string } }]));
    const root = rootHaid(ctx);
    expect(byId.get(2)?.result?.structuredContent?.haid).toBe(`${root}/cursor.s1`);
    expect(byId.get(3)?.error).toMatchObject({ code: -32600, message: expect.stringMatching(new RegExp(`initialize was already received on this connection \\(acting as ${root}/cursor\\.s1\\)`)) });
    expect(byId.get(4)?.result?.structuredContent?.haid).toBe(`${root}/cursor.s1`);
    expect(listHaids(ctx).haids.map((h) => h.haid)).toEqual([`${root}/cursor.s1`]); // no identity for the refused one
  });
});
