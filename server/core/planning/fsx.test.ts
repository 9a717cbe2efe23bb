/**
 * Direct tests of the storage layer: checked writes (a real EFBIG from `ulimit -f`, simulated
 * ENOSPC / EDQUOT / EACCES and short writes), owner-token locks (take-over of a dead owner only,
 * a stopped owner is never broken, a stale breaker cannot remove a live lock), waiting without
 * blocking the event loop, torn tails, audited commits and their recovery at every kill point,
 * scratch-file cleanup, and bounded reads (FIFO, /dev/zero, a folder, size and depth limits).
 * Every interleaving is forced (SIGSTOP, a child that kills itself at a chosen step), never hoped for.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { start } from '../../stream/testing/spawn.js';
import { FSX_CHILD as CHILD, ROOT, holdLock } from './testing/hold.js';
import { thrown } from '../../testing/fixtures.js';
import {
  appendLine,
  appendLines,
  atomicWrite,
  checkJsonDepth,
  createFileExclusive,
  readJsonFile,
  readLines,
  readLockOwner,
  readTextFile,
  sweepPlanning,
  withLock,
  withoutBlocking,
} from './fsx.js';
import { setStorageLimits, storageLimits, storageLimitsFromEnv } from './limits.js';
import { heldLockCount, ownerLiveness, releaseOwned, selfIdentity, takeOver } from './lock.js';


let dir: string;
let saved: ReturnType<typeof storageLimits>;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-fsx-'));
  saved = { ...storageLimits() };
});
afterEach(() => {
  setStorageLimits(saved);
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

function leftovers(d = dir): string[] {
  return fs.readdirSync(d).filter((n) => n.endsWith('.tmp') || n.endsWith('.lock') || n.endsWith('.break') || n.endsWith('.audit'));
}

/** Run the child with a file size limit (bash's ulimit -f counts 1024-byte blocks). */
function childWithUlimit(blocks: number, opts: object): { status: number; stderr: string } {
  try {
    execFileSync('bash', ['-c', `ulimit -f ${blocks}; exec "${process.execPath}" --import tsx "${CHILD}" "$0"`, JSON.stringify(opts)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: 0, stderr: '' };
  } catch (e) {
    const err = e as { status: number; stderr: Buffer };
    return { status: err.status, stderr: err.stderr.toString() };
  }
}

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  return Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString());
}

function deadOwnerLock(target: string, token = 'dead-token'): { pid: number; token: string } {
  const pid = deadPid();
  fs.writeFileSync(`${target}.lock`, `${JSON.stringify({ pid, start: '1', host: os.hostname(), token, at: new Date().toISOString() })}\n`);
  return { pid, token };
}

