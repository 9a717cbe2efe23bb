'use client';
/**
 * protocol.log, newest first: a virtualized list over paged server reads. Only the rows on screen
 * exist in the DOM and only the pages they fall in are fetched (200 lines each), so 100,000 lines
 * cost what 60 do. Pages are pinned to a line number (`upTo`): the log is append-only, so a pinned
 * page never changes and is never refetched; live tail moves the pin forward as lines arrive.
 */
import { useQueries, useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { Settled } from '@/components/data/seed';
import { useTRPC } from '@/components/trpc/react';
import { Badge, toneFor } from '@/components/ui/Badge';
import { Button } from '@/components/ui/Button';
import { Select, TextInput } from '@/components/ui/Field';
import { ErrorPanel } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import { fmtInt, fmtTs } from '@/components/ui/format';
import type { LogEntry, LogFacets, LogFilter, LogPage } from '@/components/trpc/types';

const PAGE = 200;
const ROW = 30;

export interface LogViewProps {
  initialFilter: LogFilter;
  initialPage: Settled<LogPage>;
  initialFacets: Settled<LogFacets>;
}

function keyOf(f: LogFilter): string {
  return JSON.stringify([f.mechanism ?? '', f.action ?? '', f.text ?? '']);
}

function clean(f: LogFilter): LogFilter {
  const out: LogFilter = {};
  if (f.mechanism) out.mechanism = f.mechanism;
  if (f.action) out.action = f.action;
  if (f.text) out.text = f.text;
  return out;
}

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

export function LogView({ initialFilter, initialPage, initialFacets }: LogViewProps) {
  const trpc = useTRPC();
  const [mechanism, setMechanism] = useState(initialFilter.mechanism ?? '');
  const [action, setAction] = useState(initialFilter.action ?? '');
  const [textInput, setTextInput] = useState(initialFilter.text ?? '');
  const text = useDebounced(textInput, 200);
  const filter = useMemo(() => clean({ mechanism, action, text }), [mechanism, action, text]);
  const fkey = keyOf(filter);
  const initialKey = keyOf(clean(initialFilter));
  const [live, setLive] = useState(true);
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);

  // Keep the URL shareable without a server round trip.
  useEffect(() => {
    const params = new URLSearchParams(filter as Record<string, string>);
    const q = params.toString();
    const url = `${window.location.pathname}${q ? `?${q}` : ''}`;
    if (url !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(window.history.state, '', url);
  }, [filter]);

  const seed = fkey === initialKey && initialPage.ok ? initialPage.data : undefined;
  // The head: the newest page for this filter, unpinned, refetched when protocol.log changes.
  const head = useQuery(trpc.log.page.queryOptions({ ...filter, limit: PAGE }, { initialData: seed }));
  const facets = useQuery(trpc.log.facets.queryOptions(undefined, initialFacets.ok ? { initialData: initialFacets.data } : {}));

  const [pin, setPin] = useState<{ key: string; upTo: number } | undefined>(seed ? { key: initialKey, upTo: seed.total } : undefined);
  const headTotal = head.data?.total;
  useEffect(() => {
    if (headTotal === undefined) return;
    setPin((p) => {
      if (!p || p.key !== fkey) return { key: fkey, upTo: headTotal };
      if (live && headTotal !== p.upTo) return { key: fkey, upTo: headTotal };
      return p;
    });
  }, [fkey, headTotal, live]);
  const upTo = pin && pin.key === fkey ? pin.upTo : undefined;

  // Page 0 at the pin gives the count at the pin (seeded from the server's first page).
  const page0 = useQuery(
    trpc.log.page.queryOptions(
      { ...filter, upTo: upTo ?? 0, offset: 0, limit: PAGE },
      {
        enabled: upTo !== undefined,
        staleTime: Number.POSITIVE_INFINITY,
        // The head is page 0 at its own total: moving the pin to it costs no request and no flicker.
        initialData: head.data && upTo === head.data.total ? head.data : undefined,
        // While a moved pin loads, keep showing the rows of the same filter, never another filter's.
        placeholderData: (prev, prevQuery) => (prevQuery && keyOf((prevQuery.queryKey[1] as { input: LogFilter }).input) === fkey ? prev : undefined),
      },
    ),
  );
  const count = upTo === undefined ? 0 : (page0.data?.matched ?? 0);

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW,
    overscan: 15,
    // The server render lays out the first screen of rows, so they are there before scripts run.
    initialRect: { width: 1200, height: 720 },
  });
  const items = virtualizer.getVirtualItems();
  const pageIdx = useMemo(() => {
    const s = new Set<number>();
    for (const it of items) s.add(Math.floor(it.index / PAGE));
    return [...s].sort((a, b) => a - b);
  }, [items]);
  const pages = useQueries({
    queries: pageIdx.map((p) =>
      trpc.log.page.queryOptions({ ...filter, upTo: upTo ?? 0, offset: p * PAGE, limit: PAGE }, { enabled: upTo !== undefined && p > 0, staleTime: Number.POSITIVE_INFINITY }),
    ),
  });
  const rowAt = (i: number): LogEntry | undefined => {
    const p = Math.floor(i / PAGE);
    const data = p === 0 ? page0.data : pages[pageIdx.indexOf(p)]?.data;
    return data?.entries[i - p * PAGE];
  };

  // When the pin moves forward and the reader is not at the top, keep the rows they look at in place.
  const prevCount = useRef(count);
  const prevKey = useRef(fkey);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const added = count - prevCount.current;
    if (el && prevKey.current === fkey && added > 0 && el.scrollTop > 0) el.scrollTop += added * ROW;
    prevCount.current = count;
    prevKey.current = fkey;
  }, [count, fkey]);

  const [active, setActive] = useState<number | undefined>(undefined);
  useEffect(() => setActive(undefined), [fkey]);
  const activeEntry = active !== undefined ? rowAt(active) : undefined;
  const move = useCallback(
    (to: number) => {
      if (count === 0) return;
      const i = Math.max(0, Math.min(count - 1, to));
      setActive(i);
      virtualizer.scrollToIndex(i, { align: 'auto' });
    },
    [count, virtualizer],
  );
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const perScreen = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 600) / ROW) - 1);
    const cur = active ?? -1;
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(cur + 1),
      ArrowUp: () => move(cur - 1),
      PageDown: () => move(cur + perScreen),
      PageUp: () => move(cur - perScreen),
      Home: () => move(0),
      End: () => move(count - 1),
      Escape: () => setActive(undefined),
    };
    const fn = keys[e.key];
    if (fn) {
      e.preventDefault();
      fn();
    }
  };

  const pending = headTotal !== undefined && upTo !== undefined ? headTotal - upTo : 0;
  const actions = useMemo(() => (facets.data?.actions ?? []).filter((a) => !mechanism || a.mechanism === mechanism), [facets.data, mechanism]);
  const actionNames = useMemo(() => [...new Set(actions.map((a) => a.value))].sort(), [actions]);
  const error = head.error?.message ?? (!head.data && !initialPage.ok ? initialPage.error.message : undefined);
  const torn = head.data?.tornLine;
  const listId = 'log-rows';

  return (
    <div className="flex flex-col gap-3" data-ready={ready ? 'true' : undefined} data-testid="log-view">
      <div role="search" aria-label="Filter the log" className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm">
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Mechanism
          <Select
            value={mechanism}
            onChange={(e) => {
              setMechanism(e.target.value);
              setAction('');
            }}
            className="w-40"
          >
            <option value="">All</option>
            {(facets.data?.mechanisms ?? []).map((m) => (
              <option key={m.value} value={m.value}>
                {m.value} ({fmtInt(m.count)})
              </option>
            ))}
            {mechanism && !(facets.data?.mechanisms ?? []).some((m) => m.value === mechanism) && <option value={mechanism}>{mechanism}</option>}
          </Select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Action
          <Select value={action} onChange={(e) => setAction(e.target.value)} className="w-36">
            <option value="">All</option>
            {actionNames.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
            {action && !actionNames.includes(action) && <option value={action}>{action}</option>}
          </Select>
        </label>
        <label className="flex min-w-64 flex-1 flex-col gap-1 text-xs font-medium text-slate-600">
          Text
          <TextInput data-search type="search" value={textInput} onChange={(e) => setTextInput(e.target.value)} placeholder="Search lines (press /)" className="w-full" />
        </label>
        <div className="flex items-center gap-2 pb-0.5">
          <Button aria-pressed={live} onClick={() => setLive((v) => !v)} variant={live ? 'primary' : 'secondary'} title="Follow new lines as they are written">
            <span aria-hidden className={cx('inline-block size-1.5 rounded-full', live ? 'animate-pulse bg-white' : 'bg-slate-400')} />
            Live tail
          </Button>
          {(mechanism || action || textInput) && (
            <Button
              variant="ghost"
              onClick={() => {
                setMechanism('');
                setAction('');
                setTextInput('');
              }}
            >
              Clear
            </Button>
          )}
        </div>
      </div>

      {error && <ErrorPanel message={error} />}

      <div className="flex flex-wrap items-center justify-between gap-2 text-xs text-slate-500">
        <p aria-live="polite" data-testid="log-summary">
          {head.data ? (
            <>
              <span className="font-medium text-slate-700">{fmtInt(count)}</span> {Object.keys(filter).length ? 'matching' : ''} line{count === 1 ? '' : 's'}
              {Object.keys(filter).length ? <> of {fmtInt(head.data.total)}</> : null}
              {torn ? <span className="ml-2 text-amber-700">line {fmtInt(torn)} is cut short (a writer mid-line); it is shown once complete</span> : null}
            </>
          ) : (
            'Loading…'
          )}
        </p>
        {!live && pending > 0 && (
          <Button size="sm" variant="secondary" onClick={() => setPin({ key: fkey, upTo: headTotal as number })}>
            {fmtInt(pending)} new line{pending === 1 ? '' : 's'}: show
          </Button>
        )}
      </div>

      <div className="grid min-h-0 gap-3 xl:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm">
          <div aria-hidden className="grid grid-cols-[4.5rem_10.5rem_7rem_7rem_minmax(0,1fr)] gap-3 border-b border-slate-100 bg-slate-50 px-3 py-1.5 text-[11px] font-medium uppercase tracking-wide text-slate-500">
            <span className="text-right">Line</span>
            <span>Time (UTC)</span>
            <span>Mechanism</span>
            <span>Action</span>
            <span>Detail</span>
          </div>
          <div
            ref={scrollRef}
            id={listId}
            role="listbox"
            aria-label={`protocol.log, newest first, ${fmtInt(count)} lines`}
            aria-activedescendant={active !== undefined ? `log-row-${active}` : undefined}
            tabIndex={0}
            onKeyDown={onKey}
            className="relative h-[calc(100vh-17rem)] min-h-80 overflow-y-auto focus:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-indigo-500"
            data-testid="log-scroll"
          >
            {count === 0 && page0.data && (
              <p className="px-4 py-10 text-center text-sm text-slate-500">{page0.data.total === 0 ? 'protocol.log is empty: every mutation from any transport appends a line here.' : 'No line matches this filter.'}</p>
            )}
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {items.map((it) => {
                const e = rowAt(it.index);
                const selected = it.index === active;
                return (
                  <div
                    key={it.key}
                    id={`log-row-${it.index}`}
                    role="option"
                    aria-selected={selected}
                    data-log-row={e ? e.line : undefined}
                    onClick={() => setActive(it.index)}
                    className={cx(
                      'absolute left-0 grid w-full cursor-default grid-cols-[4.5rem_10.5rem_7rem_7rem_minmax(0,1fr)] items-center gap-3 border-b border-slate-50 px-3 text-[13px]',
                      selected ? 'bg-indigo-50' : it.index % 2 ? 'bg-slate-50/40 hover:bg-slate-100/70' : 'hover:bg-slate-100/70',
                    )}
                    style={{ top: it.start, height: ROW }}
                  >
                    {e ? (
                      <>
                        <span className="text-right font-mono text-[11px] text-slate-400">{e.line}</span>
                        <span className="font-mono text-[12px] text-slate-500">{fmtTs(e.ts)}</span>
                        <span className="truncate">
                          <Badge tone={toneFor(e.mechanism)}>{e.mechanism}</Badge>
                        </span>
                        <span className="truncate font-medium text-slate-700">{e.action}</span>
                        <span className="truncate font-mono text-[12px] text-slate-700" title={e.detail}>
                          {e.detail}
                        </span>
                      </>
                    ) : (
                      <span className="col-span-5 h-3 w-2/3 animate-pulse rounded bg-slate-100" aria-label="loading" />
                    )}
                  </div>
                );
              })}
            </div>
          </div>
        </div>
        <aside aria-label="Selected line" className="rounded-lg border border-slate-200 bg-white p-4 text-sm shadow-sm xl:self-start">
          {activeEntry ? (
            <dl className="space-y-2">
              <div>
                <dt className="text-xs font-medium text-slate-500">Line</dt>
                <dd className="font-mono">{activeEntry.line}</dd>
              </div>
              <div>
                <dt className="text-xs font-medium text-slate-500">Time (UTC)</dt>
                <dd className="font-mono">{activeEntry.ts}</dd>
              </div>
              <div className="flex gap-6">
                <div>
                  <dt className="text-xs font-medium text-slate-500">Mechanism</dt>
                  <dd>
                    <Badge tone={toneFor(activeEntry.mechanism)}>{activeEntry.mechanism}</Badge>
                  </dd>
                </div>
                <div>
                  <dt className="text-xs font-medium text-slate-500">Action</dt>
                  <dd className="font-medium">{activeEntry.action}</dd>
                </div>
              </div>
              <div>
                <dt className="text-xs font-medium text-slate-500">Detail</dt>
                <dd className="mt-1 whitespace-pre-wrap break-words rounded bg-slate-50 p-2 font-mono text-[12px] text-slate-800" data-testid="log-detail">
                  {activeEntry.detail}
                </dd>
              </div>
            </dl>
          ) : (
            <p className="text-slate-500">
              Select a line to read it in full. Keyboard: focus the list, then <span className="font-mono">↑ ↓ PgUp PgDn Home End</span>.
            </p>
          )}
        </aside>
      </div>
    </div>
  );
}
