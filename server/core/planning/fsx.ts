/**
 * Storage that cannot lie (architecture doc, "Storage guarantees"):
 * - whole-file state is written to a scratch file beside it, checked (every byte, looping on short
 *   writes), fsynced and renamed over the old file under the file's lock; a write that fails (disk
 *   full, quota, `ulimit -f`, permission) removes the scratch file, leaves the old file as it was and
 *   throws an error naming the reason;
 * - append-only files take one checked write per call under the same lock; a failed append is cut
 *   back off, and a torn last line (a writer killed mid-line) is repaired before the next append:
 *   terminated (protocol.log) or set aside into `<file>.torn` (JSON lines files, so they stay parseable);
 * - an audited write commits its state change(s) and its protocol.log line(s) as one (`commitAll`):
 *   under the state lock it stages the new files, takes the log lock, writes a journal
 *   (`.<target>.audit`) naming every change and the lines, applies the changes and appends the
 *   lines, then removes the journal. A writer killed after writing its journal is finished by
 *   whoever next takes the state lock (rolled forward: the changes applied, the lines added once);
 *   if the lines cannot be written, the changes are undone, so a command never fails with its state
 *   half-applied;
 * - a dead writer's scratch files are removed when its lock is taken over; `sweepPlanning` cleans
 *   a whole tree (run by `heimdall init`);
 * - every read is bounded: regular files only, at most HEIMDALL_MAX_READ_BYTES, JSON at most
 *   HEIMDALL_MAX_JSON_DEPTH deep.
 * Locks themselves live in lock.ts.
 *
 * Everything here is synchronous on purpose: CLI calls are short-lived and a synchronous critical
 * section is easy to reason about. Servers call the core through `withoutBlocking` (lock.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { HeimdallError } from '../errors.js';
import { readError, writeError } from './ioerror.js';
import { LIMIT_ENV, storageLimits, tooLarge } from './limits.js';
import {
  type LockOwner,
  clearDeadLock,
  innermostLock,
  lockPathOf,
  noteWrite,
  ownerLiveness,
  readLockOwner,
  scratchSuffix,
  selfIdentity,
  setAfterAcquire,
  setOnEnter,
  tagIsDead,
  withLock,
} from './lock.js';

export { withLock, withoutBlocking, outsideScope, LockBusy, findLockBusy, readLockOwner, ownerLiveness, type LockOwner } from './lock.js';

// ---------------------------------------------------------------------------------------------
// Checked writes

/** Write every byte of `buf` at the descriptor's position, looping on short writes. */
export function writeAll(fd: number, buf: Buffer, file: string, left?: string): void {
  let off = 0;
  while (off < buf.length) {
    let n: number;
    try {
      n = fs.writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      throw writeError(file, e, left);
    }
    // A write that makes no progress would loop forever; report it like a failed one.
    if (n <= 0) throw writeError(file, Object.assign(new Error('no bytes written'), { code: 'EIO' }), left);
    off += n;
  }
}

function unlinkQuiet(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    /* already gone */
  }
}

function mkdirFor(file: string): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch (e) {
    throw writeError(file, e, 'nothing was written');
  }
}

/** `.name.<pid-start>.<random>.<kind>.tmp` beside `file`: a dead writer's scratch files can be found by tag. */
export function scratchPath(file: string, kind = 'new'): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${selfIdentity().tag}.${scratchSuffix()}.${kind}.tmp`);
}

/** Create `file` (which must not exist), write all of `buf`, optionally fsync; removed again on any failure. */
function writeNewFile(file: string, buf: Buffer, reportAs: string, opts: { fsync?: boolean; mode?: number } = {}): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'wx', opts.mode ?? 0o644);
    writeAll(fd, buf, reportAs);
    if (opts.fsync) fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
  } catch (e) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        /* the error below says what matters */
      }
    }
    unlinkQuiet(file);
    throw writeError(reportAs, e);
  }
}

/**
 * The protocol.log line(s) a state change is committed with. Built by `auditEntry` in
 * log/protocolLog.ts.
 */
export interface Audit {
  log: string;
  /** One or more protocol.log lines, without their newlines. */
  lines: string[];
}

/** One change of an audited commit: a whole file replaced, or bytes appended to a file. */
export type CommitOp = { kind: 'replace'; file: string; content: string | Buffer } | { kind: 'append'; file: string; text: string; torn?: TornMode };

type JournalOp = { kind: 'replace'; file: string; tmp: string; ino: number } | { kind: 'append'; file: string; from: number; data: string };
interface Journal {
  v: 2;
  /** `pid-start` of the writer, for people reading a leftover journal. */
  owner: string;
  ops: JournalOp[];
  log: string;
  /** Size of the log when the writer took its lock: where its lines start. */
  logSize: number;
  text: string;
}

function journalPath(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.audit`);
}