describe('fsx: a write that does not happen is never reported as done', () => {
  it('whole file: a real file size limit (ulimit -f) fails loudly, keeps the old file and removes the scratch file', () => {
    const file = path.join(dir, 'symbols.json');
    fs.writeFileSync(file, '{"old": true}\n');
    const r = childWithUlimit(8, { op: 'write', file, bytes: 64 * 1024 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot write .*symbols\.json: the file size limit was reached \(EFBIG/);
    expect(r.stderr).toMatch(/was left as it was/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"old": true}\n');
    expect(leftovers()).toEqual([]);
    // The same write without the limit goes through (so the limit, not the child, made it fail).
    expect(childWithUlimit(1024, { op: 'write', file, bytes: 64 * 1024 }).status).toBe(0);
    expect(fs.statSync(file).size).toBe(64 * 1024);
  });

  it('append: a real file size limit cuts the partial append back off and fails loudly', () => {
    const file = path.join(dir, 'ledger.jsonl');
    fs.writeFileSync(file, '{"a":1}\n');
    const r = childWithUlimit(8, { op: 'append', file, count: 100, width: 200 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot write .*ledger\.jsonl: the file size limit was reached \(EFBIG/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    expect(leftovers()).toEqual([]);
  });

  for (const [code, words] of [
    ['ENOSPC', 'the disk is full'],
    ['EDQUOT', 'the disk quota is exceeded'],
    ['EACCES', 'permission denied'],
  ] as const) {
    it(`whole file and append: ${code} is reported as "${words}" and changes nothing`, () => {
      const file = path.join(dir, 'state.json');
      const log = path.join(dir, 'log.jsonl');
      fs.writeFileSync(file, 'old\n');
      fs.writeFileSync(log, 'one\n');
      const real = fs.writeSync;
      // The first call writes a few bytes (a short write), the next one fails: the loop must notice.
      let calls = 0;
      vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buf: Buffer, off?: number, len?: number) => {
        // Lock owner lines go through (that path is checked below); the data writes fail.
        if (Buffer.isBuffer(buf) && buf.toString('utf8', 0, 7) === '{"pid":') return (real as (...a: unknown[]) => number)(fd, buf, off, len);
        calls++;
        if (calls % 2 === 1) return (real as (...a: unknown[]) => number)(fd, buf, off ?? 0, Math.min(3, len ?? buf.length));
        throw Object.assign(new Error(`${code}: simulated`), { code });
      }) as typeof fs.writeSync);
      expect(thrown(() => withLock(file, () => atomicWrite(file, 'new content\n'))).message).toMatch(new RegExp(`cannot write .*state\\.json: ${words}`));
      expect(thrown(() => appendLine(log, 'two')).message).toMatch(new RegExp(`cannot write .*log\\.jsonl: ${words}`));
      vi.restoreAllMocks();
      // When even the lock cannot be created, that is the error, and nothing is written either.
      vi.spyOn(fs, 'writeSync').mockImplementation((() => {
        throw Object.assign(new Error(`${code}: simulated`), { code });
      }) as typeof fs.writeSync);
      expect(thrown(() => withLock(file, () => atomicWrite(file, 'new content\n'))).message).toMatch(new RegExp(`cannot create lock .*state\\.json\\.lock: ${words}.*; nothing was written`));
      vi.restoreAllMocks();
      expect(fs.readFileSync(file, 'utf8')).toBe('old\n');
      expect(fs.readFileSync(log, 'utf8')).toBe('one\n');
      expect(leftovers()).toEqual([]);
    });
  }

  it('a short write is continued, not taken for the whole', () => {
    const file = path.join(dir, 'big.json');
    const real = fs.writeSync;
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buf: Buffer, off?: number, len?: number) =>
      (real as (...a: unknown[]) => number)(fd, buf, off ?? 0, Math.min(7, len ?? buf.length))) as typeof fs.writeSync);
    const content = JSON.stringify({ v: 'z'.repeat(5000) });
    withLock(file, () => atomicWrite(file, content));
    appendLines(path.join(dir, 'l.log'), ['a'.repeat(100), 'b'.repeat(100)]);
    vi.restoreAllMocks();
    expect(fs.readFileSync(file, 'utf8')).toBe(content);
    expect(fs.readFileSync(path.join(dir, 'l.log'), 'utf8')).toBe(`${'a'.repeat(100)}\n${'b'.repeat(100)}\n`);
  });

  it('an audited write whose log line cannot be written undoes the state change', () => {
    const file = path.join(dir, 'symbols.json');
    const log = path.join(dir, 'protocol.log');
    fs.writeFileSync(file, 'v1\n');
    fs.writeFileSync(log, 'earlier\n');
    const real = fs.writeSync;
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buf: Buffer, ...rest: unknown[]) => {
      if (Buffer.isBuffer(buf) && buf.toString().startsWith('LINE')) throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' });
      return (real as (...a: unknown[]) => number)(fd, buf, ...rest);
    }) as typeof fs.writeSync);
    const e = thrown(() => withLock(file, () => atomicWrite(file, 'v2\n', { log, lines: ['LINE set'] })));
    vi.restoreAllMocks();
    expect(e.message).toMatch(/cannot write .*protocol\.log: the disk is full \(ENOSPC\); its line could not be written, so the change to .*symbols\.json was undone/);
    expect(fs.readFileSync(file, 'utf8')).toBe('v1\n');
    expect(fs.readFileSync(log, 'utf8')).toBe('earlier\n');
    expect(leftovers()).toEqual([]);
  });

  it('createFileExclusive never replaces an existing file', () => {
    const file = path.join(dir, 'CONTEXT.md');
    expect(createFileExclusive(file, 'a')).toBe(true);
    expect(createFileExclusive(file, 'b')).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('a');
    expect(leftovers()).toEqual([]);
  });
});

