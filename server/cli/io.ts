/**
 * The CLI's I/O port, so commands run the same in a process and in tests.
 *
 * stdin is bounded like every read (HEIMDALL_MAX_READ_BYTES): piping /dev/zero or an endless stream
 * into a command ends with an error naming the limit, never with a process that grows until it dies.
 */
import { writeSync } from 'node:fs';
import { HeimdallError, storageLimits, tooLarge } from '../core/index.js';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** The whole of stdin as text (at most HEIMDALL_MAX_READ_BYTES). */
  readStdin(): Promise<string>;
  /** stdin one line at a time (each line at most HEIMDALL_MAX_READ_BYTES). */
  stdinLines(): AsyncIterable<string>;
  stdinIsTTY: boolean;
}

/** Read a byte stream whole, refusing it once it passes `limit` bytes. */
export async function readBounded(stream: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, what = 'stdin', limit = storageLimits().maxReadBytes): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const c of stream) {
    const b = typeof c === 'string' ? Buffer.from(c) : c;
    total += b.length;
    if (total > limit) throw tooLarge(what, limit);
    chunks.push(b);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** Split a byte stream into lines (without "\n" or "\r\n"), refusing a line longer than `limit` bytes. */
export async function* boundedLines(stream: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, what = 'a line on stdin', limit = storageLimits().maxReadBytes): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  let size = 0;
  const take = (b: Buffer) => {
    const all = pending.length ? Buffer.concat([...pending, b]) : b;
    pending = [];
    size = 0;
    return all.toString('utf8').replace(/\r$/, '');
  };
  for await (const c of stream) {
    let b = typeof c === 'string' ? Buffer.from(c) : c;
    for (let nl = b.indexOf(0x0a); nl !== -1; nl = b.indexOf(0x0a)) {
      if (size + nl > limit) throw tooLarge(what, limit);
      yield take(b.subarray(0, nl));
      b = b.subarray(nl + 1);
    }
    size += b.length;
    if (size > limit) throw tooLarge(what, limit);
    if (b.length) pending.push(b);
  }
  if (size > 0) yield take(Buffer.alloc(0));
}

/**
 * A line writer on fd 1 or 2. It writes with writeSync, so a command that prints one line never
 * builds process.stdout (a stream, and the stream modules behind it, cost a few milliseconds at
 * start: agents run these programs hundreds of times per task). A non-blocking pipe that is full
 * (EAGAIN) hands the rest to the stream, which queues it and keeps the process alive until it is
 * written; a reader that went away (EPIPE: `heimdall log 1000 | head -1`) ends the output quietly,
 * as the shell's own tools do.
 */
function lineWriter(fd: 1 | 2, stream: () => NodeJS.WriteStream): (text: string) => void {
  let mode: 'sync' | 'stream' | 'closed' = 'sync';
  return (text) => {
    if (mode === 'closed') return;
    if (mode === 'stream') {
      stream().write(`${text}\n`);
      return;
    }
    const buf = Buffer.from(`${text}\n`);
    let off = 0;
    try {
      while (off < buf.length) off += writeSync(fd, buf, off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') mode = 'closed';
      else if (code === 'EAGAIN') {
        mode = 'stream';
        // The stream reports a reader that went away as an 'error' event: ended quietly too.
        stream().on('error', (err: NodeJS.ErrnoException) => {
          if (err.code !== 'EPIPE') throw err;
          mode = 'closed';
        });
        stream().write(buf.subarray(off));
      } else throw e;
    }
  };
}

export function processIo(): Io {
  return {
    out: lineWriter(1, () => process.stdout),
    err: lineWriter(2, () => process.stderr),
    readStdin: async () => {
      try {
        return await readBounded(process.stdin);
      } catch (e) {
        // Stop reading what is left (an endless pipe): the command fails now.
        process.stdin.destroy();
        throw e instanceof HeimdallError ? e : new HeimdallError('environment', `cannot read stdin: ${(e as Error).message}`);
      }
    },
    stdinLines: () => boundedLines(process.stdin),
    // Asked only by the commands that read stdin: process.stdin (and node:tty, node:net and the
    // stream modules behind it) is built on first use, not for every command.
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
  };
}

/** An in-memory Io for tests: feed stdin text, read what was printed. */
export function memoryIo(stdin = ''): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (t) => stdout.push(t),
    err: (t) => stderr.push(t),
    readStdin: async () => readBounded([Buffer.from(stdin)]),
    stdinLines: () => boundedLines([Buffer.from(stdin)]),
    stdinIsTTY: false,
  };
}