function renameChecked(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (e) {
    throw writeError(to, e);
  }
}

/**
 * Apply `ops` and append the audit lines as one commit, under the caller's lock on the state they
 * change (the innermost lock held). All or nothing: the new files are written first; then, holding
 * the log's lock too, a journal naming every change and the lines is written, the changes are
 * applied in order and the lines appended. A failure before the lines are in undoes what was
 * applied; a writer killed after writing the journal has its commit finished (rolled forward) by
 * the next holder of the lock, which replays the journal. Without `audit` (plain writes) there is
 * no journal and no log line.
 */
export function commitAll(ops: CommitOp[], audit: Audit): void {
  checkLines(audit.log, audit.lines);
  const state = innermostLock(audit.log);
  if (!state) throw new HeimdallError('internal', `an audited write of ${ops.map((o) => o.file).join(', ')} must run under its lock`);
  const text = audit.lines.map((l) => `${l}\n`).join('');
  // Scratch files of an audited commit belong to its journal: only a replay (or the sweep, once no
  // journal refers to them) removes them, never the cleanup of some other lock's dead holder.
  const staged: Array<{ op: CommitOp; tmp?: string; ino?: number }> = [];
  try {
    for (const op of ops) {
      mkdirFor(op.file);
      if (op.kind === 'replace') {
        const tmp = scratchPath(op.file, 'commit');
        writeNewFile(tmp, typeof op.content === 'string' ? Buffer.from(op.content, 'utf8') : op.content, op.file, { fsync: true });
        staged.push({ op, tmp, ino: fs.statSync(tmp).ino });
      } else staged.push({ op });
    }
    mkdirFor(audit.log);
    withLock(audit.log, () => {
      const logFd = openForAppend(audit.log);
      const fds: number[] = [];
      try {
        const logSize = repairTail(logFd, audit.log, 'terminate');
        const jops: JournalOp[] = [];
        const appends = new Map<number, { fd: number; from: number; data: Buffer }>();
        staged.forEach((st, i) => {
          if (st.op.kind === 'replace') jops.push({ kind: 'replace', file: st.op.file, tmp: st.tmp as string, ino: st.ino as number });
          else {
            const fd = openForAppend(st.op.file);
            fds.push(fd);
            const from = st.op.torn ? repairTail(fd, st.op.file, st.op.torn) : fileSize(fd, st.op.file);
            const data = Buffer.from(st.op.text, 'utf8');
            appends.set(i, { fd, from, data });
            jops.push({ kind: 'append', file: st.op.file, from, data: data.toString('base64') });
          }
        });
        const jfile = journalPath(state.target);
        unlinkQuiet(jfile);
        const journal: Journal = { v: 2, owner: selfIdentity().tag, ops: jops, log: audit.log, logSize, text };
        writeNewFile(jfile, Buffer.from(`${JSON.stringify(journal)}\n`), ops[0]?.file ?? state.target);
        const undo: Array<() => void> = [];
        const rollBack = () => {
          for (const u of undo.reverse()) {
            try {
              u();
            } catch {
              /* best effort: the error that caused the roll-back is what the caller sees */
            }
          }
          unlinkQuiet(jfile);
        };
        const cleanup: string[] = [];
        try {
          staged.forEach((st, i) => {
            if (st.op.kind === 'replace') {
              const file = st.op.file;
              let bak: string | undefined;
              // A second name for the old file, so the change can be undone if a later step fails.
              if (fs.existsSync(file)) {
                bak = scratchPath(file, 'old');
                try {
                  fs.linkSync(file, bak);
                } catch {
                  try {
                    fs.copyFileSync(file, bak, fs.constants.COPYFILE_EXCL);
                  } catch (e) {
                    unlinkQuiet(bak);
                    throw writeError(file, e);
                  }
                }
                cleanup.push(bak);
              }
              renameChecked(st.tmp as string, file);
              undo.push(() => (bak ? fs.renameSync(bak, file) : fs.unlinkSync(file)));
            } else {
              const a = appends.get(i) as { fd: number; from: number; data: Buffer };
              undo.push(() => fs.ftruncateSync(a.fd, a.from));
              writeAll(a.fd, a.data, st.op.file);
            }
          });
          writeAll(logFd, Buffer.from(text), audit.log, `its line could not be written, so the change to ${ops.map((o) => o.file).join(', ')} was undone`);
        } catch (e) {
          try {
            fs.ftruncateSync(logFd, logSize);
          } catch {
            /* nothing refers to these bytes once the journal is gone */
          }
          rollBack();
          for (const f of cleanup) unlinkQuiet(f);
          throw e;
        }
        unlinkQuiet(jfile);
        for (const f of cleanup) unlinkQuiet(f);
      } finally {
        for (const fd of fds) fs.closeSync(fd);
        fs.closeSync(logFd);
      }
    });
  } finally {
    for (const st of staged) if (st.tmp) unlinkQuiet(st.tmp);
  }
  noteWrite();
}

