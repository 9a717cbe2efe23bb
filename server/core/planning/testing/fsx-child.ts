/**
 * A child process for the storage tests and the chaos suite:
 *   node --import tsx server/core/planning/testing/fsx-child.ts '<json>'
 * Ops:
 *   hold      take the lock on `target`, print "held", keep it until a line arrives on stdin
 *   write     atomicWrite `bytes` bytes to `file` under its lock (with `audit` when given)
 *   append    appendLines `count` lines of `width` characters to `file`
 *   die-at    an audited write of `file` (and, with `second`, an append to that file in the same
 *             commit) that SIGKILLs itself at one step: after its new file is staged ("staged"),
 *             after the journal is written ("journal"), right after the rename ("commit"), or
 *             halfway through the log line ("log"), so recovery can be tested at each point without
 *             guessing a timing
 *   slow-set  the symbol table's real read-modify-write (updateVersionedMap) of `key`=`value` that
 *             pauses inside its critical section, after reading, until a line arrives on stdin (the
 *             chaos suite SIGSTOPs it there for longer than the old 10 s stale timeout)
 * A failed write prints the error on stderr and exits 2, as the CLI does.
 */
import fs from 'node:fs';
import { isHeimdallError } from '../../errors.js';
import { formatLogLine } from '../../log/protocolLog.js';
import { appendLines, atomicWrite, commitAll, withLock } from '../fsx.js';
import { isString, updateVersionedMap } from '../state.js';

interface Options {
  op: 'hold' | 'write' | 'append' | 'die-at' | 'slow-set';
  key?: string;
  value?: string;
  target?: string;
  file?: string;
  bytes?: number;
  count?: number;
  width?: number;
  audit?: { log: string; lines: string[] };
  at?: 'staged' | 'journal' | 'commit' | 'log';
  second?: string;
}

const o = JSON.parse(process.argv[2] ?? '{}') as Options;

function readLineFromStdin(): void {
  const buf = Buffer.alloc(1);
  for (;;) {
    let n = 0;
    try {
      n = fs.readSync(0, buf, 0, 1, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      throw e;
    }
    if (n === 0 || buf[0] === 0x0a) return;
  }
}

try {
  switch (o.op) {
    case 'hold':
      withLock(o.target as string, () => {
        process.stdout.write('held\n');
        readLineFromStdin();
      });
      break;
    case 'write': {
      const file = o.file as string;
      withLock(file, () => atomicWrite(file, 'x'.repeat(o.bytes ?? 0), o.audit));
      break;
    }
    case 'append': {
      const line = 'y'.repeat(o.width ?? 10);
      appendLines(o.file as string, Array.from({ length: o.count ?? 1 }, () => line));
      break;
    }
    case 'slow-set': {
      const { key, value, file } = o as { key: string; value: string; file: string };
      const log = o.audit?.log as string;
      updateVersionedMap(
        file,
        'symbols',
        isString,
        'string values',
        (m) => {
          m[key] = value;
          process.stdout.write('held\n');
          readLineFromStdin();
        },
        { audit: () => ({ log, lines: [formatLogLine(new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), 'resolve', 'set', `${key}=${value}`)] }) },
      );
      break;
    }
    case 'die-at': {
      const file = o.file as string;
      const audit = o.audit as { log: string; lines: string[] };
      const die = () => process.kill(process.pid, 'SIGKILL');
      const realWrite = fs.writeSync;
      const realRename = fs.renameSync;
      const realOpen = fs.openSync;
      let journalFd: number | undefined;
      let stagedFd: number | undefined;
      (fs as { openSync: unknown }).openSync = (p: fs.PathLike, ...rest: unknown[]) => {
        const fd = (realOpen as (...a: unknown[]) => number)(p, ...rest);
        if (String(p).endsWith('.audit')) journalFd = fd;
        if (String(p).endsWith('.commit.tmp')) stagedFd = fd;
        return fd;
      };
      (fs as { writeSync: unknown }).writeSync = (fd: number, buf: Buffer, ...rest: unknown[]) => {
        const isLogLine = Buffer.isBuffer(buf) && buf.toString('utf8').startsWith(audit.lines[0] as string);
        if (o.at === 'log' && isLogLine) {
          // Half the line reaches the file, then the writer dies.
          (realWrite as (...a: unknown[]) => number)(fd, buf, 0, Math.floor(buf.length / 2));
          die();
        }
        const n = (realWrite as (...a: unknown[]) => number)(fd, buf, ...rest);
        if (o.at === 'journal' && fd === journalFd) die();
        if (o.at === 'staged' && fd === stagedFd) die();
        return n;
      };
      (fs as { renameSync: unknown }).renameSync = (from: fs.PathLike, to: fs.PathLike) => {
        realRename(from, to);
        if (o.at === 'commit' && String(to) === file) die();
      };
      if (o.second) withLock(file, () => commitAll([{ kind: 'replace', file, content: 'x'.repeat(o.bytes ?? 10) }, { kind: 'append', file: o.second as string, text: 'appended\n' }], audit));
      else withLock(file, () => atomicWrite(file, 'x'.repeat(o.bytes ?? 10), audit));
      break;
    }
  }
} catch (e) {
  process.stderr.write(`${isHeimdallError(e) ? e.message : (e as Error).stack}\n`);
  process.exit(2);
}
