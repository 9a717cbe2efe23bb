'use client';
/**
 * The capsule dependency graph. Selecting a capsule (click, or Tab to a node and Enter, or the
 * picker beside the graph, or a link with ?id=) shows its text, its `where:` resolved to paths, and
 * highlights its hydration closure: exactly the capsules `heimdall-capsule hydrate ID` would emit,
 * as the core computes them. Choosing one from the picker or a link pans the graph to it.
 *
 * The first view and the "fit" control show the whole graph. Zoomed out, a card shows only its id,
 * in a font that grows as the zoom shrinks (--cap-zoom, set without re-rendering the nodes), so the
 * ids stay readable at 200 capsules.
 */
import { useQuery } from '@tanstack/react-query';
import { Background, Controls, type Edge, Handle, MarkerType, MiniMap, type Node, type NodeProps, Position, ReactFlow, type ReactFlowInstance, useStore } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import Link from 'next/link';
import { type RefObject, memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { LogLink } from '@/components/log/LogLink';
import { useResolvedTheme } from '@/components/nav/useResolvedTheme';
import { type Settled, errorMessage, seeded } from '@/components/data/seed';
import { useTRPC } from '@/components/trpc/react';
import { Badge } from '@/components/ui/Badge';
import { Code, EmptyState, ErrorPanel } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import { fmtInt } from '@/components/ui/format';
import type { CapsuleNode } from '@/components/trpc/types';
import { CapsulePicker } from './CapsulePicker';
import { NODE_H, NODE_W, layoutGraph } from './layout';

type Mark = 'selected' | 'closure' | 'dim' | 'plain';
interface CapsuleData extends Record<string, unknown> {
  id: string;
  what?: string;
  error?: string;
  mark: Mark;
}
type CapsuleFlowNode = Node<CapsuleData, 'capsule'>;

const CapsuleCard = memo(function CapsuleCard({ data }: NodeProps<CapsuleFlowNode>) {
  return (
    <div
      className={cx(
        'flex h-full w-full flex-col justify-center rounded-md border bg-white px-2.5 text-left shadow-sm transition-opacity',
        data.error ? 'border-rose-300 bg-rose-50' : 'border-slate-300',
        data.mark === 'selected' && 'border-indigo-500 ring-2 ring-indigo-500/40',
        data.mark === 'closure' && 'border-amber-400 bg-amber-50 ring-2 ring-amber-300/50',
        data.mark === 'dim' && 'opacity-30',
      )}
      data-capsule={data.id}
      data-mark={data.mark}
    >
      <Handle type="target" position={Position.Left} className="!size-1.5 !border-0 !bg-slate-400" isConnectable={false} />
      <p className="capsule-id truncate font-mono font-semibold text-slate-800">{data.id}</p>
      <p className={cx('capsule-what truncate text-[11px]', data.error ? 'text-rose-700' : 'text-slate-500')}>{data.error ? 'unreadable: see details' : (data.what ?? '')}</p>
      <Handle type="source" position={Position.Right} className="!size-1.5 !border-0 !bg-slate-400" isConnectable={false} />
    </div>
  );
});

const nodeTypes = { capsule: CapsuleCard };

/**
 * Where the two handles sit, given up front: React Flow otherwise renders every node once, visible
 * or not, just to measure its handles, which for 2,000 capsules costs more than everything else.
 */
const HANDLE = 6;
const HANDLES = [
  { type: 'target' as const, position: Position.Left, x: -HANDLE / 2, y: NODE_H / 2 - HANDLE / 2, width: HANDLE, height: HANDLE },
  { type: 'source' as const, position: Position.Right, x: NODE_W - HANDLE / 2, y: NODE_H / 2 - HANDLE / 2, width: HANDLE, height: HANDLE },
];

function isError(c: CapsuleNode): c is { id: string; error: string } {
  return 'error' in c;
}

/** Above this many capsules the first view shows the newest columns only (rendering thousands of cards at once is slow); "fit" still shows all. */
const FIT_ALL_MAX = 400;
/** Room around the fitted graph; more on the left, where the zoom controls sit, so they never cover a card. */
const FIT_PADDING = { top: '16px', right: '16px', bottom: '16px', left: '56px' } as const;
/** Below this zoom a card shows only its id. */
const FAR_ZOOM = 0.75;

/** Publishes the zoom to the graph's container as a CSS variable and a level-of-detail flag. */
function ZoomVar({ target }: { target: RefObject<HTMLDivElement | null> }) {
  const zoom = useStore((s) => s.transform[2]);
  useEffect(() => {
    const el = target.current;
    if (!el) return;
    el.style.setProperty('--cap-zoom', String(zoom));
    el.dataset.lod = zoom < FAR_ZOOM ? 'far' : 'near';
    el.dataset.zoom = zoom.toFixed(3);
  }, [zoom, target]);
  return null;
}

interface Bounds {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The minimap, shown only while part of the graph is out of view: when the whole graph is on screen
 * it would only cover cards.
 */
function OverviewMap({ bounds, nodeColor }: { bounds: Bounds; nodeColor: (n: Node) => string }) {
  const hidden = useStore((s) => {
    const [tx, ty, z] = s.transform;
    const v = { x0: -tx / z, y0: -ty / z, x1: (s.width - tx) / z, y1: (s.height - ty) / z };
    return bounds.x0 < v.x0 - 1 || bounds.y0 < v.y0 - 1 || bounds.x1 > v.x1 + 1 || bounds.y1 > v.y1 + 1;
  });
  return hidden ? <MiniMap pannable zoomable nodeColor={nodeColor} /> : null;
}

export function CapsuleGraph({ initial, initialSelected }: { initial: Settled<CapsuleNode[]>; initialSelected?: string }) {
  const trpc = useTRPC();
  const graph = useQuery(trpc.capsules.graph.queryOptions(undefined, seeded(initial)));
  const [selected, setSelected] = useState<string | undefined>(initialSelected);
  const theme = useResolvedTheme();
  const rf = useRef<ReactFlowInstance<CapsuleFlowNode, Edge> | null>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const [mounted, setMounted] = useState(false);
  const [ready, setReady] = useState(false);
  useEffect(() => setMounted(true), []);
  const caps = graph.data;
  const byId = useMemo(() => new Map((caps ?? []).map((c) => [c.id, c])), [caps]);

  const selectable = selected !== undefined && byId.has(selected) && !isError(byId.get(selected) as CapsuleNode);
  const closure = useQuery(trpc.capsules.closure.queryOptions({ id: selected ?? '' }, { enabled: selectable }));
  const detail = useQuery(trpc.capsules.get.queryOptions({ id: selected ?? '' }, { enabled: selectable }));
  const inClosure = useMemo(() => new Set(selected && closure.data ? closure.data : []), [selected, closure.data]);

  const layout = useMemo(() => {
    if (!caps) return undefined;
    const ids = caps.map((c) => c.id);
    const known = new Set(ids);
    const edges: [string, string][] = [];
    for (const c of caps) if (!isError(c)) for (const d of c.depends) if (known.has(d)) edges.push([d, c.id]);
    const laid = layoutGraph({ ids, edges });
    const bounds: Bounds = { x0: Number.POSITIVE_INFINITY, y0: Number.POSITIVE_INFINITY, x1: Number.NEGATIVE_INFINITY, y1: Number.NEGATIVE_INFINITY };
    for (const p of laid.positions.values()) {
      bounds.x0 = Math.min(bounds.x0, p.x);
      bounds.y0 = Math.min(bounds.y0, p.y);
      bounds.x1 = Math.max(bounds.x1, p.x + NODE_W);
      bounds.y1 = Math.max(bounds.y1, p.y + NODE_H);
    }
    return { edges, bounds, ...laid };
  }, [caps]);

  const nodes = useMemo<CapsuleFlowNode[]>(() => {
    if (!caps || !layout) return [];
    return caps.map((c) => {
      const mark: Mark = !selected ? 'plain' : c.id === selected ? 'selected' : inClosure.has(c.id) ? 'closure' : 'dim';
      return {
        id: c.id,
        type: 'capsule',
        position: layout.positions.get(c.id) ?? { x: 0, y: 0 },
        data: { id: c.id, what: isError(c) ? undefined : c.what, error: isError(c) ? c.error : undefined, mark },
        width: NODE_W,
        height: NODE_H,
        handles: HANDLES,
        ariaLabel: `capsule ${c.id}${isError(c) ? ' (unreadable)' : c.what ? `: ${c.what}` : ''}`,
      };
    });
  }, [caps, layout, selected, inClosure]);

  const edges = useMemo<Edge[]>(() => {
    if (!layout) return [];
    return layout.edges.map(([from, to]) => {
      const hot = selected !== undefined && inClosure.has(from) && inClosure.has(to);
      return {
        id: `${from}->${to}`,
        source: from,
        target: to,
        animated: hot,
        // Theme colours by variable, so the dark theme's flipped palette applies to edges too.
        style: { stroke: hot ? 'var(--color-amber-600)' : selected ? 'var(--color-slate-200)' : 'var(--color-slate-400)', strokeWidth: hot ? 2 : 1 },
        markerEnd: { type: MarkerType.ArrowClosed, width: 14, height: 14, color: hot ? 'var(--color-amber-600)' : 'var(--color-slate-400)' },
      };
    });
  }, [layout, selected, inClosure]);

  // Very large graphs open on their newest three columns at a readable zoom (where the recent work is,
  // and only the nodes on screen are rendered); others open fitted whole.
  const fitTargets = useMemo(() => {
    if (!layout || nodes.length <= FIT_ALL_MAX) return undefined;
    const columns = [...new Set([...layout.positions.values()].map((p) => p.x))].sort((a, b) => b - a);
    const from = columns[Math.min(2, columns.length - 1)] ?? 0;
    return nodes.filter((n) => n.position.x >= from).slice(0, 90).map((n) => ({ id: n.id }));
  }, [layout, nodes]);

  /** Centre the graph on a capsule, zooming in to reading size if the view is further out. */
  const panTo = useCallback(
    (id: string) => {
      const p = layout?.positions.get(id);
      if (!p || !rf.current) return;
      void rf.current.setCenter(p.x + NODE_W / 2, p.y + NODE_H / 2, { zoom: Math.max(rf.current.getZoom(), 1), duration: 250 });
    },
    [layout],
  );
  const pick = useCallback(
    (id: string) => {
      setSelected(id);
      panTo(id);
    },
    [panTo],
  );
  const onInit = useCallback(
    (inst: ReactFlowInstance<CapsuleFlowNode, Edge>) => {
      rf.current = inst;
      setReady(true);
    },
    [],
  );
  // A capsule named in the URL (a link from the log) is brought into view once the graph is up.
  const pannedInitial = useRef(false);
  useEffect(() => {
    if (!ready || pannedInitial.current || !initialSelected) return;
    pannedInitial.current = true;
    // After the first fitView has been applied.
    requestAnimationFrame(() => panTo(initialSelected));
  }, [ready, initialSelected, panTo]);
  const error = errorMessage(graph.error, initial, caps !== undefined);
  const sel = selected ? byId.get(selected) : undefined;
  const pickerItems = useMemo(() => (caps ?? []).map((c) => ({ id: c.id, what: isError(c) ? 'unreadable' : c.what })), [caps]);

  return (
    <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_24rem]">
      <div className="space-y-3">
        {error && <ErrorPanel message={error} />}
        {/* Keyboard: Tab reaches the nodes; Enter or Space on a focused node selects it. */}
        <div
          onKeyDown={(e) => {
            if (e.key !== 'Enter' && e.key !== ' ') return;
            const id = (e.target as HTMLElement).closest<HTMLElement>('.react-flow__node')?.dataset.id;
            if (id) {
              e.preventDefault();
              setSelected(id);
            }
          }}
          ref={boxRef}
          className="capsule-graph relative h-[calc(100vh-13rem)] min-h-96 overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm"
          data-testid="capsule-graph"
          data-graph-ready={ready ? 'true' : undefined}
          data-layout-engine={layout?.engine}
          data-layout-ms={layout ? Math.round(layout.ms) : undefined}
        >
          {caps && caps.length === 0 ? (
            <EmptyState title="No capsules yet" className="m-6">
              A finished task compacts into a capsule of at most 10 lines: <Code>heimdall-capsule write w1 --what "..." --where F12</Code>
            </EmptyState>
          ) : mounted && caps ? (
            <ReactFlow<CapsuleFlowNode, Edge>
              nodes={nodes}
              edges={edges}
              nodeTypes={nodeTypes}
              onInit={onInit}
              onNodeClick={(_, n) => setSelected(n.id)}
              onPaneClick={() => setSelected(undefined)}
              elementsSelectable={false}
              nodesDraggable={false}
              nodesConnectable={false}
              edgesFocusable={false}
              onlyRenderVisibleElements
              fitView
              // includeHiddenNodes: fit by the sizes given to each node, not only the nodes already drawn
              // (onlyRenderVisibleElements never draws off-screen ones, which left them out of the fit).
              fitViewOptions={fitTargets ? { nodes: fitTargets, maxZoom: 1, includeHiddenNodes: true } : { padding: FIT_PADDING, maxZoom: 1.2, includeHiddenNodes: true }}
              minZoom={0.05}
              maxZoom={2}
              colorMode={theme}
              proOptions={{ hideAttribution: true }}
              aria-label="Capsule dependency graph"
            >
              <ZoomVar target={boxRef} />
              <Background gap={20} color="var(--color-slate-200)" />
              {/* "Fit" always shows every capsule, whatever the first view showed. */}
              <Controls showInteractive={false} fitViewOptions={{ padding: FIT_PADDING, maxZoom: 1.2, duration: 200, includeHiddenNodes: true }} />
              {caps.length > 30 && caps.length <= 400 && layout && (
                <OverviewMap
                  bounds={layout.bounds}
                  nodeColor={(n) => ((n.data as CapsuleData).mark === 'selected' ? 'var(--color-indigo-500)' : (n.data as CapsuleData).mark === 'closure' ? 'var(--color-amber-500)' : 'var(--color-slate-300)')}
                />
              )}
            </ReactFlow>
          ) : (
            <p className="p-6 text-sm text-slate-500">Laying out {fmtInt(caps?.length ?? 0)} capsules…</p>
          )}
        </div>
      </div>
      <aside aria-label="Selected capsule" className="space-y-3">
        <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
          <CapsulePicker items={pickerItems} onPick={pick} />
          <p className="mt-3 flex flex-wrap gap-2 text-[11px] text-slate-500">
            <Badge tone="indigo">selected</Badge>
            <Badge tone="amber">in its hydration closure</Badge>
            <span>Arrows point from a dependency to the capsule that needs it.</span>
          </p>
        </div>
        {sel ? (
          <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid="capsule-detail">
            <div className="flex items-baseline justify-between gap-2">
              <h2 className="font-mono text-sm font-semibold text-slate-900">{sel.id}</h2>
              <LogLink kind="capsule" id={sel.id} label="Log lines" />
            </div>
            {isError(sel) ? (
              <ErrorPanel className="mt-3" title="This capsule file cannot be read" message={sel.error} />
            ) : (
              detail.error ? (
                <ErrorPanel className="mt-3" title="This capsule cannot be read" message={detail.error.message} />
              ) : (
                <>
                  <pre className="mt-3 max-h-72 overflow-auto whitespace-pre-wrap break-words rounded bg-slate-50 p-3 font-mono text-[12px] leading-relaxed text-slate-800" data-testid="capsule-text">
                    {detail.data?.text ?? 'Reading…'}
                  </pre>
                  {detail.data && detail.data.whereItems.length > 0 && (
                    <div className="mt-3">
                      <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Where</h3>
                      <ul className="mt-1 space-y-0.5 font-mono text-[12px]" data-testid="capsule-where">
                        {detail.data.whereItems.map((w) => (
                          <li key={w.text} data-where={w.text} className="flex flex-wrap gap-x-2">
                            {w.value !== undefined ? (
                              <>
                                <Link href={`/symbols?focus=${encodeURIComponent(w.text)}`} className="font-semibold text-indigo-700 hover:underline" title={`symbol ${w.text}`}>
                                  {w.text}
                                </Link>
                                <span aria-hidden className="text-slate-400">
                                  →
                                </span>
                                <span className="break-all text-slate-800" data-where-value>
                                  {w.value}
                                </span>
                              </>
                            ) : (
                              <span className="break-all text-slate-700" title="not a symbol id: shown as written">
                                {w.text}
                              </span>
                            )}
                          </li>
                        ))}
                      </ul>
                    </div>
                  )}
                </>
              )
            )}
            <div className="mt-4">
              <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Hydration closure</h3>
              {closure.error ? (
                <ErrorPanel className="mt-2" title="The closure cannot be computed" message={closure.error.message} />
              ) : closure.data ? (
                <>
                  <p className="mt-1 text-xs text-slate-500">
                    {closure.data.length} capsule{closure.data.length === 1 ? '' : 's'}, dependencies first: what <Code>heimdall-capsule hydrate {sel.id}</Code> emits.
                  </p>
                  <ol className="mt-2 flex flex-wrap items-center gap-1 font-mono text-[12px]" data-testid="closure-order">
                    {closure.data.map((id, i) => (
                      <li key={id} className="flex items-center gap-1">
                        {i > 0 && <span aria-hidden className="text-slate-400">→</span>}
                        <button type="button" onClick={() => pick(id)} className={cx('rounded px-1.5 py-0.5', id === sel.id ? 'bg-indigo-100 text-indigo-800' : 'bg-amber-100 text-amber-900 hover:bg-amber-200')}>
                          {id}
                        </button>
                      </li>
                    ))}
                  </ol>
                </>
              ) : (
                <p className="mt-1 text-xs text-slate-500">Computing…</p>
              )}
            </div>
          </div>
        ) : (
          <p className="rounded-lg border border-dashed border-slate-300 bg-white p-4 text-sm text-slate-500">Select a capsule to read it and see which capsules hydrating it brings in.</p>
        )}
      </aside>
    </div>
  );
}