/**
 * Write `content` to a scratch file beside `file`, fsync it, and rename it over `file`. With `audit`,
 * its protocol.log line is committed with it (call this under the file's lock then).
 */
export function atomicWrite(file: string, content: string | Buffer, audit?: Audit): void {
  if (audit) {
    commitAll([{ kind: 'replace', file, content }], audit);
    return;
  }
  const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  mkdirFor(file);
  const tmp = scratchPath(file);
  writeNewFile(tmp, buf, file, { fsync: true });
  try {
    renameChecked(tmp, file);
  } catch (e) {
    unlinkQuiet(tmp);
    throw e;
  }
  noteWrite();
}

/**
 * Create `file` with `content` only if it does not exist (init's templates): false when it exists.
 * A failed write leaves no partial file behind.
 */
export function createFileExclusive(file: string, content: string): boolean {
  mkdirFor(file);
  if (fs.existsSync(file)) return false;
  const tmp = scratchPath(file);
  writeNewFile(tmp, Buffer.from(content, 'utf8'), file, { fsync: true });
  try {
    // link fails if `file` appeared meanwhile: the existing one is kept.
    fs.linkSync(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw writeError(file, e);
  } finally {
    unlinkQuiet(tmp);
  }
  noteWrite();
  return true;
}

// ---------------------------------------------------------------------------------------------
// Appends

/** How an append treats a last line without its newline. */
export type TornMode = 'terminate' | 'set-aside';

function openForAppend(file: string): number {
  try {
    return fs.openSync(file, 'a+');
  } catch (e) {
    throw writeError(file, e);
  }
}

function fileSize(fd: number, file: string): number {
  try {
    return fs.fstatSync(fd).size;
  } catch (e) {
    throw readError(file, e);
  }
}

/** Where the last line of the file starts, scanning back from `size`. */
function lastLineStart(fd: number, size: number): number {
  const step = 64 * 1024;
  const buf = Buffer.alloc(step);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - step);
    const n = fs.readSync(fd, buf, 0, end - start, start);
    const nl = buf.subarray(0, n).lastIndexOf(0x0a);
    if (nl !== -1) return start + nl + 1;
    end = start;
  }
  return 0;
}

/**
 * Before appending: if the file ends inside a line (its writer died mid-write), terminate that line
 * or set its bytes aside into `<file>.torn` and cut them off. Returns where the next append starts.
 */
function repairTail(fd: number, file: string, mode: TornMode): number {
  const size = fileSize(fd, file);
  if (size === 0) return 0;
  const last = Buffer.alloc(1);
  fs.readSync(fd, last, 0, 1, size - 1);
  if (last[0] === 0x0a) return size;
  if (mode === 'terminate') {
    writeAll(fd, Buffer.from('\n'), file, `${file} was left as it was (its last line is still cut short)`);
    noteWrite();
    return size + 1;
  }
  const keep = lastLineStart(fd, size);
  setAside(fd, file, keep, size);
  noteWrite();
  return keep;
}

/** Move bytes [from, to) of a file into `<file>.torn` (kept for inspection) and cut the file at `from`. */
function setAside(fd: number, file: string, from: number, to: number): void {
  const torn = Buffer.alloc(to - from);
  fs.readSync(fd, torn, 0, torn.length, from);
  appendRaw(`${file}.torn`, Buffer.concat([torn, Buffer.from('\n')]));
  try {
    fs.ftruncateSync(fd, from);
  } catch (e) {
    throw writeError(file, e);
  }
}

/**
 * Write `buf` at the end of an append-mode file that was `from` bytes long, all of it or nothing: a
 * short or failed write (disk full, quota, ulimit -f) is cut back off, so no half line stays behind,
 * and the write's own error is what the caller sees.
 */