describe('fsx: locks have an owner', () => {
  it('the lock file names its owner: pid, start time, host and a token; it is gone after release', () => {
    const target = path.join(dir, 'x.json');
    withLock(target, () => {
      const o = readLockOwner(`${target}.lock`);
      expect(o).toMatchObject({ pid: process.pid, host: os.hostname() });
      expect(typeof (o as { token: string }).token).toBe('string');
      expect(ownerLiveness(o as never)).toBe('alive');
    });
    expect(fs.existsSync(`${target}.lock`)).toBe(false);
    expect(heldLockCount()).toBe(0);
  });

  it("a holder never removes a lock that is no longer its own", () => {
    const target = path.join(dir, 'x.json');
    withLock(target, () => {
      fs.writeFileSync(`${target}.lock`, `${JSON.stringify({ pid: process.pid, token: 'someone-else' })}\n`);
    });
    expect(JSON.parse(fs.readFileSync(`${target}.lock`, 'utf8')).token).toBe('someone-else');
  });

  it("a dead owner's lock is taken over, and its scratch files are removed", () => {
    const target = path.join(dir, 'x.json');
    const { pid } = deadOwnerLock(target);
    const scratch = path.join(dir, `.x.json.${pid}-1.abcdefgh.new.tmp`);
    fs.writeFileSync(scratch, 'half');
    let ran = false;
    withLock(target, () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(leftovers()).toEqual([]);
  });

  it('a stale breaker cannot remove the lock a live process took after the dead one', () => {
    const target = path.join(dir, 'x.json');
    const lockPath = `${target}.lock`;
    const { pid, token } = deadOwnerLock(target);
    const dead = { pid, start: '1', host: os.hostname(), token };
    // Breaker A takes the dead lock over first; breaker B still holds the view it read before.
    const a = takeOver(lockPath, dead);
    expect(a).toBeDefined();
    const b = takeOver(lockPath, dead);
    expect(b).toBeUndefined();
    expect((readLockOwner(lockPath) as { token: string }).token).toBe(a?.token);
    releaseOwned(lockPath, a as never);
    expect(leftovers()).toEqual([]);
  });

  it('a stopped owner keeps its lock however long it sleeps: others time out, they do not break it', async () => {
    const target = path.join(dir, 'x.json');
    const holder = await holdLock(target);
    const owner = readLockOwner(`${target}.lock`) as { pid: number; token: string };
    expect(owner.pid).toBe(holder.pid);
    holder.child.kill('SIGSTOP');
    try {
      setStorageLimits({ lockTimeoutMs: 300 });
      const e = thrown(() => withLock(target, () => undefined));
      expect(e.message).toMatch(new RegExp(`timed out after 0.3s waiting for lock .*x\\.json\\.lock, held by pid ${owner.pid}`));
      expect(e.message).toMatch(/HEIMDALL_LOCK_TIMEOUT_MS/);
      expect((readLockOwner(`${target}.lock`) as { token: string }).token).toBe(owner.token);
    } finally {
      holder.child.kill('SIGCONT');
    }
    expect(await holder.let()).toBe(0);
    setStorageLimits({ lockTimeoutMs: 10_000 });
    withLock(target, () => undefined);
    expect(leftovers()).toEqual([]);
  });

  it('withoutBlocking waits for a busy lock while the event loop keeps running, then runs the call once', async () => {
    const target = path.join(dir, 'x.json');
    const holder = await holdLock(target);
    holder.child.kill('SIGSTOP');
    let runs = 0;
    let done = false;
    const op = withoutBlocking(() =>
      withLock(target, () => {
        runs++;
        atomicWrite(target, 'written\n');
      }),
    ).then(() => {
      done = true;
    });
    // The holder is stopped, so the call cannot finish: a timer firing now proves the loop is free.
    const ticked = await new Promise<boolean>((resolve) => setTimeout(() => resolve(!done), 50));
    expect(ticked).toBe(true);
    expect(fs.existsSync(target)).toBe(false);
    holder.child.kill('SIGCONT');
    expect(await holder.let()).toBe(0);
    await op;
    expect(runs).toBe(1);
    expect(fs.readFileSync(target, 'utf8')).toBe('written\n');
    expect(leftovers()).toEqual([]);
  });

  it('withoutBlocking never re-runs a call that already wrote something: a later busy lock is waited for in place', async () => {
    const a = path.join(dir, 'a.json');
    const b = path.join(dir, 'b.json');
    const holder = await holdLock(b);
    setStorageLimits({ lockTimeoutMs: 400 });
    let runs = 0;
    const e = await withoutBlocking(() => {
      runs++;
      withLock(a, () => atomicWrite(a, `${runs}\n`));
      return withLock(b, () => 'done');
    }).catch((x: Error) => x);
    await holder.let();
    // Re-running would have written a twice; instead the in-place wait timed out with its usual message.
    expect(runs).toBe(1);
    expect(String(e)).toMatch(/timed out after 0.4s waiting for lock .*b\.json\.lock/);
    expect(fs.readFileSync(a, 'utf8')).toBe('1\n');
  });
});

describe('fsx: torn lines and audited commits', () => {
  it('protocol.log: a cut-short last line is terminated before the next append', () => {
    const log = path.join(dir, 'protocol.log');
    fs.writeFileSync(log, 'first\nsecond-cut');
    appendLine(log, 'third');
    expect(fs.readFileSync(log, 'utf8')).toBe('first\nsecond-cut\nthird\n');
  });

  it('JSON lines: a cut-short last line is set aside into .torn, so the file stays parseable', () => {
    const file = path.join(dir, 'ledger.jsonl');
    fs.writeFileSync(file, '{"a":1}\n{"a":');
    appendLine(file, '{"a":2}', { torn: 'set-aside' });
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}\n{"a":2}\n');
    expect(fs.readFileSync(`${file}.torn`, 'utf8')).toBe('{"a":\n');
  });

  it('an audited write puts the state and its line in place together', () => {
    const file = path.join(dir, 'symbols.json');
    const log = path.join(dir, 'protocol.log');
    withLock(file, () => atomicWrite(file, '{}\n', { log, lines: ['ts\tresolve\tset\ta=1'] }));
    expect(fs.readFileSync(log, 'utf8')).toBe('ts\tresolve\tset\ta=1\n');
    const ledger = path.join(dir, 'ledger.jsonl');
    appendLines(ledger, ['{"t":1}'], { audit: { log, lines: ['ts\tledger\tlog\tx'] }, torn: 'set-aside' });
    expect(readLines(log).lines).toEqual(['ts\tresolve\tset\ta=1', 'ts\tledger\tlog\tx']);
    expect(leftovers()).toEqual([]);
  });

  for (const at of ['journal', 'commit', 'log'] as const) {
    it(`a writer killed at "${at}" is finished by the next lock holder: the change and exactly one whole line`, async () => {
      const file = path.join(dir, 'symbols.json');
      const log = path.join(dir, 'protocol.log');
      fs.writeFileSync(file, 'before\n');
      fs.writeFileSync(log, 'earlier\n');
      const line = `2026-01-01T00:00:00Z\tresolve\tset\tk=${at}`;
      const r = await start(CHILD, [JSON.stringify({ op: 'die-at', at, file, bytes: 5, audit: { log, lines: [line] } })]).done;
      expect(r.signal).toBe('SIGKILL');
      expect(fs.existsSync(`${file}.lock`)).toBe(true);
      // The next writer of any kind on that file finishes the dead one's work first.
      withLock(file, () => undefined);
      // Once its journal is written, a commit is rolled forward, wherever its writer died.
      expect(fs.readFileSync(file, 'utf8')).toBe('xxxxx');
      expect(fs.readFileSync(log, 'utf8')).toBe(`earlier\n${line}\n`);
      sweepPlanning(dir);
      expect(leftovers()).toEqual([]);
    });
  }

  it('a writer killed before its journal was written changed nothing; its staged file is removed by the next holder', async () => {
    const file = path.join(dir, 'symbols.json');
    const log = path.join(dir, 'protocol.log');
    fs.writeFileSync(file, 'before\n');
    fs.writeFileSync(log, 'earlier\n');
    const r = await start(CHILD, [JSON.stringify({ op: 'die-at', at: 'staged', file, bytes: 5, audit: { log, lines: ['never'] } })]).done;
    expect(r.signal).toBe('SIGKILL');
    expect(fs.readdirSync(dir).some((n) => n.endsWith('.commit.tmp'))).toBe(true);
    withLock(file, () => undefined);
    expect(fs.readFileSync(file, 'utf8')).toBe('before\n');
    expect(fs.readFileSync(log, 'utf8')).toBe('earlier\n');
    expect(leftovers()).toEqual([]);
  });

  it('a commit of two files killed between them is completed by the next holder: both changes and one line', async () => {
    const file = path.join(dir, 'agents.json');
    const second = path.join(dir, 'mailbox.jsonl');
    const log = path.join(dir, 'protocol.log');
    fs.writeFileSync(file, 'before\n');
    fs.writeFileSync(second, 'first\n');
    const line = '2026-01-01T00:00:00Z\therd\tcheckin\tx';
    const r = await start(CHILD, [JSON.stringify({ op: 'die-at', at: 'commit', file, second, bytes: 5, audit: { log, lines: [line] } })]).done;
    expect(r.signal).toBe('SIGKILL');
    expect(fs.readFileSync(second, 'utf8')).toBe('first\n');
    withLock(file, () => undefined);
    expect(fs.readFileSync(file, 'utf8')).toBe('xxxxx');
    expect(fs.readFileSync(second, 'utf8')).toBe('first\nappended\n');
    expect(fs.readFileSync(log, 'utf8')).toBe(`${line}\n`);
    expect(leftovers()).toEqual([]);
  });

  it('sweepPlanning removes dead owners\' locks, finishes their journals and removes their scratch files, and leaves live ones', () => {
    const sub = path.join(dir, 'protocol');
    fs.mkdirSync(sub);
    const { pid } = deadOwnerLock(path.join(sub, 'symbols.json'));
    fs.writeFileSync(path.join(sub, `.symbols.json.${pid}-1.abcd1234.new.tmp`), 'x');
    fs.writeFileSync(path.join(dir, `.blackboard.json.${pid}-1.abcd1234.old.tmp`), 'x');
    // A scratch file of a process that reuses a dead writer's pid is not mistaken for its own...
    fs.writeFileSync(path.join(dir, `.reused.json.${process.pid}-1.abcd1234.new.tmp`), 'x');
    const live = path.join(dir, 'live.json');
    // ...and a live writer's scratch file (this process's, with its real start time) is left alone.
    const mine = path.join(dir, `.live.json.${selfIdentity().tag}.zzzz1111.new.tmp`);
    withLock(live, () => {
      fs.writeFileSync(mine, 'in progress');
      const r = sweepPlanning(dir);
      expect(r.locks).toBe(1);
      // The dead lock's take-over already removed its owner's scratch in protocol/; the sweep removed the other two.
      expect(r.scratch).toBe(2);
      expect(fs.existsSync(`${live}.lock`)).toBe(true);
      expect(fs.existsSync(mine)).toBe(true);
    });
    expect(leftovers(sub)).toEqual([]);
    expect(fs.existsSync(path.join(dir, `.reused.json.${process.pid}-1.abcd1234.new.tmp`))).toBe(false);
  });
});

