/** Test helper: a child process that holds a file lock until told to let go (SIGSTOP it to make it a slow holder). */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../../../..');
export const FSX_CHILD = path.join(here, 'fsx-child.ts');

export interface Holder {
  child: ChildProcess;
  pid: number;
  /** Release the lock and wait for the child to exit; resolves to its exit code. */
  let(): Promise<number | null>;
}

/** Start a child that takes the lock on `target` and keeps it until `let()`; resolves once it holds it. */
export async function holdLock(target: string): Promise<Holder> {
  const child = spawn(process.execPath, ['--import', 'tsx', FSX_CHILD, JSON.stringify({ op: 'hold', target })], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('close', () => reject(new Error('the lock holder exited before taking the lock')));
  });
  return {
    child,
    pid: child.pid as number,
    let: () => {
      child.kill('SIGCONT');
      child.stdin?.end('\n');
      return exited;
    },
  };
}
