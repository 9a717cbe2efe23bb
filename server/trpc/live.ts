/**
 * Live updates: which parts of the planning tree changed, pushed to open pages.
 *
 * Why server-sent events fed by a stat poll (and not client polling, nor fs.watch):
 * - Client polling would have every open tab re-read every state file (protocol.log can hold
 *   100,000 lines) each second, mostly to learn that nothing changed. With one SSE stream per tab,
 *   the server checks once for all tabs and a tab refetches only the queries whose files changed.
 * - The server checks with `stat` (size, mtime, inode) every 250 ms instead of `fs.watch`, because
 *   the core writes whole files by rename (a watch on the old inode goes quiet), recursive watching
 *   is uneven across platforms, and inotify does not fire for changes made through network mounts
 *   or container volumes. Ten stats every 250 ms cost microseconds and give a change on screen in
 *   well under the 2 s budget.
 * - SSE is plain HTTP: it carries the Studio cookie, passes the same Host and token checks as every
 *   other request, and EventSource reconnects by itself. If the stream drops, the client falls back
 *   to polling every 2 s until it is back (components/live/LiveProvider.tsx).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../core/index.js';

/** A part of the planning tree a page can depend on; the client maps each to its queries. */
export type Topic = 'log' | 'symbols' | 'blackboard' | 'capsules' | 'ledger' | 'team' | 'wire' | 'phase';

export const TOPICS: readonly Topic[] = ['log', 'symbols', 'blackboard', 'capsules', 'ledger', 'team', 'wire', 'phase'];

interface Watched {
  topic: Topic;
  path: string;
  /** Fold in the entries of a directory (to this depth), not just the directory itself. */
  depth?: number;
  /** Which entries of the directory count (default: all but locks and temp files). */
  include?: (name: string) => boolean;
}

function watchedPaths(ctx: Ctx): Watched[] {
  const p = ctx.paths;
  return [
    { topic: 'log', path: p.protocolLog },
    { topic: 'symbols', path: p.symbols },
    { topic: 'blackboard', path: p.blackboard },
    { topic: 'capsules', path: p.capsulesDir, depth: 1 },
    { topic: 'ledger', path: p.ledger },
    { topic: 'ledger', path: p.baselines },
    // Run records (what a run measured, its workspace, recall and ablation) sit beside the lines.
    { topic: 'ledger', path: path.join(p.protocolDir, 'runs'), depth: 1, include: (n) => n.endsWith('.json') },
    // Claims, identities, decisions (ledger/), check-ins, mailboxes and tiers (herd/).
    { topic: 'team', path: p.teamLedgerDir, depth: 3 },
    { topic: 'team', path: p.herdDir, depth: 2 },
    // The wire log's topics, and handshake peers and tasks. Only the log files count in wire/: the
    // read model database lives there too and changes whenever Studio itself catches up on the log.
    { topic: 'wire', path: p.wireDir, depth: 1, include: (n) => n.endsWith('.jsonl') },
    { topic: 'wire', path: p.handshakeDir, depth: 2 },
    // A GSD phase run: the imported task list and the typed results `heimdall gsd done` records
    // (its claims and attempts already show as 'team' and 'wire').
    { topic: 'phase', path: p.gsdTasks },
    { topic: 'phase', path: p.taskResultsDir, depth: 1, include: (n) => n.endsWith('.json') },
  ];
}

function statSig(file: string): string {
  try {
    const st = fs.statSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return '-';
  }
}

/** A signature that changes when the file, or any entry of the directory down to `depth`, changes. */
function signature(w: Watched): string {
  const own = statSig(w.path);
  if (!w.depth || own === '-') return own;
  // With a filter, the directory's own stamp would change for files the filter leaves out.
  const parts = [w.include ? 'dir' : own];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = fs.readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const n of names) {
      if (n.endsWith('.lock') || n.endsWith('.tmp') || (w.include && !w.include(n))) continue;
      const full = path.join(dir, n);
      const sig = statSig(full);
      parts.push(`${n}=${sig}`);
      if (depth > 1) walk(full, depth - 1);
    }
  };
  walk(w.path, w.depth);
  return parts.join('|');
}

export interface ChangeEvent {
  /** Topics whose files changed since the previous event; every topic on the first event. */
  topics: Topic[];
  /** Increases by one per event. */
  seq: number;
}

type Listener = (e: ChangeEvent) => void;

/** One poller per planning root, shared by every open stream, running only while someone listens. */
class PlanningWatcher {
  private listeners = new Set<Listener>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private sigs = new Map<string, string>();
  private seq = 0;
  private ticks = 0;
  constructor(
    private readonly ctx: Ctx,
    private readonly intervalMs: number,
  ) {}

  subscribe(fn: Listener): () => void {
    if (this.listeners.size === 0) {
      this.snapshot();
      this.timer = setInterval(() => this.poll(), this.intervalMs);
      this.timer.unref?.();
    }
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  private snapshot(): void {
    for (const w of watchedPaths(this.ctx)) this.sigs.set(w.path, signature(w));
  }

  private poll(): void {
    const changed = new Set<Topic>();
    // A JetStream wire log has no local file to stat: treat the wire as changed every 2 s instead.
    if (this.ctx.env.HEIMDALL_STREAM_URL?.trim() && ++this.ticks % 8 === 0) changed.add('wire');
    for (const w of watchedPaths(this.ctx)) {
      const sig = signature(w);
      if (this.sigs.get(w.path) !== sig) {
        this.sigs.set(w.path, sig);
        changed.add(w.topic);
      }
    }
    if (changed.size === 0) return;
    const event = { topics: [...changed], seq: ++this.seq };
    for (const fn of this.listeners) fn(event);
  }
}

const watchers = new Map<string, PlanningWatcher>();

function watcherFor(ctx: Ctx): PlanningWatcher {
  let w = watchers.get(ctx.root);
  if (!w) {
    w = new PlanningWatcher(ctx, 250);
    watchers.set(ctx.root, w);
  }
  return w;
}

/**
 * Change events for the planning tree until `signal` aborts. The first event names every topic, so a
 * client that reconnects after a gap refetches everything it shows.
 */
export async function* planningChanges(ctx: Ctx, signal: AbortSignal | undefined): AsyncGenerator<ChangeEvent> {
  const queue: ChangeEvent[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = watcherFor(ctx).subscribe((e) => {
    queue.push(e);
    wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort);
  try {
    yield { topics: [...TOPICS], seq: 0 };
    while (!signal?.aborted) {
      if (queue.length === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      // Coalesce a burst (a demo writes dozens of lines at once) into one event.
      const topics = new Set<Topic>();
      let seq = 0;
      for (const e of queue.splice(0)) {
        for (const t of e.topics) topics.add(t);
        seq = e.seq;
      }
      yield { topics: [...topics], seq };
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    unsubscribe();
  }
}
