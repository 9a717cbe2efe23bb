/**
 * Automatic layout of the capsule dependency graph, left to right: a capsule's dependencies sit in
 * the columns to its left, so hydration order reads left to right.
 *
 * Two engines, chosen by size. Dagre (crossing reduction plus spline edge routing) gives the nicest
 * picture but its cost grows steeply: measured on this machine with wave-shaped graphs (each capsule
 * depends on one or two capsules of the previous waves), 100 capsules take about 0.25 s, 300 about
 * 0.8 s, 500 about 2.5 s, and 2,000 did not finish in ten minutes. Above DAGRE_MAX_NODES the page
 * uses a layered layout of its own that is linear in the graph size plus a few sorting sweeps: rank
 * by longest dependency path, then order each column by the barycentre of its neighbours, sweeping
 * right and left a few times. It lays out 2,000 capsules in tens of milliseconds.
 *
 * Either way, a column taller than the picture is wide is then wrapped into side-by-side
 * sub-columns (keeping its order), so the whole graph has roughly the shape of the screen: a wave of
 * 50 capsules would otherwise be one column 50 cards high, and fitting it on screen would shrink
 * every card below reading size.
 */
import dagre from '@dagrejs/dagre';

export const NODE_W = 176;
export const NODE_H = 44;
export const DAGRE_MAX_NODES = 150;

export interface LayoutInput {
  ids: string[];
  /** [dependency, dependent] pairs; both ends must be in `ids`. */
  edges: [string, string][];
}

export interface Positioned {
  x: number;
  y: number;
}

export interface LayoutResult {
  positions: Map<string, Positioned>;
  engine: 'dagre' | 'layered';
  ms: number;
}

/** Height over width of the area the graph is shown in (Studio's graph pane is about 3:2). */
const TARGET_ASPECT = 0.66;
const SUB_GAP = 24;

export function layoutGraph(input: LayoutInput): LayoutResult {
  const t = typeof performance !== 'undefined' ? performance.now() : Date.now();
  const small = input.ids.length <= DAGRE_MAX_NODES;
  const positions = wrapColumns(small ? dagreLayout(input) : layeredLayout(input));
  const ms = (typeof performance !== 'undefined' ? performance.now() : Date.now()) - t;
  return { positions, engine: small ? 'dagre' : 'layered', ms };
}

function dagreLayout({ ids, edges }: LayoutInput): Map<string, Positioned> {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 70, marginx: 10, marginy: 10 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const id of ids) g.setNode(id, { width: NODE_W, height: NODE_H });
  for (const [from, to] of edges) g.setEdge(from, to);
  dagre.layout(g);
  const out = new Map<string, Positioned>();
  for (const id of ids) {
    const n = g.node(id) as { x: number; y: number };
    // dagre gives centres; React Flow wants top-left corners.
    out.set(id, { x: n.x - NODE_W / 2, y: n.y - NODE_H / 2 });
  }
  return out;
}

const COL_GAP = 80;
const ROW_GAP = 14;
const SWEEPS = 4;

