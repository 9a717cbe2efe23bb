/**
 * The fast entry of `heimdall hook ...` (bundled as dist/cli/hook.js; bin/heimdall starts it when
 * the first argument is `hook`). The hooks run before every edit and every commit, so they skip the
 * general CLI entry (its registry, its runtime, and the identity rule it applies, with a lock, to
 * any caller the environment names) and load only the claims check. Same command module, same
 * behaviour, same exit codes as `heimdall hook` through main.ts.
 */
import fs from 'node:fs';
import { EXIT_CODES, isHeimdallError, storageLimits, tooLarge } from '../core/index.js';
import { runHook } from './commands/hook.js';
import { type Io, boundedLines, readBounded } from './io.js';

/**
 * stdin read with plain reads of descriptor 0, bounded like every read: Node builds process.stdin
 * (and loads its stream machinery) only if a read cannot be made that way (EAGAIN: a descriptor
 * left non-blocking by whoever started us), and then reads the rest through it.
 */
async function readStdinDirect(): Promise<string> {
  const limit = storageLimits().maxReadBytes;
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EOF') break;
      if (code !== 'EAGAIN') throw e;
      const rest = await readBounded(process.stdin, 'stdin', limit - total);
      return Buffer.concat([...chunks, Buffer.from(rest)]).toString('utf8');
    }
    if (n === 0) break;
    total += n;
    if (total > limit) throw tooLarge('stdin', limit);
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

export async function run(argv: string[]): Promise<void> {
  // Built by hand rather than processIo(), which touches process.stdin (and so builds it) at once.
  const io: Io = {
    out: (t) => process.stdout.write(`${t}\n`),
    err: (t) => process.stderr.write(`${t}\n`),
    readStdin: readStdinDirect,
    stdinLines: () => boundedLines(process.stdin),
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
  };
  try {
    process.exitCode = await runHook(argv, io, process.env, process.cwd());
  } catch (e) {
    if (isHeimdallError(e)) {
      if ((e.details as { help?: boolean } | undefined)?.help) {
        io.out(e.message);
        process.exitCode = 0;
        return;
      }
      io.err(`heimdall hook: ${e.message}`);
      process.exitCode = EXIT_CODES[e.code];
      return;
    }
    io.err(`heimdall hook: internal error: ${(e as Error).stack ?? String(e)}`);
    process.exitCode = 2;
  }
}