describe('fsx: every read is bounded', () => {
  it('a FIFO, a device and a folder are refused at once with a clear message', () => {
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(thrown(() => readJsonFile(fifo)).message).toMatch(/cannot read .*pipe: it is a FIFO \(named pipe\), expected a regular file/);
    expect(thrown(() => readTextFile('/dev/zero', '--report /dev/zero')).message).toBe('cannot read --report /dev/zero: it is a character device, expected a regular file');
    expect(thrown(() => readJsonFile(dir)).message).toMatch(/it is a directory, expected a file/);
  });

  it('a file over the size limit is refused, naming the limit and the variable that raises it', () => {
    const file = path.join(dir, 'big.json');
    fs.writeFileSync(file, JSON.stringify({ v: 'x'.repeat(3000) }));
    setStorageLimits({ maxReadBytes: 2048 });
    expect(thrown(() => readJsonFile(file)).message).toMatch(/big\.json is larger than the limit of 2 KiB; nothing was read\. .*HEIMDALL_MAX_READ_BYTES=<bytes>/);
    setStorageLimits({ maxReadBytes: 4096 });
    expect(readJsonFile(file)).toEqual({ v: 'x'.repeat(3000) });
  });

  it('JSON nested past the depth limit is refused before it is parsed; strings do not count', () => {
    expect(() => checkJsonDepth(`${'['.repeat(256)}${']'.repeat(256)}`, 'input')).not.toThrow();
    expect(thrown(() => checkJsonDepth(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'stdin')).message).toMatch(
      /stdin nests arrays and objects more than 256 levels deep at line 1, column 257; .*HEIMDALL_MAX_JSON_DEPTH/,
    );
    expect(() => checkJsonDepth(JSON.stringify({ s: '['.repeat(1000), t: 'a\\"[[[' }), 'input')).not.toThrow();
    const file = path.join(dir, 'deep.json');
    fs.writeFileSync(file, `{"a":${'['.repeat(300)}${']'.repeat(300)}}`);
    expect(thrown(() => readJsonFile(file)).message).toMatch(/deep\.json nests arrays and objects more than 256 levels deep/);
  });

  it('limits come from the environment; a malformed value is refused by name', () => {
    expect(storageLimitsFromEnv({ HEIMDALL_MAX_READ_BYTES: '1000', HEIMDALL_MAX_JSON_DEPTH: '12', HEIMDALL_LOCK_TIMEOUT_MS: '5' })).toEqual({ maxReadBytes: 1000, maxJsonDepth: 12, lockTimeoutMs: 5 });
    expect(thrown(() => storageLimitsFromEnv({ HEIMDALL_MAX_READ_BYTES: '1e9' })).message).toMatch(/HEIMDALL_MAX_READ_BYTES must be a positive whole number/);
  });
});
