import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FrameReader, LineStdioTransport, serializeMessage } from './transport.js';

const msg = (o: object) => JSON.stringify(o);
const framed = (body: string, extra = '') => `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

describe('FrameReader', () => {
  it('reads newline-delimited JSON, CRLF too, skipping blank lines', () => {
    const r = new FrameReader();
    expect(r.push(Buffer.from('{"a":1}\n\r\n{"b":2}\r\n{"c"'))).toEqual([
      { kind: 'message', text: '{"a":1}' },
      { kind: 'message', text: '{"b":2}' },
    ]);
    expect(r.push(Buffer.from(':3}\n'))).toEqual([{ kind: 'message', text: '{"c":3}' }]);
  });

  it('reads Content-Length frames, split anywhere, with multi-byte UTF-8 bodies and extra headers', () => {
    const body = msg({ jsonrpc: '2.0', id: 1, method: 'ping', params: { note: 'héllo ✓' } });
    const bytes = Buffer.from(framed(body, 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n'));
    const r = new FrameReader();
    const out = [];
    for (let i = 0; i < bytes.length; i += 7) out.push(...r.push(bytes.subarray(i, i + 7)));
    expect(out).toEqual([{ kind: 'message', text: body }]);
  });

  it('accepts both framings alternating in one stream, with or without separators', () => {
    const a = msg({ n: 1 });
    const b = msg({ n: 2 });
    const r = new FrameReader();
    expect(r.push(Buffer.from(`${framed(a)}${b}\n${framed(a)}\n${b}\n`)).map((f) => f.kind === 'message' && f.text)).toEqual([a, b, a, b]);
  });

  it('a last line without a newline is still read when the input ends', () => {
    const r = new FrameReader();
    expect(r.push(Buffer.from('{"x":1}'))).toEqual([]);
    expect(r.end()).toEqual([{ kind: 'message', text: '{"x":1}' }]);
  });

  it('reports bad framing and recovers', () => {
    const r = new FrameReader();
    const good = msg({ ok: true });
    const out = r.push(Buffer.from(`Content-Length: abc\r\n\r\n${good}\nX-Other: 1\n{"not":"a header"}\n\n${good}\n`));
    expect(out[0]).toEqual({ kind: 'error', message: 'a framed message needs a numeric Content-Length header (got "abc")' });
    expect(out[1]).toEqual({ kind: 'message', text: good });
    expect(out[2]?.kind).toBe('error');
    expect(out[2]?.kind === 'error' && out[2].message).toMatch(/expected a header such as "Content-Length: 42"/);
    expect(out.slice(3)).toEqual([
      { kind: 'message', text: '{"not":"a header"}' },
      { kind: 'message', text: good },
    ]);
  });

  it('skips an oversized frame and an oversized line, then keeps reading', () => {
    const r = new FrameReader(64);
    const big = 'x'.repeat(100);
    const out = r.push(Buffer.from(`Content-Length: 100\r\n\r\n${big}{"a":1}\n${big}\n{"b":2}\n`));
    expect(out.map((f) => f.kind)).toEqual(['error', 'message', 'error', 'message']);
    expect(out[1]).toEqual({ kind: 'message', text: '{"a":1}' });
    expect(out[3]).toEqual({ kind: 'message', text: '{"b":2}' });
  });

  it('refuses an absurd Content-Length and resynchronises at the next message, line or frame', () => {
    const r = new FrameReader(64);
    const ping = msg({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const out = r.push(Buffer.from(`Content-Length: 100000000000000000000\r\n\r\n${ping}\n`));
    expect(out).toEqual([
      { kind: 'error', message: 'Content-Length 100000000000000000000 exceeds the limit of 64 bytes; the message was skipped' },
      { kind: 'message', text: ping },
    ]);
    // Junk after the refused header, then a framed message split across chunks: found again.
    const r2 = new FrameReader(64);
    const bytes = Buffer.from(`Content-Length: 99999999999\r\n\r\njunk that is not json\nmore junk\n${framed(ping)}`);
    const got = [];
    for (let i = 0; i < bytes.length; i += 5) got.push(...r2.push(bytes.subarray(i, i + 5)));
    expect(got.map((f) => f.kind)).toEqual(['error', 'message']);
    expect(got[1]).toEqual({ kind: 'message', text: ping });
  });

  it('an honest oversized body is skipped whole, even when it spans lines', () => {
    const r = new FrameReader(16);
    const body = JSON.stringify({ items: ['a'.repeat(20), 'b'.repeat(20)] }, null, 2);
    const out = r.push(Buffer.from(`${framed(body)}{"c":3}\n`));
    expect(out).toEqual([expect.objectContaining({ kind: 'error' }), { kind: 'message', text: '{"c":3}' }]);
  });

  it('reports a frame cut short by the end of input', () => {
    const r = new FrameReader();
    expect(r.push(Buffer.from('Content-Length: 50\r\n\r\n{"a":'))).toEqual([]);
    expect(r.end()[0]).toMatchObject({ kind: 'error', message: expect.stringMatching(/45 bytes short of the announced Content-Length 50/) });
  });
});

describe('serializeMessage', () => {
  it('writes one line with jsonrpc and id first', () => {
    expect(serializeMessage({ result: { a: 1 }, id: 7, jsonrpc: '2.0' } as never)).toBe('{"jsonrpc":"2.0","id":7,"result":{"a":1}}\n');
  });
});

describe('LineStdioTransport', () => {
  function wire() {
    const input = new PassThrough();
    const output = new PassThrough();
    const t = new LineStdioTransport(input, output);
    const lines: string[] = [];
    let buf = '';
    output.on('data', (c: Buffer) => {
      buf += c.toString();
      let i = buf.indexOf('\n');
      while (i !== -1) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
        i = buf.indexOf('\n');
      }
    });
    const received: unknown[] = [];
    t.onmessage = (m) => {
      received.push(m);
    };
    let closed = false;
    t.onclose = () => {
      closed = true;
    };
    return { input, t, lines, received, isClosed: () => closed };
  }
  const tick = () => new Promise((r) => setImmediate(r));

  it('answers malformed JSON with -32700 and non-JSON-RPC values with -32600, and keeps serving', async () => {
    const w = wire();
    await w.t.start();
    w.input.write('{oops\n[1,2]\n{"id":5,"hello":1}\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await tick();
    expect(w.lines.map((l) => JSON.parse(l).error?.code)).toEqual([-32700, -32600, -32600]);
    expect(JSON.parse(w.lines[0] as string)).toMatchObject({ jsonrpc: '2.0', id: null });
    expect(JSON.parse(w.lines[2] as string).id).toBe(5);
    expect(w.received).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  });

  it('keeps output in input order: an error waits for the answers to earlier requests', async () => {
    const w = wire();
    await w.t.start();
    w.input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\nnot json\n');
    await tick();
    expect(w.lines).toEqual([]);
    await w.t.send({ jsonrpc: '2.0', id: 1, result: {} });
    await tick();
    expect(w.lines.map((l) => JSON.parse(l).id)).toEqual([1, null]);
  });

  it('on end of input, closes only once every request read has been answered', async () => {
    const w = wire();
    await w.t.start();
    w.input.end('{"jsonrpc":"2.0","id":"a","method":"ping"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await tick();
    expect(w.received).toHaveLength(2);
    expect(w.isClosed()).toBe(false);
    await w.t.send({ jsonrpc: '2.0', id: 'a', result: {} });
    expect(w.isClosed()).toBe(true);
  });

  it('refuses a message nested deeper than the JSON depth limit with -32700 and keeps serving', async () => {
    const w = wire();
    await w.t.start();
    w.input.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    await tick();
    expect(JSON.parse(w.lines[0] as string).error).toMatchObject({ code: -32700, message: expect.stringMatching(/nests arrays and objects more than 256 levels deep.*HEIMDALL_MAX_JSON_DEPTH/) });
    expect(w.received).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('hands requests to the server one at a time, in the order they were sent', async () => {
    const w = wire();
    await w.t.start();
    w.input.write('{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n{"jsonrpc":"2.0","method":"notifications/progress"}\n{"jsonrpc":"2.0","id":2,"method":"tools/call"}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await tick();
    // Request 2 waits until 1 is answered, however long 1 takes; the notification passes at once.
    expect(w.received.map((m) => (m as { id?: number; method: string }).id ?? (m as { method: string }).method)).toEqual([1, 'notifications/progress']);
    await w.t.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(w.received.map((m) => (m as { id?: number }).id)).toEqual([1, undefined, 2]);
    await w.t.send({ jsonrpc: '2.0', id: 2, result: {} });
    expect(w.received.map((m) => (m as { id?: number }).id)).toEqual([1, undefined, 2, 3]);
    expect(w.lines.map((l) => JSON.parse(l).id)).toEqual([1, 2]);
  });

  it('a cancelled request that is still waiting its turn is dropped, and the next one goes on', async () => {
    const w = wire();
    await w.t.start();
    w.input.write('{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n{"jsonrpc":"2.0","id":2,"method":"tools/call"}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}\n');
    await tick();
    await w.t.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(w.received.filter((m) => (m as { id?: number }).id !== undefined).map((m) => (m as { id: number }).id)).toEqual([1, 3]);
  });

  it('a cancelled request is not waited for', async () => {
    const w = wire();
    await w.t.start();
    w.input.end('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x"}}\n{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}\n');
    await tick();
    expect(w.isClosed()).toBe(true);
  });
});
