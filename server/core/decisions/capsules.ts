/**
 * `read_capsules`: the team's summaries of finished work, from two places: the team ledger's
 * `.planning/ledger/completed/*.md` and the protocol's context capsules
 * `.planning/protocol/capsules/*.md` (read through the capsules mechanism, which checks their format).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { listCapsuleIds, readCapsule } from '../capsules/capsules.js';
import { readRequiredText } from '../planning/fsx.js';
import { checkName } from '../planning/ids.js';

export type CapsuleSource = 'completed' | 'protocol';

export interface LedgerCapsule {
  id: string;
  source: CapsuleSource;
  text: string;
}

export function completedDir(ctx: Ctx): string {
  return ctx.paths.completedDir;
}

function completedIds(ctx: Ctx): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(completedDir(ctx));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new HeimdallError('environment', `cannot read ${completedDir(ctx)}: ${(e as Error).message}`);
  }
  return names
    .filter((n) => n.endsWith('.md') && !n.startsWith('.'))
    .map((n) => n.slice(0, -3))
    .filter((id) => {
      try {
        checkName('capsule', id);
        return true;
      } catch {
        return false; // a file whose name is not an id cannot be asked for; it is not listed either
      }
    })
    .sort();
}

function readCompleted(ctx: Ctx, id: string): LedgerCapsule {
  const file = path.join(completedDir(ctx), `${id}.md`);
  const text = readRequiredText(file);
  return { id, source: 'completed', text: text.replace(/\r\n?/g, '\n') };
}

/**
 * One capsule by id (from either place; both when both have it) or all of them, completed ones
 * first. `not_found` when no capsule has that id.
 */
export function readLedgerCapsules(ctx: Ctx, id?: string): { capsules: LedgerCapsule[]; count: number } {
  const wanted = id === undefined ? undefined : checkName('capsule', id);
  const done = completedIds(ctx).filter((x) => wanted === undefined || x === wanted);
  const proto = listCapsuleIds(ctx).filter((x) => wanted === undefined || x === wanted);
  const capsules: LedgerCapsule[] = [
    ...done.map((x) => readCompleted(ctx, x)),
    ...proto.map((x): LedgerCapsule => ({ id: x, source: 'protocol', text: readCapsule(ctx, x).text })),
  ];
  if (wanted !== undefined && capsules.length === 0) {
    throw new HeimdallError('not_found', `no capsule ${wanted} in ledger/completed/ or protocol/capsules/ (call without an id to list them all)`);
  }
  return { capsules, count: capsules.length };
}
