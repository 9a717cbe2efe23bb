/**
 * Cross-process file locks with an owner (architecture doc, "Storage guarantees").
 *
 * A lock on `target` is the file `target.lock` holding one JSON line that names its owner:
 *   {"pid":1234,"start":"987654","host":"box","ns":"pid:[4026531836]","token":"k3j...","at":"2026-..."}
 * It is created complete or not at all (written to a scratch file, then hard-linked into place, which
 * fails if a lock exists), so nobody ever reads a half-written owner.
 *
 * Who may remove it:
 * - its owner, on release, and only after reading its own token back from the file;
 * - anyone, once the owner process is gone: no process with that pid, or a pid now used by another
 *   process (the kernel start time differs), or a zombie. Age never counts: a holder that is paused
 *   (SIGSTOP, a debugger, a swapped-out laptop) keeps its lock however long it sleeps, so there is
 *   nothing to refresh. An owner on another host or in another pid namespace cannot be judged and is
 *   never broken; the timeout message names the file to delete by hand.
 * - Breaking is a take-over, made under a second lock (`target.lock.break`, itself breakable the same
 *   way): the breaker re-reads the lock, and only if it still carries the dead owner's token renames
 *   its own lock over it. Two breakers can therefore never remove a live holder's fresh lock.
 *
 * Waiting: a CLI process sleeps with Atomics.wait (no CPU). A server must not block its event loop:
 * it runs core calls through `withoutBlocking`, where a busy lock aborts the (still side-effect free)
 * attempt with `LockBusy`; the runner then waits for the locks asynchronously, holds them, and runs
 * the call again, which finds them already held. Once a call has written anything it is never
 * re-run: a later busy lock is then waited for in place (the rare, short case of a log line after a
 * commit outside the audited path).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HeimdallError } from '../errors.js';
import { ioReason } from './ioerror.js';
import { storageLimits } from './limits.js';

export interface LockOwner {
  pid: number;
  /** Kernel start time of the owner (field 22 of /proc/<pid>/stat), so a reused pid is recognised. */
  start?: string;
  host?: string;
  /** The owner's pid namespace: a pid from another namespace means nothing here. */
  ns?: string;
  token: string;
  /** When the lock was taken, for people reading the file. */
  at?: string;
}

interface ProcStat {
  state: string;
  start: string;
}

function procStat(pid: number): ProcStat | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0] ?? '', start: rest[19] ?? '' };
  } catch {
    return undefined;
  }
}

interface SelfIdentity {
  pid: number;
  start?: string;
  host: string;
  ns?: string;
  /** `pid-start`: the owner tag in scratch file names, so a dead owner's leftovers can be found. */
  tag: string;
}

let self: SelfIdentity | undefined;
/** This process, as lock files and scratch names record it (recomputed after a fork). */
export function selfIdentity(): SelfIdentity {
  if (self && self.pid === process.pid) return self;
  const start = procStat(process.pid)?.start;
  let ns: string | undefined;
  try {
    ns = fs.readlinkSync('/proc/self/ns/pid');
  } catch {
    ns = undefined;
  }
  self = { pid: process.pid, start, host: os.hostname(), ns, tag: `${process.pid}-${start ?? '0'}` };
  return self;
}

function randomToken(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(9));
  return Buffer.from(bytes).toString('base64url');
}

/** A short random suffix for scratch files. */
export function scratchSuffix(): string {
  return randomToken().slice(0, 8).toLowerCase().replace(/[^a-z0-9]/g, '0');
}

/** Tokens of the locks this process holds right now (sync sections and servers' held locks alike). */
const heldTokens = new Set<string>();

export type Liveness = 'alive' | 'dead' | 'unknown';

