/**
 * The two facts the CLI asks git for (the core runs no processes): where this repository's hooks
 * live, for `heimdall setup --git-hook`, and which paths a commit is about to record, for
 * `heimdall hook pre-commit`. Both ask git itself rather than reading `.git`, so core.hooksPath
 * (set in any config file, global included), linked worktrees (a `.git` file) and a commit's
 * temporary index (GIT_INDEX_FILE, set by `git commit -a` or `git commit PATH`) are git's business.
 */
import path from 'node:path';
import { HeimdallError } from '../core/index.js';

async function git(args: string[], cwd: string, env: Record<string, string | undefined>): Promise<string> {
  // Loaded when needed: the Claude Code hook shares this bundle and never runs git.
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('git', args, { cwd, env: env as NodeJS.ProcessEnv, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new HeimdallError('environment', missing ? 'git is not installed (or not on PATH)' : `cannot run git: ${r.error.message}`);
  }
  if (r.status !== 0) throw new HeimdallError('environment', `git ${args.join(' ')} failed in ${cwd}: ${(r.stderr || '').trim() || `exit ${r.status}`}`);
  return r.stdout;
}

/** The folder git runs this repository's hooks from (core.hooksPath respected; shared by linked worktrees), absolute. */
export async function gitHooksDir(root: string, env: Record<string, string | undefined>): Promise<string> {
  let out: string;
  try {
    out = (await git(['rev-parse', '--git-path', 'hooks'], root, env)).trim();
  } catch (e) {
    throw new HeimdallError('environment', `--git-hook needs a git repository at ${root}: ${(e as Error).message}`);
  }
  return path.resolve(root, out);
}

/**
 * What the commit being made would record: the top of the working tree and every path staged,
 * relative to it. Renames count twice (the old path is removed, the new one added), so both are
 * checked: `--no-renames` lists them as a deletion and an addition.
 */
export async function stagedPaths(cwd: string, env: Record<string, string | undefined>): Promise<{ top: string; paths: string[] }> {
  const top = (await git(['rev-parse', '--show-toplevel'], cwd, env)).trim();
  const out = await git(['diff', '--cached', '--name-only', '--no-renames', '-z'], top, env);
  return { top, paths: out.split('\0').filter((p) => p !== '') };
}

/** The top of the working tree that holds `cwd` (where git runs hooks from). */
export async function gitTopLevel(cwd: string, env: Record<string, string | undefined>): Promise<string> {
  try {
    return (await git(['rev-parse', '--show-toplevel'], cwd, env)).trim();
  } catch (e) {
    throw new HeimdallError('environment', `--git-hook needs a git repository at ${cwd}: ${(e as Error).message}`);
  }
}