function appendAt(fd: number, buf: Buffer, file: string, from: number): void {
  try {
    writeAll(fd, buf, file);
  } catch (e) {
    try {
      fs.ftruncateSync(fd, from);
    } catch {
      /* the write error says what happened */
    }
    throw e;
  }
}

/** Append bytes to a side file (no lock: only lock holders of the main file write it). */
function appendRaw(file: string, buf: Buffer): void {
  const fd = openForAppend(file);
  try {
    const from = fileSize(fd, file);
    appendAt(fd, buf, file, from);
  } finally {
    fs.closeSync(fd);
  }
}

function checkLines(file: string, lines: string[]): void {
  for (const line of lines) {
    if (line.includes('\n')) throw new HeimdallError('internal', `refusing to append a line containing a newline to ${file}`);
  }
}

export interface AppendOptions {
  /** Commit a protocol.log line with these lines (see the header). */
  audit?: Audit;
  /** Default 'terminate'; JSON lines files use 'set-aside' so they stay parseable. */
  torn?: TornMode;
}

/** Append lines with one checked write; call only while holding the file's lock. */
export function appendLinesLocked(file: string, lines: string[], opts: AppendOptions = {}): void {
  checkLines(file, lines);
  if (lines.length === 0) return;
  appendChecked(file, lines.map((l) => `${l}\n`).join(''), opts.torn ?? 'terminate', opts.audit);
}

/**
 * Append free text (a markdown entry) with one checked write, while holding the file's lock; the
 * caller decides how the text joins what is there. With `audit`, committed with its log line.
 */
export function appendTextLocked(file: string, text: string, opts: { audit?: Audit } = {}): void {
  if (text === '') return;
  appendChecked(file, text, undefined, opts.audit);
}

function appendChecked(file: string, text: string, torn: TornMode | undefined, audit: Audit | undefined): void {
  if (audit) {
    commitAll([{ kind: 'append', file, text, ...(torn ? { torn } : {}) }], audit);
    return;
  }
  mkdirFor(file);
  const fd = openForAppend(file);
  try {
    const from = torn ? repairTail(fd, file, torn) : fileSize(fd, file);
    appendAt(fd, Buffer.from(text, 'utf8'), file, from);
  } finally {
    fs.closeSync(fd);
  }
  noteWrite();
}

/** Append one line (a newline is added) with a single write, under the file's lock. */
export function appendLine(file: string, line: string, opts: AppendOptions = {}): void {
  appendLines(file, [line], opts);
}

/** Append several lines with one write, under the file's lock. */
export function appendLines(file: string, lines: string[], opts: AppendOptions = {}): void {
  checkLines(file, lines);
  if (lines.length === 0) return;
  mkdirFor(file);
  withLock(file, () => appendLinesLocked(file, lines, opts));
}

/** Append without taking the lock: for callers already holding it. */
export function appendLineUnlocked(file: string, line: string, opts: AppendOptions = {}): void {
  appendLinesLocked(file, [line], opts);
}

/** Cut a file to `size` bytes (a caller holding its lock drops a torn tail). */
export function truncateFile(file: string, size: number): void {
  try {
    fs.truncateSync(file, size);
  } catch (e) {
    throw writeError(file, e);
  }
  noteWrite();
}

// ---------------------------------------------------------------------------------------------
// Recovery after a writer died

/**
 * Lock entered: finish the audited commit of a holder that died after writing its journal. The
 * journal says exactly what the commit was, so it is rolled forward: every change not yet applied
 * is applied, then the lines are added unless the writer already appended them.
 */
function replayJournal(target: string): boolean {
  const jfile = journalPath(target);
  if (!fs.existsSync(jfile)) return false;
  let j: Journal;
  try {
    j = JSON.parse(fs.readFileSync(jfile, 'utf8')) as Journal;
    if (j.v !== 2 || !Array.isArray(j.ops) || typeof j.log !== 'string' || typeof j.text !== 'string') throw new Error('shape');
  } catch {
    // A journal cut short was never acted on: its writer applied nothing after it.
    unlinkQuiet(jfile);
    return true;
  }
  for (const op of j.ops) {
    if (op.kind === 'replace') {
      if (fs.existsSync(op.tmp)) renameChecked(op.tmp, op.file);
      // else: renamed already (the file carries the new inode) before the writer died.
    } else {
      const data = Buffer.from(op.data, 'base64');
      mkdirFor(op.file);
      const fd = openForAppend(op.file);
      try {
        const size = fileSize(fd, op.file);
        // Nobody appended since (the lock was the dead writer's until now): whatever follows `from` is its own.
        if (size < op.from + data.length) {
          if (size > op.from) setAside(fd, op.file, op.from, size);
          writeAll(fd, data, op.file);
        }
      } finally {
        fs.closeSync(fd);
      }
    }
  }
  ensureLogLines(j.log, j.logSize, j.text);
  unlinkQuiet(jfile);
  noteWrite();
  return true;
}