function layeredLayout({ ids, edges }: LayoutInput): Map<string, Positioned> {
  const deps = new Map<string, string[]>();
  const dependents = new Map<string, string[]>();
  for (const id of ids) {
    deps.set(id, []);
    dependents.set(id, []);
  }
  for (const [from, to] of edges) {
    deps.get(to)?.push(from);
    dependents.get(from)?.push(to);
  }

  // Rank: longest dependency path. Iterative DFS; an edge back onto the current path (a cycle in a
  // hand-edited tree) is ignored rather than looping.
  const rank = new Map<string, number>();
  const onPath = new Set<string>();
  for (const root of ids) {
    if (rank.has(root)) continue;
    const stack: [string, number][] = [[root, 0]];
    onPath.add(root);
    while (stack.length) {
      const top = stack[stack.length - 1] as [string, number];
      const [id, i] = top;
      const ds = deps.get(id) as string[];
      if (i < ds.length) {
        top[1] = i + 1;
        const d = ds[i] as string;
        if (!rank.has(d) && !onPath.has(d)) {
          onPath.add(d);
          stack.push([d, 0]);
        }
        continue;
      }
      let r = 0;
      for (const d of ds) {
        const dr = rank.get(d);
        if (dr !== undefined) r = Math.max(r, dr + 1);
      }
      rank.set(id, r);
      onPath.delete(id);
      stack.pop();
    }
  }

  const columns: string[][] = [];
  for (const id of ids) {
    const r = rank.get(id) ?? 0;
    (columns[r] ??= []).push(id);
  }
  for (let r = 0; r < columns.length; r++) columns[r] ??= [];

  // Order: barycentre sweeps against the neighbours' current positions.
  const pos = new Map<string, number>();
  const place = (col: string[]) => col.forEach((id, i) => pos.set(id, col.length > 1 ? i / (col.length - 1) : 0.5));
  for (const col of columns) place(col);
  const bary = (id: string, nbrs: Map<string, string[]>): number => {
    const ns = nbrs.get(id) as string[];
    if (ns.length === 0) return pos.get(id) as number;
    let s = 0;
    for (const n of ns) s += pos.get(n) as number;
    return s / ns.length;
  };
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const rightward = sweep % 2 === 0;
    const order = rightward ? columns.map((_, i) => i) : columns.map((_, i) => columns.length - 1 - i);
    for (const r of order) {
      const col = columns[r] as string[];
      const key = new Map(col.map((id) => [id, bary(id, rightward ? deps : dependents)]));
      col.sort((a, b) => (key.get(a) as number) - (key.get(b) as number) || a.localeCompare(b));
      place(col);
    }
  }

  const tallest = Math.max(1, ...columns.map((c) => c.length));
  const height = tallest * (NODE_H + ROW_GAP);
  const out = new Map<string, Positioned>();
  columns.forEach((col, r) => {
    const top = (height - col.length * (NODE_H + ROW_GAP)) / 2;
    col.forEach((id, i) => out.set(id, { x: r * (NODE_W + COL_GAP), y: top + i * (NODE_H + ROW_GAP) }));
  });
  return out;
}

/**
 * The most cards a column may stack: the limit that lets the whole picture be shown at the largest
 * zoom in a pane of TARGET_ASPECT, trying every limit from 6 cards to the tallest column.
 */
export function bestRowLimit(columnSizes: number[]): number {
  const tallest = Math.max(0, ...columnSizes);
  let best = tallest;
  let bestScore = 0;
  for (let r = Math.min(6, tallest); r <= tallest; r++) {
    let width = -COL_GAP;
    for (const n of columnSizes) width += Math.ceil(n / r) * (NODE_W + SUB_GAP) - SUB_GAP + COL_GAP;
    const height = r * (NODE_H + ROW_GAP);
    // The zoom a pane of unit width would allow: limited by the width or by the height.
    const score = Math.min(1 / width, TARGET_ASPECT / height);
    if (score > bestScore) {
      bestScore = score;
      best = r;
    }
  }
  return best;
}

/** Wrap every column taller than the best row limit into adjacent sub-columns, in the column's own order. */
function wrapColumns(positions: Map<string, Positioned>): Map<string, Positioned> {
  const byX = new Map<number, string[]>();
  for (const [id, p] of positions) {
    const x = Math.round(p.x);
    const col = byX.get(x);
    if (col) col.push(id);
    else byX.set(x, [id]);
  }
  const xs = [...byX.keys()].sort((a, b) => a - b);
  const limit = bestRowLimit(xs.map((x) => (byX.get(x) as string[]).length));
  if ([...byX.values()].every((c) => c.length <= limit)) return positions;
  const out = new Map<string, Positioned>();
  let x = 0;
  const height = limit * (NODE_H + ROW_GAP);
  for (const cx of xs) {
    const col = (byX.get(cx) as string[]).sort((a, b) => (positions.get(a) as Positioned).y - (positions.get(b) as Positioned).y);
    const subs = Math.ceil(col.length / limit);
    const perSub = Math.ceil(col.length / subs);
    for (let s = 0; s < subs; s++) {
      const part = col.slice(s * perSub, (s + 1) * perSub);
      const top = (height - part.length * (NODE_H + ROW_GAP)) / 2;
      part.forEach((id, i) => out.set(id, { x: x + s * (NODE_W + SUB_GAP), y: top + i * (NODE_H + ROW_GAP) }));
    }
    x += subs * (NODE_W + SUB_GAP) - SUB_GAP + COL_GAP;
  }
  return out;
}
