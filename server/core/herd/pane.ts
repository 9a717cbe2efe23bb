/**
 * The context pane: for the calling agent, the recent activity of the agents whose work is linked
 * to its own, compressed to its tier's token budget. Null when nothing is linked (the seed: "returns
 * null when sparse") or when the budget is 0 (Mechanical).
 *
 * Links (strongest first):
 *   same task      another agent reports the same task
 *   dependency     its task is one my task depends on (capsule `depends`, check-in `depends`,
 *                  wire dependency.created)
 *   dependent      its task depends on mine
 *   claims         one of its claimed surfaces overlaps one of mine (the claims collision test)
 *   graph (n)      reachable through the task graph in n steps, either direction (visibility graph)
 *   team           same team, nothing structural (visibility team: the leader sees everyone)
 *
 * Visibility per tier: `direct` keeps the first four, `graph` adds graph links up to 3 steps, `team`
 * adds every teammate. Pure: the caller gathers records and sources; this file ranks and renders.
 */
import type { Tokenizer } from '../ports.js';
import type { Visibility } from './team.js';

export interface PaneAgent {
  address: string;
  team: string;
  task: string | null;
  /** Claimed surfaces (globs), when the claims store knows them. */
  surfaces: string[];
  lastMs: number;
  /** Statuses oldest first; the last one is the current status. */
  history: Array<{ ms: number; status: string; task: string | null }>;
}

export type LinkKind = 'same task' | 'dependency' | 'dependent' | 'claims' | 'graph' | 'team';

export interface Link {
  kind: LinkKind;
  /** 0 same task, 1 direct links, 2-3 graph, 9 team. */
  distance: number;
}

export interface LinkSources {
  /** task -> the tasks it depends on. */
  deps: Map<string, Set<string>>;
  overlaps(a: string[], b: string[]): boolean;
}

export const MAX_GRAPH_DEPTH = 3;

function dependentsOf(deps: Map<string, Set<string>>): Map<string, Set<string>> {
  const rev = new Map<string, Set<string>>();
  for (const [t, ds] of deps) {
    for (const d of ds) {
      let s = rev.get(d);
      if (!s) rev.set(d, (s = new Set()));
      s.add(t);
    }
  }
  return rev;
}

/** Undirected BFS over the task graph from `start`, up to `max` steps. */
function graphDistances(start: string, deps: Map<string, Set<string>>, rev: Map<string, Set<string>>, max: number): Map<string, number> {
  const dist = new Map<string, number>([[start, 0]]);
  let frontier = [start];
  for (let d = 1; d <= max && frontier.length > 0; d++) {
    const next: string[] = [];
    for (const t of frontier) {
      for (const n of [...(deps.get(t) ?? []), ...(rev.get(t) ?? [])]) {
        if (!dist.has(n)) {
          dist.set(n, d);
          next.push(n);
        }
      }
    }
    frontier = next;
  }
  return dist;
}

/** Which of `others` are linked to `me`, and how, under the given visibility. */
export function findLinks(me: PaneAgent, others: PaneAgent[], visibility: Visibility, src: LinkSources): Map<string, Link> {
  const out = new Map<string, Link>();
  const rev = dependentsOf(src.deps);
  const dist = me.task && visibility !== 'direct' ? graphDistances(me.task, src.deps, rev, MAX_GRAPH_DEPTH) : new Map<string, number>();
  for (const o of others) {
    if (o.address === me.address) continue;
    let link: Link | undefined;
    if (me.task && o.task) {
      if (o.task === me.task) link = { kind: 'same task', distance: 0 };
      else if (src.deps.get(me.task)?.has(o.task)) link = { kind: 'dependency', distance: 1 };
      else if (src.deps.get(o.task)?.has(me.task)) link = { kind: 'dependent', distance: 1 };
    }
    if (!link && me.surfaces.length > 0 && o.surfaces.length > 0 && src.overlaps(me.surfaces, o.surfaces)) link = { kind: 'claims', distance: 1 };
    if (!link && o.task && dist.has(o.task)) link = { kind: 'graph', distance: dist.get(o.task) as number };
    if (!link && visibility === 'team' && o.team === me.team) link = { kind: 'team', distance: 9 };
    if (link) out.set(o.address, link);
  }
  return out;
}