/** Is the owner of a lock (or of a scratch file) still running? 'unknown' when it cannot be judged here. */
export function ownerLiveness(o: Pick<LockOwner, 'pid' | 'start' | 'host' | 'ns' | 'token'>): Liveness {
  const me = selfIdentity();
  if (o.host !== undefined && o.host !== me.host) return 'unknown';
  if (o.ns !== undefined && me.ns !== undefined && o.ns !== me.ns) return 'unknown';
  if (!Number.isSafeInteger(o.pid) || o.pid <= 0) return 'unknown';
  if (o.pid === me.pid && (o.start === undefined || o.start === me.start)) return heldTokens.has(o.token) ? 'alive' : 'dead';
  try {
    process.kill(o.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return 'dead';
  }
  const st = procStat(o.pid);
  if (st) {
    // A killed process stays a zombie until its parent reaps it: it holds nothing any more.
    if (st.state === 'Z' || st.state === 'X') return 'dead';
    if (o.start !== undefined && st.start !== o.start) return 'dead';
  }
  return 'alive';
}

/** Is the process that wrote a scratch file tagged `pid-start` gone? */
export function tagIsDead(tag: string): boolean {
  const m = /^(\d+)-(\d+)$/.exec(tag);
  if (!m) return false;
  const pid = Number(m[1]);
  const start = m[2] === '0' ? undefined : m[2];
  // This process's own scratch files are never another's leftovers (a tag without a start time cannot tell).
  if (pid === process.pid && (start === undefined || start === selfIdentity().start)) return false;
  return ownerLiveness({ pid, start, token: '' }) === 'dead';
}

export function lockPathOf(target: string): string {
  return `${target}.lock`;
}

type ReadOwner = LockOwner | 'gone' | 'garbled';

/** Read a lock file: its owner, 'gone' when released meanwhile, 'garbled' when it names nobody. */
export function readLockOwner(lockPath: string): ReadOwner {
  let text: string;
  try {
    const fd = fs.openSync(lockPath, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      const buf = Buffer.alloc(4096);
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      text = buf.toString('utf8', 0, n);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    return 'garbled';
  }
  const line = text.trim();
  if (line.startsWith('{')) {
    try {
      const v = JSON.parse(line) as Partial<LockOwner>;
      if (Number.isSafeInteger(v.pid) && typeof v.token === 'string') {
        return {
          pid: v.pid as number,
          token: v.token,
          ...(typeof v.start === 'string' ? { start: v.start } : {}),
          ...(typeof v.host === 'string' ? { host: v.host } : {}),
          ...(typeof v.ns === 'string' ? { ns: v.ns } : {}),
          ...(typeof v.at === 'string' ? { at: v.at } : {}),
        };
      }
    } catch {
      return 'garbled';
    }
    return 'garbled';
  }
  // The previous format, "<pid> <epoch ms>", written by older heimdall versions on this machine.
  const m = /^(\d+) (\d+)$/.exec(line);
  if (m) return { pid: Number(m[1]), token: line };
  return 'garbled';
}

function newOwner(): LockOwner {
  const me = selfIdentity();
  return {
    pid: me.pid,
    ...(me.start !== undefined ? { start: me.start } : {}),
    host: me.host,
    ...(me.ns !== undefined ? { ns: me.ns } : {}),
    token: randomToken(),
    at: new Date().toISOString(),
  };
}

function lockError(lockPath: string, e: unknown): HeimdallError {
  return new HeimdallError('environment', `cannot create lock ${lockPath}: ${ioReason(e)}; nothing was written`);
}

/** Write the owner line to a scratch file beside `lockPath` (complete, or an error). */
function writeOwnerScratch(lockPath: string, owner: LockOwner): string {
  const dir = path.dirname(lockPath);
  const scratch = path.join(dir, `.${path.basename(lockPath)}.${selfIdentity().tag}.${scratchSuffix()}.lock.tmp`);
  const buf = Buffer.from(`${JSON.stringify(owner)}\n`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(scratch, 'wx');
    let off = 0;
    while (off < buf.length) {
      const n = fs.writeSync(fd, buf, off, buf.length - off);
      if (n <= 0) throw Object.assign(new Error('write returned 0'), { code: 'EIO' });
      off += n;
    }
    fs.closeSync(fd);
    fd = undefined;
    return scratch;
  } catch (e) {
    if (fd !== undefined) fs.closeSync(fd);
    try {
      fs.unlinkSync(scratch);
    } catch {
      /* never created */
    }
    throw lockError(lockPath, e);
  }
}

/** Create the lock if nobody holds it; false when it exists. */
function tryCreate(lockPath: string, owner: LockOwner): boolean {
  const scratch = writeOwnerScratch(lockPath, owner);
  try {
    fs.linkSync(scratch, lockPath);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') return createWithoutLink(lockPath, owner);
    throw lockError(lockPath, e);
  } finally {
    try {
      fs.unlinkSync(scratch);
    } catch {
      /* already gone */
    }
  }
}

/** For file systems without hard links: O_EXCL create, then one write of the owner line. */
function createWithoutLink(lockPath: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = fs.openSync(lockPath, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw lockError(lockPath, e);
  }
  try {
    fs.writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

type Attempt = { held: LockOwner; tookOverFrom?: LockOwner } | { busy: LockOwner | undefined } | { again: true };

/** Remove one scratch file; fine if it is already gone. */
function unlinkQuiet(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    /* gone */
  }
}

/**
 * One try at the lock: take it if free, take it over if its owner is gone, else report the holder.
 * Never waits.
 */
function attempt(lockPath: string, depth = 0): Attempt {
  const mine = newOwner();
  if (tryCreate(lockPath, mine)) return { held: mine };
  const cur = readLockOwner(lockPath);
  if (cur === 'gone') return { again: true };
  if (cur === 'garbled') return { busy: undefined };
  if (ownerLiveness(cur) !== 'dead') return { busy: cur };
  // The owner is gone: take its lock over (never remove it, so no one can slip in between).
  if (depth >= 4) return { busy: cur };
  const took = takeOverAttempt(lockPath, cur, depth);
  return 'held' in took ? { held: took.held, tookOverFrom: cur } : 'busy' in took ? { busy: cur } : took;
}

/**
 * Replace the lock of `dead` (an owner judged gone) with a fresh lock of ours. Done under the break
 * guard, re-reading the lock there: if it no longer carries the dead owner's token (another breaker
 * was first, and a live process may hold it now), nothing is touched and undefined is returned.
 */
export function takeOver(lockPath: string, dead: LockOwner): LockOwner | undefined {
  const r = takeOverAttempt(lockPath, dead, 0);
  return 'held' in r ? r.held : undefined;
}

function takeOverAttempt(lockPath: string, dead: LockOwner, depth: number): { held: LockOwner } | { busy: true } | { again: true } {
  const guardPath = `${lockPath}.break`;
  let guard: Attempt = { again: true };
  for (let i = 0; i < 3 && 'again' in guard; i++) guard = attempt(guardPath, depth + 1);
  // Another breaker is at work (or its guard cannot be judged): wait like for any busy lock.
  if (!('held' in guard)) return { busy: true };
  heldTokens.add(guard.held.token);
  try {
    const again = readLockOwner(lockPath);
    if (again === 'gone' || again === 'garbled' || again.token !== dead.token) return { again: true };
    const mine = newOwner();
    const scratch = writeOwnerScratch(lockPath, mine);
    try {
      fs.renameSync(scratch, lockPath);
    } catch (e) {
      unlinkQuiet(scratch);
      throw lockError(lockPath, e);
    }
    heldTokens.add(mine.token);
    return { held: mine };
  } finally {
    releaseOwned(guardPath, guard.held);
  }
}

/** Remove a lock only if it still carries our token. */
export function releaseOwned(lockPath: string, owner: LockOwner): void {
  heldTokens.delete(owner.token);
  const cur = readLockOwner(lockPath);
  if (cur !== 'gone' && cur !== 'garbled' && cur.token === owner.token) unlinkQuiet(lockPath);
}

/** What runs right after a lock is taken over from a dead holder: its scratch files are removed (fsx.ts). Takes no lock. */
type AfterAcquire = (target: string, dead: LockOwner) => void;
let afterAcquire: AfterAcquire = () => {};
export function setAfterAcquire(fn: AfterAcquire): void {
  afterAcquire = fn;
}

/** A lock was busy inside `withoutBlocking`: the attempt is abandoned and run again once it is free. */
export class LockBusy extends Error {
  constructor(
    readonly target: string,
    readonly owner: LockOwner | undefined,
  ) {
    super(`lock ${lockPathOf(target)} is held${owner ? ` by pid ${owner.pid}` : ''}`);
    this.name = 'LockBusy';
  }
}

/** Find a LockBusy in an error or its `cause` chain (transports wrap errors). */
export function findLockBusy(e: unknown): LockBusy | undefined {
  for (let x: unknown = e, i = 0; x && i < 8; i++) {
    if (x instanceof LockBusy) return x;
    x = (x as { cause?: unknown }).cause;
  }
  return undefined;
}

interface Held {
  target: string;
  lockPath: string;
  owner: LockOwner;
  /** The dead holder this lock was taken over from, until the first section under it has cleaned up after it. */
  tookOverFrom?: LockOwner;
}

interface Scope {
  /** Locks the runner took before this attempt; withLock passes through them. */
  preheld: Map<string, Held>;
  /** Targets in the order the attempt asked for them (the order to take them in next time). */
  requested: string[];
  /** Something durable was written: the call must not be run again. */
  wrote: boolean;
  done: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

function activeScope(): Scope | undefined {
  const s = scopes.getStore();
  return s && !s.done ? s : undefined;
}

/** Record that the current call wrote something durable (fsx calls this after every write). */
export function noteWrite(): void {
  const s = activeScope();
  if (s) s.wrote = true;
}

/** The innermost locks held by this synchronous section, innermost last. */
const stack: Held[] = [];

/** The innermost lock held right now whose target is not `except` (audited writes find their state lock). */
export function innermostLock(except?: string): Held | undefined {
  for (let i = stack.length - 1; i >= 0; i--) {
    const h = stack[i] as Held;
    if (h.target !== except) return h;
  }
  return undefined;
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

function timeoutError(lockPath: string, owner: LockOwner | undefined, ms: number): HeimdallError {
  const who = owner
    ? `pid ${owner.pid}${owner.host && owner.host !== selfIdentity().host ? ` on host ${owner.host}` : ''}${owner.at ? ` since ${owner.at}` : ''}`
    : 'an owner this heimdall cannot read';
  return new HeimdallError(
    'environment',
    `timed out after ${ms / 1000}s waiting for lock ${lockPath}, held by ${who}; nothing was written. If that process is stuck, stop it (its lock is then taken over automatically); if no heimdall process is running, delete the file. Raise the wait with HEIMDALL_LOCK_TIMEOUT_MS.`,
  );
}

/** Wait (synchronously) until the lock is ours. */
function acquireSync(target: string, scope: Scope | undefined): Held {
  const lockPath = lockPathOf(target);
  const limit = storageLimits().lockTimeoutMs;
  const deadline = Date.now() + limit;
  let wait = 1;
  for (;;) {
    const a = attempt(lockPath);
    if ('held' in a) return finishAcquire(target, lockPath, a.held, a.tookOverFrom);
    if ('again' in a) continue;
    const ownProcess = a.busy !== undefined && a.busy.pid === process.pid && heldTokens.has(a.busy.token);
    if (scope && !scope.wrote) throw new LockBusy(target, a.busy);
    // Waiting here for a lock this very process holds (another request of a server) would never end.
    if (ownProcess) throw new HeimdallError('internal', `lock ${lockPath} is held by another operation of this process; run this call through withoutBlocking`);
    if (Date.now() > deadline) throw timeoutError(lockPath, a.busy, limit);
    sleepSync(wait + Math.random() * wait);
    wait = Math.min(wait * 2, 25);
  }
}

function finishAcquire(target: string, lockPath: string, owner: LockOwner, tookOverFrom: LockOwner | undefined): Held {
  heldTokens.add(owner.token);
  const held: Held = { target, lockPath, owner, ...(tookOverFrom ? { tookOverFrom } : {}) };
  if (tookOverFrom) {
    try {
      afterAcquire(target, tookOverFrom);
    } catch (e) {
      releaseOwned(lockPath, owner);
      throw e;
    }
  }
  return held;
}

/** Wait (asynchronously) until the lock is ours: the runner's way of waiting. */
async function acquireAsync(target: string, deadline: number, limit: number): Promise<Held> {
  const lockPath = lockPathOf(target);
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  let wait = 1;
  for (;;) {
    const a = attempt(lockPath);
    // The journal of a dead holder is replayed when the call enters withLock (inside its scope).
    if ('held' in a) return finishAcquire(target, lockPath, a.held, a.tookOverFrom);
    if ('again' in a) continue;
    if (Date.now() > deadline) throw timeoutError(lockPath, a.busy, limit);
    await new Promise((r) => setTimeout(r, wait + Math.random() * wait));
    wait = Math.min(wait * 2, 25);
  }
}

/** Journal files beside a target: the fsx layer replays an orphaned one every time the lock is entered. */
let onEnter: (target: string, tookOverFrom: LockOwner | undefined) => void = () => {};
export function setOnEnter(fn: (target: string, tookOverFrom: LockOwner | undefined) => void): void {
  onEnter = fn;
}

/**
 * Run `fn` while holding an exclusive cross-process lock on `target` (see the header for the
 * rules). Not re-entrant: a section never takes the lock it already holds.
 */
export function withLock<T>(target: string, fn: () => T): T {
  const scope = activeScope();
  if (scope && !scope.requested.includes(target)) scope.requested.push(target);
  const pre = scope?.preheld.get(target);
  if (pre) {
    stack.push(pre);
    try {
      onEnter(target, pre.tookOverFrom);
      delete pre.tookOverFrom;
      return fn();
    } finally {
      stack.pop();
    }
  }
  if (stack.some((h) => h.target === target)) {
    throw new HeimdallError('internal', `lock ${lockPathOf(target)} is already held by this call (locks are not re-entrant)`);
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const held = acquireSync(target, scope);
  stack.push(held);
  try {
    onEnter(target, held.tookOverFrom);
    return fn();
  } finally {
    stack.pop();
    releaseOwned(held.lockPath, held.owner);
  }
}

/**
 * Run a core call (which may take file locks and write) without ever blocking the event loop on a
 * busy lock: see the header. Servers wrap each request in it; nested calls join the outer one.
 * Fails with the same timeout error as a CLI would, after HEIMDALL_LOCK_TIMEOUT_MS.
 */
export async function withoutBlocking<T>(op: () => T | Promise<T>): Promise<T> {
  if (activeScope()) return op();
  const scope: Scope = { preheld: new Map(), requested: [], wrote: false, done: false };
  const limit = storageLimits().lockTimeoutMs;
  const deadline = Date.now() + limit;
  const releaseAll = () => {
    for (const h of scope.preheld.values()) releaseOwned(h.lockPath, h.owner);
    scope.preheld.clear();
  };
  try {
    for (;;) {
      scope.requested = [];
      try {
        return await scopes.run(scope, op);
      } catch (e) {
        const busy = findLockBusy(e);
        if (!busy || scope.wrote) throw e;
        // Take every lock the attempt asked for, in the order it asked (the order any other writer
        // takes them in too), then run it again.
        const order = [...scope.requested];
        if (!order.includes(busy.target)) order.push(busy.target);
        releaseAll();
        for (const t of order) scope.preheld.set(t, await acquireAsync(t, deadline, limit));
      }
    }
  } finally {
    scope.done = true;
    releaseAll();
  }
}

/**
 * Run `fn` outside any `withoutBlocking` call, e.g. a batch flushed later on behalf of several
 * requests, which must neither abort nor re-run any one of them.
 */
export function outsideScope<T>(fn: () => T): T {
  return scopes.exit(fn);
}

/**
 * If the lock at `lockPath` (a target's lock or a break guard) belongs to a dead process, take it
 * over and let it go. Never waits; a live owner's lock is left alone. True when one was removed.
 */
export function clearDeadLock(lockPath: string): boolean {
  const a = attempt(lockPath);
  if (!('held' in a)) return false;
  heldTokens.add(a.held.token);
  try {
    if (a.tookOverFrom && lockPath.endsWith('.lock')) afterAcquire(lockPath.slice(0, -'.lock'.length), a.tookOverFrom);
  } finally {
    releaseOwned(lockPath, a.held);
  }
  return a.tookOverFrom !== undefined;
}

/** For tests and diagnostics: how many locks this process holds. */
export function heldLockCount(): number {
  return heldTokens.size;
}