/** Append the lines to the log unless the dead writer already did (at the offset it recorded). */
function ensureLogLines(log: string, at: number, text: string): void {
  withLock(log, () => {
    const fd = openForAppend(log);
    try {
      const want = Buffer.from(text);
      const got = Buffer.alloc(want.length);
      const n = fs.readSync(fd, got, 0, want.length, at);
      if (n === want.length && got.equals(want)) return;
      // The writer died halfway through its own lines, and nothing followed: write them again whole.
      if (n > 0 && n < want.length && fileSize(fd, log) === at + n && got.subarray(0, n).equals(want.subarray(0, n))) fs.ftruncateSync(fd, at);
      const from = repairTail(fd, log, 'terminate');
      appendAt(fd, want, log, from);
    } finally {
      fs.closeSync(fd);
    }
  });
}

const SCRATCH = /^\..+\.(\d+-\d+)\.[a-z0-9]+\.([a-z]+)\.tmp$/;
const LEGACY_SCRATCH = /^\..+\.(\d+)\.[a-z0-9]+\.tmp$/;

/** Remove the scratch files of dead writers in one folder; `commit` scratch only when asked (see commitAll). */
function removeScratchOf(dir: string, isDead: (tag: string) => boolean, commitToo: boolean): number {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const m = SCRATCH.exec(name);
    const legacy = m ? undefined : LEGACY_SCRATCH.exec(name);
    const tag = m ? (m[1] as string) : legacy ? `${legacy[1]}-0` : undefined;
    if (tag === undefined || (m?.[2] === 'commit' && !commitToo) || !isDead(tag)) continue;
    unlinkQuiet(path.join(dir, name));
    removed++;
  }
  return removed;
}

const deadTag = (dead: LockOwner) => (t: string) => t === `${dead.pid}-${dead.start ?? '0'}` || (dead.start === undefined && t.startsWith(`${dead.pid}-`));

setAfterAcquire((target: string, dead: LockOwner) => {
  removeScratchOf(path.dirname(target), deadTag(dead), false);
});
setOnEnter((target: string, dead: LockOwner | undefined) => {
  replayJournal(target);
  // The dead holder's journal is done with: its remaining commit scratch in this folder is orphaned.
  if (dead) removeScratchOf(path.dirname(target), deadTag(dead), true);
});

export interface SweepResult {
  /** Locks of dead owners taken over and released. */
  locks: number;
  /** Audited writes of dead writers finished (their log line added or their scratch file removed). */
  journals: number;
  /** Scratch files of dead writers removed. */
  scratch: number;
}

/**
 * Clean a whole tree after crashes: take over and release every lock whose owner is gone, finish
 * every orphaned audited write, remove every dead writer's scratch file. Live owners are left alone.
 */
export function sweepPlanning(root: string, maxDepth = 6): SweepResult {
  const out: SweepResult = { locks: 0, journals: 0, scratch: 0 };
  const dirs: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    dirs.push(dir);
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < maxDepth && e.name !== 'node_modules') walk(p, depth + 1);
        continue;
      }
      if (!e.isFile()) continue;
      if (e.name.endsWith('.lock') || e.name.endsWith('.lock.break')) {
        const owner = readLockOwner(p);
        if (owner === 'gone' || owner === 'garbled' || ownerLiveness(owner) !== 'dead') continue;
        if (e.name.endsWith('.lock.break')) {
          // A guard whose breaker died: taking it over and letting it go removes it.
          if (clearDeadLock(p)) out.locks++;
        } else {
          // Through withLock, so an orphaned audited write is finished on the way.
          withLock(p.slice(0, -'.lock'.length), () => {});
          out.locks++;
        }
      } else if (/^\..+\.audit$/.test(e.name)) {
        const target = path.join(dir, e.name.slice(1, -'.audit'.length));
        if (fs.existsSync(lockPathOf(target))) continue; // its writer is still at work (or its lock is handled above)
        withLock(target, () => {});
        out.journals++;
      }
    }
  };
  walk(root, 0);
  // Every journal was replayed above, so commit scratch left now belongs to no journal.
  for (const d of dirs) out.scratch += removeScratchOf(d, tagIsDead, !fs.readdirSync(d).some((n) => n.endsWith('.audit')));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Bounded reads

