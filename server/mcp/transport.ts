/**
 * The stdio transport of heimdall-ledger-mcp, implementing the SDK's `Transport` interface.
 *
 * Why not the SDK's StdioServerTransport: it reads newline-delimited JSON only and drops a message
 * it cannot parse without answering. Hosts and hand-written clients also send LSP-style
 * `Content-Length:` frames, and a person typing into the server deserves a JSON-RPC parse error
 * (-32700) rather than silence. So this transport:
 * - reads both framings, message by message (they may even alternate);
 * - answers malformed JSON with -32700 and a non-JSON-RPC value with -32600, and keeps serving; such
 *   an error is written after the answers to the requests read before it, so output follows input;
 * - writes every outgoing message as one line, keys in the conventional order (jsonrpc, id, ...);
 * - when stdin ends, waits until every request already read has been answered, then closes;
 * - refuses a frame whose Content-Length is over the limit and resynchronises: it skips the announced
 *   bytes, but stops skipping at the next line that starts a message (`Content-Length:` or
 *   `{"jsonrpc"`), which a JSON body cannot contain, so an absurd length (1e20) cannot swallow the
 *   stream;
 * - hands requests to the server one at a time, each after the previous one was answered, so requests
 *   sent back to back are applied and answered in the order they were sent. Notifications (a cancel)
 *   and the client's responses to the server's own requests pass at once.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { isHeimdallError, checkJsonDepth } from '../core/index.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
const MAX_HEADER_BYTES = 8 * 1024;

export type Frame = { kind: 'message'; text: string } | { kind: 'error'; message: string };

const HEADER_LINE = /^[A-Za-z][A-Za-z0-9-]*:/;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;
}

/**
 * Splits a byte stream into message texts. Pure (no I/O) so framing is tested on its own.
 */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);
  /** Bytes of an oversized Content-Length body still to discard (unless a new message starts first). */
  private skip = 0;
  /** The byte before the buffer (while skipping) ended a line. */
  private skipAtLineStart = false;
  /** Discarding an oversized line up to its newline. */
  private discardingLine = false;

  constructor(private readonly maxBytes = DEFAULT_MAX_MESSAGE_BYTES) {}

  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    return this.drain(false);
  }

  /** The input ended: a last line without a newline is still a message. */
  end(): Frame[] {
    return this.drain(true);
  }

  private drain(ended: boolean): Frame[] {
    const out: Frame[] = [];
    for (;;) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, this.buf.length);
        const at = resyncPoint(this.buf, n, this.skipAtLineStart);
        if (at === 'wait') break;
        if (at !== -1) {
          this.buf = this.buf.subarray(at);
          this.skip = 0;
        } else {
          this.skipAtLineStart = n > 0 && this.buf[n - 1] === 0x0a;
          this.buf = this.buf.subarray(n);
          this.skip -= n;
          if (this.skip > 0) break;
        }
      }
      if (this.discardingLine) {
        const nl = this.buf.indexOf(0x0a);
        if (nl === -1) {
          this.buf = Buffer.alloc(0);
          break;
        }
        this.buf = this.buf.subarray(nl + 1);
        this.discardingLine = false;
      }
      let start = 0;
      while (start < this.buf.length && isSpace(this.buf[start] as number)) start++;
      this.buf = this.buf.subarray(start);
      if (this.buf.length === 0) break;

      const nl = this.buf.indexOf(0x0a);
      const firstLine = this.buf.toString('utf8', 0, nl === -1 ? Math.min(this.buf.length, 256) : nl);
      const first = this.buf[0] as number;
      const headerish = first !== 0x7b && first !== 0x5b && HEADER_LINE.test(firstLine);
      if (headerish) {
        const r = this.readFramed(ended);
        if (r === 'wait') break;
        if (r) out.push(r);
        continue;
      }
      if (nl === -1) {
        if (this.buf.length > this.maxBytes) {
          out.push({ kind: 'error', message: `message longer than ${this.maxBytes} bytes without a newline; it was dropped` });
          this.buf = Buffer.alloc(0);
          this.discardingLine = true;
          break;
        }
        if (!ended) break;
        out.push({ kind: 'message', text: this.buf.toString('utf8').trim() });
        this.buf = Buffer.alloc(0);
        break;
      }
      const text = this.buf.toString('utf8', 0, nl).replace(/\r$/, '');
      this.buf = this.buf.subarray(nl + 1);
      if (nl > this.maxBytes) out.push({ kind: 'error', message: `message longer than ${this.maxBytes} bytes; it was dropped` });
      else out.push({ kind: 'message', text });
    }
    return out;
  }

  /** A `Content-Length:` framed message at the start of the buffer. */
  private readFramed(ended: boolean): Frame | undefined | 'wait' {
    // Header lines up to an empty line; anything else before the empty line is not framing.
    const headers: string[] = [];
    let pos = 0;
    let bodyStart = -1;
    for (;;) {
      const nl = this.buf.indexOf(0x0a, pos);
      if (nl === -1) break;
      const line = this.buf.toString('utf8', pos, nl).replace(/\r$/, '');
      if (line === '') {
        bodyStart = nl + 1;
        break;
      }
      if (!HEADER_LINE.test(line)) {
        this.buf = this.buf.subarray(pos);
        return { kind: 'error', message: `expected a header such as "Content-Length: 42" or the empty line ending the headers, got ${JSON.stringify(line.slice(0, 60))}` };
      }
      headers.push(line);
      pos = nl + 1;
    }
    if (bodyStart === -1) {
      if (this.buf.length > MAX_HEADER_BYTES || ended) {
        this.buf = Buffer.alloc(0);
        return { kind: 'error', message: 'headers without the empty line that ends them; expected "Content-Length: N", an empty line, then N bytes of JSON' };
      }
      return 'wait';
    }
    const cl = headers.map((h) => /^content-length:\s*(.*?)\s*$/i.exec(h)).find(Boolean);
    if (!cl || !/^\d+$/.test(cl[1] as string)) {
      this.buf = this.buf.subarray(bodyStart);
      return { kind: 'error', message: `a framed message needs a numeric Content-Length header (got ${cl ? JSON.stringify(cl[1]) : 'none'})` };
    }
    const length = Number(cl[1]);
    if (!Number.isSafeInteger(length) || length > this.maxBytes) {
      this.buf = this.buf.subarray(bodyStart);
      this.skip = Number.isSafeInteger(length) ? length : Number.MAX_SAFE_INTEGER;
      this.skipAtLineStart = true;
      return { kind: 'error', message: `Content-Length ${cl[1]} exceeds the limit of ${this.maxBytes} bytes; the message was skipped` };
    }
    if (this.buf.length < bodyStart + length) {
      if (ended) {
        const short = bodyStart + length - this.buf.length;
        this.buf = Buffer.alloc(0);
        return { kind: 'error', message: `input ended ${short} bytes short of the announced Content-Length ${length}` };
      }
      return 'wait';
    }
    const text = this.buf.toString('utf8', bodyStart, bodyStart + length);
    this.buf = this.buf.subarray(bodyStart + length);
    return { kind: 'message', text };
  }
}

