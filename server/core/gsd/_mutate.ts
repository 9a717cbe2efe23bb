/**
 * Mutations of a real v2 brief for the recall mutation test (imported by tests only): remove one
 * thing the brief must carry, one at a time, and let recall say whether it noticed.
 */
import type { BuiltBrief } from './brief.js';
import { taskElements } from './parse.js';

export interface Mutation {
  kind: 'unit' | 'task_line' | 'read' | 'capsule';
  what: string;
  text: string;
}

function removeOnce(text: string, piece: string): string | undefined {
  const at = text.indexOf(piece);
  return at === -1 ? undefined : text.slice(0, at) + text.slice(at + piece.length);
}

/** Every single-removal mutation of a brief's counted text: each unit block, each task line, each read, each capsule. */
export function briefMutations(b: BuiltBrief): Mutation[] {
  const out: Mutation[] = [];
  const counted = b.counted;
  for (const u of b.blocks) {
    const what = u.ids.join(' + ');
    const t = removeOnce(counted, `§ ${what}\n${u.text.replace(/\s+$/, '')}\n`);
    if (t !== undefined) out.push({ kind: 'unit', what, text: t });
  }
  for (const r of b.reads) {
    const at = counted.indexOf(`READ .planning/${r.rel}\n`);
    if (at === -1) continue;
    const next = counted.indexOf('\nREAD .planning/', at + 1);
    out.push({ kind: 'read', what: r.rel, text: counted.slice(0, at) + (next === -1 ? '' : counted.slice(next + 1)) });
  }
  for (const c of b.capsules) {
    const t = removeOnce(counted, c.text.trimEnd());
    if (t !== undefined) out.push({ kind: 'capsule', what: c.id, text: t });
  }
  // Task lines, as the brief writes them (ids in place): each line of each task element of the SPEC.
  const lines = counted.split('\n');
  const specStart = lines.indexOf('SPEC') + 1;
  let specEnd = specStart;
  while (specEnd < lines.length && !/^(SYMBOLS|UNITS|CAPSULES|REFS)$|^INVARIANTS see |^READ \.planning\//.test(lines[specEnd] as string)) specEnd++;
  const spec = lines.slice(specStart, specEnd).join('\n');
  const offsetOf = (charAt: number) => spec.slice(0, charAt).split('\n').length - 1;
  let from = 0;
  for (const el of taskElements(spec)) {
    const at = spec.indexOf(el, from);
    if (at === -1) continue;
    from = at + el.length;
    const first = offsetOf(at);
    const n = el.split('\n').length;
    for (let i = first; i < first + n; i++) {
      const line = lines[specStart + i] as string;
      if (line.trim() === '') continue;
      out.push({ kind: 'task_line', what: `${b.plan.id}:${i + 1}: ${line.trim().slice(0, 80)}`, text: [...lines.slice(0, specStart + i), ...lines.slice(specStart + i + 1)].join('\n') });
    }
  }
  return out;
}
