/**
 * CSP state, pure part: a checkpoint is a frozen set of DEFs (and the project LAWS); a patch is a
 * delta from one checkpoint to the next (`C0 -> P1 -> C1 -> P2 -> C2 ...`). Applying is a pure
 * function, so replaying C0 and the patches rebuilds any checkpoint (the seed's "auditable" goal).
 */
import type { CspContext, CspError, Def, Law, PatchBody } from './types.js';

/** A frozen state snapshot. `base`/`patch` name how it was made (null for C0). */
export interface Checkpoint {
  id: string;
  base: string | null;
  patch: string | null;
  /** DEFs in order: an added DEF goes last, a changed one keeps its place. */
  defs: Def[];
  laws: Law[];
}

export interface PatchSummary {
  added: string[];
  changed: string[];
  removed: string[];
}

export type ApplyOutcome = { ok: true; checkpoint: Checkpoint; summary: PatchSummary } | { ok: false; errors: CspError[] };

/** C0 from a DEF/LAWS document (or empty). */
export function initialCheckpoint(context?: CspContext): Checkpoint {
  const defs: Def[] = [];
  const laws: Law[] = [];
  for (const b of context?.blocks ?? []) {
    if (b.kind === 'defs') defs.push(...b.defs.map((d) => ({ ...d })));
    else laws.push(...b.laws.map((l) => ({ ...l })));
  }
  return { id: 'C0', base: null, patch: null, defs, laws };
}

/** Render a checkpoint as a DEF/LAWS document (what `heimdall csp state` prints). */
export function checkpointToContext(cp: Checkpoint): CspContext | undefined {
  const blocks: CspContext['blocks'] = [];
  if (cp.defs.length > 0) blocks.push({ kind: 'defs', defs: cp.defs.map((d) => ({ ...d })) });
  if (cp.laws.length > 0) blocks.push({ kind: 'laws', laws: cp.laws.map((l) => ({ ...l })) });
  return blocks.length > 0 ? { kind: 'context', blocks } : undefined;
}

/**
 * Apply a patch to the current checkpoint `head`. Refused (with every reason at once) when BASE is not
 * `head`, when `+ DEF` names a DEF that exists, or `~ DEF` / `- DEF` one that does not. `opLine(i)` is
 * the line of the i-th patch line in the patch's text, so errors point at it.
 */
export function applyPatch(head: Checkpoint, patch: PatchBody, lines: { base: number; op: (i: number) => number }): ApplyOutcome {
  const errors: CspError[] = [];
  if (patch.base !== head.id) {
    errors.push({
      line: lines.base,
      expected: `BASE ${head.id}: a patch applies only to the current checkpoint (${head.id}); rewrite the patch against ${head.id}`,
      got: `BASE ${patch.base}`,
      example: `PATCH ${patch.id}\nBASE ${head.id}\n...\nAPPLY -> C${Number(head.id.slice(1)) + 1}`,
    });
    return { ok: false, errors };
  }
  const defs = new Map(head.defs.map((d) => [d.name, d.value]));
  const summary: PatchSummary = { added: [], changed: [], removed: [] };
  patch.ops.forEach((op, i) => {
    const exists = defs.has(op.name);
    if (op.op === 'add') {
      if (exists) {
        errors.push({
          line: lines.op(i),
          expected: `+ DEF only for a name ${head.id} does not have; ${op.name} exists (= ${defs.get(op.name)}), so change it with ~`,
          got: `+ DEF ${op.name} = ${op.value}`,
          example: `~ DEF ${op.name} := ${op.value}`,
        });
        return;
      }
      defs.set(op.name, op.value);
      summary.added.push(op.name);
      return;
    }
    if (!exists) {
      const names = [...defs.keys()];
      errors.push({
        line: lines.op(i),
        expected: `${op.op === 'change' ? '~' : '-'} DEF only for a DEF of ${head.id}; ${op.name} does not exist there${names.length ? ` (it has ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', ...' : ''})` : ' (it has no DEFs)'}`,
        got: op.op === 'change' ? `~ DEF ${op.name} := ${op.value}` : `- DEF ${op.name}`,
        example: op.op === 'change' ? `+ DEF ${op.name} = ${op.value}` : names.length ? `- DEF ${names[0]}` : `+ DEF ${op.name} = value`,
      });
      return;
    }
    if (op.op === 'change') {
      defs.set(op.name, op.value);
      summary.changed.push(op.name);
    } else {
      defs.delete(op.name);
      summary.removed.push(op.name);
    }
  });
  if (errors.length > 0) return { ok: false, errors };
  const checkpoint: Checkpoint = {
    id: patch.target,
    base: head.id,
    patch: patch.id,
    defs: [...defs].map(([name, value]) => ({ name, value })),
    laws: head.laws.map((l) => ({ ...l })),
  };
  return { ok: true, checkpoint, summary };
}