function fileKind(st: fs.Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Read a whole regular file, at most HEIMDALL_MAX_READ_BYTES; `undefined` when it does not exist.
 * A folder, FIFO or device is refused at once (never read, never waited on). `what` names the
 * file in messages (e.g. "--report /dev/zero").
 */
export function readFileBounded(file: string, what = file): Buffer | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer before we can refuse it.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw readError(what, e);
  }
  try {
    let st: fs.Stats;
    try {
      st = fs.fstatSync(fd);
    } catch (e) {
      throw readError(what, e);
    }
    if (st.isDirectory()) throw new HeimdallError('environment', `cannot read ${what}: it is a directory, expected a file`);
    if (!st.isFile()) throw new HeimdallError('environment', `cannot read ${what}: it is ${fileKind(st)}, expected a regular file`);
    const limit = storageLimits().maxReadBytes;
    if (st.size > limit) throw tooLarge(what, limit);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // The file may grow while it is read: keep reading to its end, but never past the limit.
      const want = Math.min(Math.max(st.size - total, 64 * 1024), limit + 1 - total);
      const b = Buffer.allocUnsafe(want);
      let n: number;
      try {
        n = fs.readSync(fd, b, 0, want, null);
      } catch (e) {
        throw readError(what, e);
      }
      if (n === 0) break;
      chunks.push(n < want ? b.subarray(0, n) : b);
      total += n;
      if (total > limit) throw tooLarge(what, limit);
    }
    return Buffer.concat(chunks, total);
  } finally {
    fs.closeSync(fd);
  }
}

/** `readFileBounded` as UTF-8 text. */
export function readTextFile(file: string, what = file): string | undefined {
  return readFileBounded(file, what)?.toString('utf8');
}

/** Like `readTextFile`, but a missing file is an error naming it. */
export function readRequiredText(file: string, what = file): string {
  const text = readTextFile(file, what);
  if (text === undefined) throw new HeimdallError('environment', `cannot read ${what}: no such file`);
  return text;
}

export interface LinesRead {
  lines: string[];
  /** A last line without its newline: a writer died mid-write, or is writing now. */
  torn?: { lineNumber: number; text: string };
}

/** Read a line-based file; a missing file is empty; a torn last line is returned separately. */
export function readLines(file: string): LinesRead {
  const text = readTextFile(file);
  if (text === undefined || text === '') return { lines: [] };
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
  return locationAt(text, Number(m[1]));
}

function locationAt(text: string, pos: number): string {
  const before = text.slice(0, pos);
  return ` at line ${before.split('\n').length}, column ${pos - before.lastIndexOf('\n')}`;
}

/**
 * Refuse JSON text nested deeper than HEIMDALL_MAX_JSON_DEPTH before it reaches JSON.parse and the
 * recursive walks after it (schema validation, canonical forms), which would overflow the stack.
 */
export function checkJsonDepth(text: string, what: string, code: 'invalid' | 'environment' = 'invalid'): void {
  const max = storageLimits().maxJsonDepth;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) {
        throw new HeimdallError(
          code,
          `${what} nests arrays and objects more than ${max} levels deep${locationAt(text, i)}; nothing was read. If that is intended, raise the limit with ${LIMIT_ENV.maxJsonDepth}=<levels>.`,
        );
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
}

/**
 * Parse JSON input (stdin, a line of a JSON lines file, a frame): depth-checked first, and a syntax
 * error becomes `code` with `what` and the line and column. `example` shows what was expected.
 */
export function parseJsonText(text: string, what: string, opts: { code?: 'invalid' | 'environment'; example?: string } = {}): unknown {
  const code = opts.code ?? 'invalid';
  checkJsonDepth(text, what, code);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HeimdallError(code, `${what} is not valid JSON${jsonErrorLocation(text, e)} (${(e as Error).message})${opts.example ? `; expected ${opts.example}` : ''}`);
  }
}

/** Parse JSON text, turning a syntax error into an error that names the file and line. */
export function parseJsonFile(file: string, text: string): unknown {
  checkJsonDepth(text, file, 'environment');
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
  const text = readTextFile(file);
  if (text === undefined) return undefined;
  return parseJsonFile(file, text);
}

export function fileExists(file: string): boolean {
  return fs.existsSync(file);
}
