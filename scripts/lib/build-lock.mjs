// One build at a time per checkout, across processes: `npm start`, `npm pack` (prepack) and a test or
// bench that builds Studio must never write the same build folder at once. A lock file in the temp
// folder holds the holder's pid; a holder that died is replaced, a live one waited for.
//
// The take-over of a dead holder's lock renames it to a name of our own first and checks what it
// moved: if that was not the dead holder's (a live process took the lock in between), it is put
// back, so a late breaker can never remove a live holder's lock. Only the holder removes its lock.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function alive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

function readPid(file) {
  try {
    return Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
  } catch {
    return undefined;
  }
}

/**
 * Run `fn` holding the build lock `name` of the checkout at `root`. Waits up to `timeoutMs` for a
 * live holder; `onTimeout(message)` reports the give-up (it should exit).
 */
export function withBuildLock(name, root, fn, { timeoutMs = 15 * 60_000, pollMs = 500, onTimeout } = {}) {
  const lock = path.join(os.tmpdir(), `heimdall-${name}-${createHash('sha1').update(root).digest('hex').slice(0, 12)}.lock`);
  const me = String(process.pid);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.writeFileSync(lock, me, { flag: 'wx' });
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const holder = readPid(lock);
      if (holder !== undefined && !alive(holder)) {
        const tomb = `${lock}.${process.pid}.tomb`;
        try {
          fs.renameSync(lock, tomb);
          // What we moved must be the dead holder's lock; a live one taken in between goes back.
          if (readPid(tomb) !== holder) fs.renameSync(tomb, lock);
          else fs.rmSync(tomb, { force: true });
        } catch {
          /* released or taken over meanwhile: try again */
        }
        continue;
      }
      if (Date.now() > deadline) {
        const message = `another build (pid ${holder}) holds ${lock}`;
        if (onTimeout) onTimeout(message);
        throw new Error(message);
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pollMs);
    }
  }
  try {
    return fn();
  } finally {
    if (readPid(lock) === process.pid) fs.rmSync(lock, { force: true });
  }
}
