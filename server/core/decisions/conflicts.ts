/**
 * Conflict PRs: when an agent must override another agent's claim or intent, it writes the case
 * down for review instead of silently editing over it. `raiseConflictPr` authors
 * `.planning/ledger/conflicts/{date}-{id}.md` (overriding and displaced intents, surfaces, HAIDs),
 * appends a decision entry linking to it, and returns its path. Both writes happen under the
 * decisions lock, so the link and the file appear together. Conflict ids are unique across dates.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry } from '../log/protocolLog.js';
import { atomicWrite, withLock } from '../planning/fsx.js';
import { checkName } from '../planning/ids.js';
import { isoSeconds } from '../ports.js';
import { activeClaimsOf, checkCollisions, checkSurfaces } from '../claims/claims.js';
import { overlappingPairs } from '../claims/glob.js';
import { checkTreeHaid } from '../identity/registry.js';
import { appendDecisionLocked, checkBody, checkTitle, decisionsFile, displayPath, nextDecisionIdLocked, quote } from './decisions.js';

export interface ConflictInput {
  /** Who overrides (the caller). */
  haid: string;
  id: string;
  title: string;
  surfaces: string[];
  /** Whose work is displaced; inferred from the active claims on `surfaces` when omitted. */
  displacedHaid?: string;
  overridingIntent?: string;
  displacedIntent?: string;
}

export interface DisplacedParty {
  haid: string;
  /** The displaced claim's task reference, when the HAID holds a claim. */
  task_ref?: string;
}

export interface ConflictPr {
  id: string;
  title: string;
  /** `.planning/ledger/conflicts/{date}-{id}.md` (relative to the folder holding the planning root). */
  path: string;
  /** The decisions.md entry that links to it. */
  decision_id: string;
  overriding: string;
  displaced: DisplacedParty[];
  surfaces: string[];
  at: string;
}

export function conflictsDir(ctx: Ctx): string {
  return ctx.paths.conflictsDir;
}

function existingConflict(dir: string, id: string): string | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  return names.find((n) => /^\d{4}-\d{2}-\d{2}-/.test(n) && n.slice(11) === `${id}.md`);
}

function optionalText(v: unknown, kind: string): string | undefined {
  return v === undefined || v === '' ? undefined : checkBody(v, kind);
}

export function raiseConflictPr(ctx: Ctx, input: ConflictInput): ConflictPr {
  const haid = checkTreeHaid(ctx, input.haid);
  const id = checkName('conflict', input.id);
  const title = checkTitle(input.title, 'conflict title');
  const surfaces = checkSurfaces(input.surfaces);
  const overridingIntent = optionalText(input.overridingIntent, 'overriding_intent');
  const displacedIntent = optionalText(input.displacedIntent, 'displaced_intent');
  let displaced: DisplacedParty[];
  if (input.displacedHaid !== undefined && input.displacedHaid !== '') {
    const d = checkTreeHaid(ctx, input.displacedHaid, 'displaced_haid');
    if (d === haid) throw new HeimdallError('invalid', `displaced_haid is ${d}, the caller itself; a conflict PR displaces another agent`);
    // The displaced agent may hold several claims: name the one on these surfaces, else its oldest.
    const held = activeClaimsOf(ctx, d);
    const claim = held.find((c) => overlappingPairs(surfaces, c.surfaces).length > 0) ?? held[0];
    displaced = [{ haid: d, ...(claim ? { task_ref: claim.task_ref } : {}) }];
  } else {
    displaced = checkCollisions(ctx, haid, surfaces).map((c) => ({ haid: c.holder, task_ref: c.task_ref }));
  }

  const dir = conflictsDir(ctx);
  const result = withLock(decisionsFile(ctx), () => {
    const taken = existingConflict(dir, id);
    if (taken) {
      throw new HeimdallError('conflict', `a conflict PR with id ${id} already exists (${displayPath(ctx, path.join(dir, taken))}); choose another id`);
    }
    const at = isoSeconds(ctx.clock.now());
    const file = path.join(dir, `${at.slice(0, 10)}-${id}.md`);
    const rel = displayPath(ctx, file);
    const who = displaced.length ? displaced.map((d) => (d.task_ref ? `${d.haid} (task_ref ${d.task_ref})` : d.haid)).join(', ') : 'none recorded';
    // The PR file is written first, so the decision entry never links to a file that is missing.
    const decisionId = nextDecisionIdLocked(ctx);
    const text = [
      `# Conflict PR ${id}: ${title}`,
      '',
      `- id: ${id}`,
      `- raised: ${at}`,
      '- status: open',
      `- overriding: ${haid}`,
      `- displaced: ${who}`,
      `- surfaces: ${surfaces.join(', ')}`,
      `- decision: ${decisionId} in [decisions.md](../decisions.md)`,
      '',
      `## Overriding intent (${haid})`,
      '',
      overridingIntent ? quote(overridingIntent) : '> (not given)',
      '',
      `## Displaced intent (${displaced.map((d) => d.haid).join(', ') || 'none recorded'})`,
      '',
      displacedIntent ? quote(displacedIntent) : displaced.some((d) => d.task_ref) ? `> (not given; the displaced claim's task: ${displaced.map((d) => d.task_ref).filter(Boolean).join(', ')})` : '> (not given)',
      '',
    ].join('\n');
    atomicWrite(file, text);
    // The decision entry is the commit point: the conflict's protocol.log line is committed with it.
    const decision = appendDecisionLocked(
      ctx,
      haid,
      `Conflict PR ${id}: ${title}`,
      `${haid} overrides ${who} on ${surfaces.join(', ')}.\nSee [${path.basename(file)}](conflicts/${path.basename(file)}).`,
      () => auditEntry(ctx, 'conflict', 'raise', `${id} by ${haid} displacing ${displaced.map((d) => d.haid).join(',') || '-'}: ${rel}`),
    );
    return { id, title, path: rel, decision_id: decision.id, overriding: haid, displaced, surfaces, at };
  });
  return result;
}
