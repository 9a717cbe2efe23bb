/**
 * `init`: create the .planning/ tree. Idempotent and never clobbering: an existing file is kept as
 * it is (and checked, so a corrupted or newer-version state file is reported now, not later). On an
 * existing tree it also cleans up after crashed writers (fsx.ts `sweepPlanning`): dead owners' locks,
 * unfinished audited writes and scratch files.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { logAction } from '../log/protocolLog.js';
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