const CONTENT_LENGTH = Buffer.from('content-length:');
const JSONRPC_START = Buffer.from('{"jsonrpc"');

/** Does `buf` at `i` start (or, at its end, possibly start) `prefix`, ignoring ASCII case? */
function startsWith(buf: Buffer, i: number, prefix: Buffer, ignoreCase: boolean): 'yes' | 'no' | 'maybe' {
  for (let k = 0; k < prefix.length; k++) {
    if (i + k >= buf.length) return 'maybe';
    let b = buf[i + k] as number;
    if (ignoreCase && b >= 0x41 && b <= 0x5a) b += 0x20;
    if (b !== prefix[k]) return 'no';
  }
  return 'yes';
}

/**
 * Where, within the first `n` bytes of a skipped body, a new message starts at the beginning of a
 * line: -1 for nowhere, 'wait' when the buffer ends inside what may be such a start.
 */
function resyncPoint(buf: Buffer, n: number, atLineStart: boolean): number | 'wait' {
  let i = atLineStart ? 0 : buf.indexOf(0x0a) + 1;
  while (i > 0 || (i === 0 && atLineStart)) {
    if (i >= n) return -1;
    const a = startsWith(buf, i, CONTENT_LENGTH, true);
    const b = startsWith(buf, i, JSONRPC_START, false);
    if (a === 'yes' || b === 'yes') return i;
    if ((a === 'maybe' || b === 'maybe') && i + Math.max(CONTENT_LENGTH.length, JSONRPC_START.length) > buf.length) return 'wait';
    const nl = buf.indexOf(0x0a, i);
    if (nl === -1 || nl + 1 >= n) return -1;
    i = nl + 1;
    atLineStart = true;
  }
  return -1;
}

const KEY_ORDER = ['jsonrpc', 'id', 'method', 'params', 'result', 'error'];

/** One line of JSON, keys in the order people expect to read them. */
export function serializeMessage(message: JSONRPCMessage): string {
  const m = message as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const k of KEY_ORDER) if (k in m) ordered[k] = m[k];
  for (const k of Object.keys(m)) if (!(k in ordered)) ordered[k] = m[k];
  return `${JSON.stringify(ordered)}\n`;
}

type Id = string | number;

function idOf(v: unknown): Id | null {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const id = (v as { id?: unknown }).id;
    if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return id;
  }
  return null;
}

