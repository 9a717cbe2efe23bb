/**
 * The capsule dependency graph as a picture needs it: every capsule's id, what and depends. An
 * unreadable (hand-broken) capsule becomes a node carrying its error, so one bad file does not hide
 * the rest of the graph.
 */
import type { Ctx } from '../context.js';
import { type Capsule, listCapsuleIds, readCapsule } from './capsules.js';

export type CapsuleNode = Pick<Capsule, 'id' | 'what' | 'depends'> | { id: string; error: string };

export function readCapsuleGraph(ctx: Ctx): CapsuleNode[] {
  return listCapsuleIds(ctx).map((id) => {
    try {
      const c = readCapsule(ctx, id);
      return { id: c.id, what: c.what, depends: c.depends };
    } catch (e) {
      return { id, error: (e as Error).message };
    }
  });
}
