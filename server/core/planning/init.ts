/**
 * `init`: create the .planning/ tree. Idempotent and never clobbering: an existing file is kept as
 * it is (and checked, so a corrupted or newer-version state file is reported now, not later). On an
 * existing tree it also cleans up after crashed writers (fsx.ts `sweepPlanning`): dead owners' locks,
 * unfinished audited writes and scratch files.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { logAction, tailLog } from '../log/protocolLog.js';
import { MESSAGE_SCHEMA } from '../messages/validate.js';
import { readBaselines } from '../ledger/ledger.js';
import { readFacts } from '../blackboard/blackboard.js';
import { readSymbols } from '../symbols/symbols.js';
import { PROTOCOL_VERSION } from './version.js';
import { type SweepResult, createFileExclusive, sweepPlanning } from './fsx.js';

export interface InitResult {
  root: string;
  version: string;
  created: string[];
  kept: string[];
  /** What was cleaned up after writers that died mid-write. */
  recovered: SweepResult;
}

export function initPlanning(ctx: Ctx): InitResult {
  const p = ctx.paths;
  const created: string[] = [];
  const kept: string[] = [];
  const rel = (f: string) => path.relative(p.root, f) || '.';
  const recovered = fs.existsSync(p.root) ? sweepPlanning(p.root) : { locks: 0, journals: 0, scratch: 0 };
  for (const dir of [p.root, p.protocolDir, p.capsulesDir]) {
    if (!fs.existsSync(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      created.push(`${rel(dir)}/`);
    }
  }
  // Check existing state before writing anything, so a bad file stops init with nothing changed.
  readSymbols(ctx);
  readFacts(ctx);
  readBaselines(ctx);
  const files: [string, string][] = [
    [p.symbols, `${JSON.stringify({ version: PROTOCOL_VERSION, symbols: {} }, null, 2)}\n`],
    [p.blackboard, `${JSON.stringify({ version: PROTOCOL_VERSION, facts: {} }, null, 2)}\n`],
    [p.baselines, `${JSON.stringify({ version: PROTOCOL_VERSION, baselines: {} }, null, 2)}\n`],
    [p.messageSchema, `${JSON.stringify(MESSAGE_SCHEMA, null, 2)}\n`],
    [p.ledger, ''],
    [p.protocolLog, ''],
  ];
  for (const [file, content] of files) {
    if (createFileExclusive(file, content)) created.push(rel(file));
    else kept.push(rel(file));
  }
  logAction(ctx, 'protocol', 'init', `${p.root} (created ${created.length}, kept ${kept.length})`);
  return { root: p.root, version: PROTOCOL_VERSION, created, kept, recovered };
}

/**
 * The first thing in the tree that is state someone wrote, as a path relative to the root (or
 * undefined when there is none): any file `init` does not create, or an `init` file that no longer
 * holds what `init` writes (an empty table, an empty ledger, a log of init lines only). A file that
 * cannot be read counts as state. The demo runs only in a tree without state, so it never overwrites
 * a workspace; empty folders, locks and temp files are not state.
 */
export function planningHoldsState(ctx: Ctx): string | undefined {
  const p = ctx.paths;
  const pristine = new Map<string, () => boolean>([
    [p.symbols, () => Object.keys(readSymbols(ctx)).length === 0],
    [p.blackboard, () => Object.keys(readFacts(ctx)).length === 0],
    [p.baselines, () => Object.keys(readBaselines(ctx)).length === 0],
    [p.messageSchema, () => true],
    [p.ledger, () => fs.statSync(p.ledger).size === 0],
    [
      p.protocolLog,
      () => {
        const t = tailLog(ctx);
        return t.tornLine === undefined && t.entries.every((e) => e.mechanism === 'protocol' && e.action === 'init');
      },
    ],
  ]);
  const walk = (dir: string): string | undefined => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      return path.relative(p.root, dir) || '.';
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        const inner = walk(full);
        if (inner) return inner;
        continue;
      }
      if (e.name.endsWith('.lock') || e.name.endsWith('.tmp')) continue;
      const check = pristine.get(full);
      let clean = false;
      try {
        clean = check !== undefined && check();
      } catch {
        clean = false;
      }
      if (!clean) return path.relative(p.root, full);
    }
    return undefined;
  };
  return walk(p.root);
}