export interface StdioTransportOptions {
  maxMessageBytes?: number;
  /** Diagnostics (to stderr in the real server; never to the protocol stream). */
  log?: (message: string) => void;
}

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private readonly reader: FrameReader;
  private readonly pending = new Set<string>();
  /** Transport-level errors waiting for the requests read before them to be answered. */
  private readonly deferred: Array<{ waitFor: Set<string>; message: JSONRPCMessage }> = [];
  private inputEnded = false;
  private closed = false;
  private readonly log: (m: string) => void;
  /** The request the server is handling now; the next one waits until it is answered. */
  private inflight: string | undefined;
  private readonly queue: JSONRPCMessage[] = [];

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    opts: StdioTransportOptions = {},
  ) {
    this.reader = new FrameReader(opts.maxMessageBytes);
    this.log = opts.log ?? (() => {});
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.handle(this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  };

  private readonly onEnd = () => {
    this.handle(this.reader.end());
    this.inputEnded = true;
    this.maybeClose();
  };

  private readonly onInputError = (e: Error) => {
    this.onerror?.(e);
  };

  private readonly onOutputError = (e: Error) => {
    // The client went away (EPIPE): nothing more can be answered.
    this.log(`stdout error: ${e.message}; closing`);
    void this.close();
  };

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
  }

  private handle(frames: Frame[]): void {
    for (const f of frames) {
      if (this.closed) return;
      if (f.kind === 'error') {
        this.reply(null, -32700, `Parse error: ${f.message}`);
        continue;
      }
      let value: unknown;
      try {
        // Depth first: schema checks walk the message recursively.
        checkJsonDepth(f.text, 'the message');
        value = JSON.parse(f.text);
      } catch (e) {
        this.reply(null, -32700, `Parse error: ${(e as Error).message}${isHeimdallError(e) ? '' : '. Expected one JSON-RPC 2.0 message per line, or "Content-Length: N" framing.'}`);
        continue;
      }
      if (Array.isArray(value)) {
        this.reply(null, -32600, 'Invalid Request: batches are not supported; send one JSON-RPC message per line.');
        continue;
      }
      const parsed = JSONRPCMessageSchema.safeParse(value);
      if (!parsed.success) {
        this.reply(
          idOf(value),
          -32600,
          'Invalid Request: expected a JSON-RPC 2.0 object such as {"jsonrpc":"2.0","id":1,"method":"tools/list"} (a request needs "jsonrpc":"2.0", a string or number "id" and a "method").',
        );
        continue;
      }
      const msg = parsed.data as JSONRPCMessage & { method?: string; id?: Id; params?: { requestId?: Id } };
      const isRequest = msg.method !== undefined && msg.id !== undefined;
      if (isRequest) this.pending.add(String(msg.id));
      // A cancelled request may never be answered; stop waiting for it (and drop it if it waits its turn).
      if (msg.method === 'notifications/cancelled' && msg.params?.requestId !== undefined) {
        const id = String(msg.params.requestId);
        const queued = this.queue.findIndex((q) => String((q as { id?: Id }).id) === id);
        if (queued !== -1) this.queue.splice(queued, 1);
        if (this.inflight === id) this.inflight = undefined;
        this.settle(id);
      }
      if (isRequest && (this.inflight !== undefined || this.queue.length > 0)) this.queue.push(msg);
      else {
        if (isRequest) this.inflight = String(msg.id);
        this.deliver(msg);
      }
    }
    this.pump();
  }

  private deliver(msg: JSONRPCMessage): void {
    try {
      this.onmessage?.(msg);
    } catch (e) {
      this.onerror?.(e as Error);
    }
  }

  /** Hand the next waiting request to the server once the previous one was answered. */
  private pump(): void {
    while (this.inflight === undefined && this.queue.length > 0 && !this.closed) {
      const next = this.queue.shift() as JSONRPCMessage & { id: Id };
      this.inflight = String(next.id);
      this.deliver(next);
    }
  }

  private reply(id: Id | null, code: number, message: string): void {
    this.log(message);
    const m = { jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage;
    if (this.pending.size === 0 && this.deferred.length === 0) void this.write(m);
    else this.deferred.push({ waitFor: new Set(this.pending), message: m });
  }

  /** A request was answered (or cancelled): release the errors that were waiting for it. */
  private settle(id: string): void {
    this.pending.delete(id);
    for (const d of this.deferred) d.waitFor.delete(id);
    while (this.deferred.length && (this.deferred[0] as { waitFor: Set<string> }).waitFor.size === 0) {
      void this.write((this.deferred.shift() as { message: JSONRPCMessage }).message);
    }
    this.maybeClose();
  }

  private write(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    const line = serializeMessage(message);
    return new Promise((resolve) => {
      if (this.output.write(line)) resolve();
      else this.output.once('drain', () => resolve());
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as { id?: Id; method?: string };
    const written = this.write(message);
    // Settle at once, so a waiting error line follows this answer directly.
    if (m.method === undefined && m.id !== undefined) {
      if (this.inflight === String(m.id)) this.inflight = undefined;
      this.settle(String(m.id));
      this.pump();
    }
    await written;
  }

  private maybeClose(): void {
    if (this.inputEnded && this.pending.size === 0) void this.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    this.input.pause?.();
    this.onclose?.();
  }
}