export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s}s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m}m`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.round(h / 24)}d`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

export interface RenderOptions {
  budget: number;
  tokenizer: Tokenizer;
  nowMs: number;
  /** An optional liveness tag per agent (e.g. "stale"), from the shared heartbeat thresholds. */
  tag?: (agent: PaneAgent) => string | undefined;
}

/**
 * Render the linked agents' activity within `budget` tokens (the whole text, counted with the
 * tokenizer). Order: link distance, then most recent. Each agent's current status first; earlier
 * statuses are added round-robin while they fit; agents that do not fit are counted in a last line.
 */
export function renderPane(agents: PaneAgent[], links: Map<string, Link>, opts: RenderOptions): string | null {
  if (opts.budget <= 0) return null;
  const linked = agents
    .filter((a) => links.has(a.address) && a.history.length > 0)
    .sort((a, b) => (links.get(a.address) as Link).distance - (links.get(b.address) as Link).distance || b.lastMs - a.lastMs || a.address.localeCompare(b.address));
  if (linked.length === 0) return null;

  const count = (blocks: string[][]) => opts.tokenizer.count(blocks.map((b) => b.join('\n')).join('\n'));
  const head = (a: PaneAgent) => {
    const l = links.get(a.address) as Link;
    const kind = l.kind === 'graph' ? `graph ${l.distance}` : l.kind;
    const tag = opts.tag?.(a);
    return `${a.address} (${a.task ? `${a.task}, ` : ''}${kind}, ${formatAge(opts.nowMs - a.lastMs)} ago${tag ? `, ${tag}` : ''}): `;
  };

  const fill = (reserve: number) => {
    const fits = (blocks: string[][]) => count(blocks) <= opts.budget - reserve;
    const blocks: string[][] = [];
    const included: PaneAgent[] = [];
    let omitted = 0;
    for (const a of linked) {
      const prefix = head(a);
      const status = oneLine(a.history[a.history.length - 1]?.status ?? '');
      const full = prefix + status;
      if (fits([...blocks, [full]])) {
        blocks.push([full]);
        included.push(a);
        continue;
      }
      // Keep the closer agent with a shortened status rather than drop it for a farther one.
      const cut = longestFitting(status, (s) => fits([...blocks, [`${prefix}${s}`]]));
      if (cut !== undefined && cut.length >= 12) {
        blocks.push([`${prefix}${cut}`]);
        included.push(a);
      } else omitted++;
    }
    return { blocks, included, omitted, fits };
  };
  // Room for the "(+N more ...)" line is kept back while filling, so the reader learns that agents
  // were left out; a budget too small for both shows what fits.
  const reserve = linked.length > 1 ? opts.tokenizer.count(`\n(+${linked.length} more linked agents)`) : 0;
  let filled = fill(reserve);
  if (filled.blocks.length === 0 && reserve > 0) filled = fill(0);
  const { blocks, included, omitted, fits } = filled;
  if (blocks.length === 0) return null;

  // Earlier statuses, newest first, one per agent per round, while they fit.
  for (let depth = 2; depth <= 5; depth++) {
    let added = false;
    included.forEach((a, i) => {
      const h = a.history[a.history.length - depth];
      if (!h) return;
      const line = `  earlier (${formatAge(opts.nowMs - h.ms)} ago${h.task && h.task !== a.task ? `, ${h.task}` : ''}): ${oneLine(h.status)}`;
      const block = blocks[i] as string[];
      const trial = blocks.map((b, j) => (j === i ? [...b, line] : b));
      if (fits(trial)) {
        block.push(line);
        added = true;
      }
    });
    if (!added) break;
  }
  if (omitted > 0) {
    const more = `(+${omitted} more linked agent${omitted === 1 ? '' : 's'})`;
    if (count([...blocks, [more]]) <= opts.budget) blocks.push([more]);
  }
  return blocks.map((b) => b.join('\n')).join('\n');
}

/** The longest prefix of `s` (ending in "..." when cut) that `ok` accepts, by binary search. */
function longestFitting(s: string, ok: (t: string) => boolean): string | undefined {
  let lo = 0;
  let hi = s.length;
  let best: string | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = mid >= s.length ? s : `${s.slice(0, mid).trimEnd()}...`;
    if (ok(t)) {
      best = t;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
