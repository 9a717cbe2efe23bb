/**
 * The CLI's I/O port, so commands run the same in a process and in tests.
 */
import readline from 'node:readline';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** The whole of stdin as text. */
  readStdin(): Promise<string>;
  /** stdin one line at a time. */
  stdinLines(): AsyncIterable<string>;
  stdinIsTTY: boolean;
}

export function processIo(): Io {
  return {
    out: (t) => process.stdout.write(`${t}\n`),
    err: (t) => process.stderr.write(`${t}\n`),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    stdinLines: () => readline.createInterface({ input: process.stdin, crlfDelay: Infinity }),
    stdinIsTTY: Boolean(process.stdin.isTTY),
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
    readStdin: async () => stdin,
    stdinLines: async function* () {
      const lines = stdin.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      for (const l of lines) yield l;
    },
    stdinIsTTY: false,
  };
}
