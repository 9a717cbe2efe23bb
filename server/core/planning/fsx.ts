/**
 * Storage guarantees (architecture doc): whole-file state is written to a temp file and renamed under
 * an exclusive lock; append-only files take one write per line under the same lock; readers skip a
 * torn last line and report it; a file that is not valid JSON is never overwritten.
 *
 * Everything here is synchronous on purpose: CLI calls are short-lived and a sync lock keeps the
 * critical section obvious. Waiting uses Atomics.wait, which sleeps without spinning the CPU.
 */
import fs from 'node:fs';
import path from 'node:path';
import { HeimdallError } from '../errors.js';

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

/** A lock older than this is presumed abandoned by a killed process. */
const STALE_LOCK_MS = 10_000;
const LOCK_TIMEOUT_MS = 30_000;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Run `fn` while holding an exclusive cross-process lock on `target` (a `target.lock` file created
 * with O_EXCL). A lock whose holder process is dead, or that is older than 10 s, is broken.
 */
export function withLock<T>(target: string, fn: () => T): T {
  const lockPath = `${target}.lock`;
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  let wait = 1;
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, 'wx');
      try {
        fs.writeSync(fd, `${process.pid} ${Date.now()}\n`);
      } finally {
        fs.closeSync(fd);
      }
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new HeimdallError('environment', `cannot create lock ${lockPath}: ${(e as Error).message}`);
      }
      breakIfStale(lockPath);
      if (Date.now() > deadline) {
        throw new HeimdallError('environment', `timed out after ${LOCK_TIMEOUT_MS / 1000}s waiting for lock ${lockPath}; if no heimdall process is running, delete that file`);
      }
      sleepMs(wait + Math.random() * wait);
      wait = Math.min(wait * 2, 20);
    }
  }
  try {
    return fn();
  } finally {
    try {
      fs.unlinkSync(lockPath);
    } catch {
      /* already broken as stale by another process: nothing to release */
    }
  }
}

function breakIfStale(lockPath: string): void {
  let content: string;
  let mtime: number;
  try {
    content = fs.readFileSync(lockPath, 'utf8');
    mtime = fs.statSync(lockPath).mtimeMs;
  } catch {
    return; // released meanwhile
  }
  const pid = Number.parseInt(content.split(' ')[0] ?? '', 10);
  const dead = Number.isFinite(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid);
  if (dead || Date.now() - mtime > STALE_LOCK_MS) {
    // Rename first so two breakers cannot both delete a fresh lock taken in between.
    const tomb = `${lockPath}.stale.${process.pid}.${Math.random().toString(36).slice(2)}`;
    try {
      fs.renameSync(lockPath, tomb);
      fs.unlinkSync(tomb);
    } catch {
      /* someone else broke or released it */
    }
  }
}

/** Write `content` to a temp file beside `file`, fsync it, and rename it over `file`. */
export function atomicWrite(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** Append one line (a newline is added) with a single write, under the file's lock. */
export function appendLine(file: string, line: string): void {
  if (line.includes('\n')) throw new HeimdallError('internal', `refusing to append a line containing a newline to ${file}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  withLock(file, () => appendLineUnlocked(file, line));
}

/** Append several lines with one write, under the file's lock. */
export function appendLines(file: string, lines: string[]): void {
  for (const line of lines) {
    if (line.includes('\n')) throw new HeimdallError('internal', `refusing to append a line containing a newline to ${file}`);
  }
  if (lines.length === 0) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  withLock(file, () => {
    const fd = fs.openSync(file, 'a');
    try {
      fs.writeSync(fd, lines.map((l) => `${l}\n`).join(''));
    } finally {
      fs.closeSync(fd);
    }
  });
}

/** Append without taking the lock: for callers already holding it. */
export function appendLineUnlocked(file: string, line: string): void {
  const fd = fs.openSync(file, 'a');
  try {
    fs.writeSync(fd, `${line}\n`);
  } finally {
    fs.closeSync(fd);
  }
}

export interface LinesRead {
  lines: string[];
  /** A last line without its newline: a writer died mid-write, or is writing now. */
  torn?: { lineNumber: number; text: string };
}

/** Read a line-based file; a missing file is empty; a torn last line is returned separately. */
export function readLines(file: string): LinesRead {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [] };
    throw new HeimdallError('environment', `cannot read ${file}: ${(e as Error).message}`);
  }
  if (text === '') return { lines: [] };
  const parts = text.split('\n');
  const last = parts.pop() ?? '';
  const lines = parts;
  if (last !== '') return { lines, torn: { lineNumber: lines.length + 1, text: last } };
  return { lines };
}

/** ` at line L, column C` for a JSON.parse error on `text` ('' when the engine gave no position). */
export function jsonErrorLocation(text: string, error: unknown): string {
  const m = /position (\d+)/.exec((error as Error).message);
  if (!m) return '';
  const pos = Number(m[1]);
  const before = text.slice(0, pos);
  return ` at line ${before.split('\n').length}, column ${pos - before.lastIndexOf('\n')}`;
}

/** Parse JSON text, turning a syntax error into an error that names the file and line. */
export function parseJsonFile(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const where = jsonErrorLocation(text, e);
    throw new HeimdallError(
      'environment',
      `${file} is not valid JSON${where} (${msg}). The file was left untouched; fix it by hand or restore it from git.`,
    );
  }
}

/** Read and parse a JSON file; `undefined` when it does not exist. */
export function readJsonFile(file: string): unknown | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HeimdallError('environment', `cannot read ${file}: ${(e as Error).message}`);
  }
  return parseJsonFile(file, text);
}

export function fileExists(file: string): boolean {
  return fs.existsSync(file);
}
