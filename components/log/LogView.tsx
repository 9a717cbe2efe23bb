'use client';
/**
 * protocol.log, newest first: a virtualized list over paged server reads. Only the rows on screen
 * exist in the DOM and only the pages they fall in are fetched (200 lines each), so 100,000 lines
 * cost what 60 do. Pages are pinned to a line number (`upTo`): the log is append-only, so a pinned
 * page never changes and is never refetched; live tail moves the pin forward as lines arrive.
 *
 * Filters: mechanism, action, author, text, a time range and the object a line names, all in the
 * URL. A relative range ("last hour") is turned into a start instant once, from the server's clock,
 * when it is chosen: the view then stays put while new lines keep arriving after that instant.
 */
import { useQueries, useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import Link from 'next/link';
import { type KeyboardEvent, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { Settled } from '@/components/data/seed';
import { useTRPC } from '@/components/trpc/react';
import type { LogEntry, LogFacets, LogFilter, LogPage } from '@/components/trpc/types';
import { Badge, toneFor } from '@/components/ui/Badge';
import { Button } from '@/components/ui/Button';
import { Select, TextInput } from '@/components/ui/Field';
import { ErrorPanel } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import { fmtAge, fmtInt, fmtTs } from '@/components/ui/format';
import { REF_LABEL, authorLogHref, logHref, objectHref } from './links';
import { LAST_SECONDS, type LogRange, RANGE_LABEL, isLast, isoAt, rangeBounds, rangeParams } from './range';

const PAGE = 200;
const ROW = 30;

export interface LogViewProps {
  initialFilter: LogFilter;
  initialRange: LogRange;
  initialPage: Settled<LogPage>;
  initialFacets: Settled<LogFacets>;
  initialNow?: number;
}

const FIELDS = ['mechanism', 'action', 'text', 'author', 'object', 'from', 'to'] as const;

function keyOf(f: LogFilter): string {
  return JSON.stringify(FIELDS.map((k) => f[k] ?? ''));
}

function clean(f: LogFilter): LogFilter {
  const out: LogFilter = {};
  for (const k of FIELDS) if (f[k]) out[k] = f[k];
  return out;
}

/** The last segment of a HAID ("h-1a2b3c4d/studio" -> "studio"), for a narrow column. */
function shortHaid(h: string): string {
  return h.slice(h.lastIndexOf('/') + 1);
}

/** 2026-06-11T12:00:00Z -> 2026-06-11T12:00:00, what a datetime-local input holds (read as UTC here). */
function toLocalInput(iso: string | undefined): string {
  return iso ? iso.replace(/Z$/, '') : '';
}

function fromLocalInput(v: string): string | undefined {
  if (!v) return undefined;
  return `${v.length === 16 ? `${v}:00` : v}Z`;
}

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

export function LogView({ initialFilter, initialRange, initialPage, initialFacets, initialNow }: LogViewProps) {
  const trpc = useTRPC();
  // The server's clock (a frozen test clock included) as the page was rendered, advanced by the time
  // since: read only when a range is chosen or a line's age is shown, so keeping it costs no request
  // and no re-render.
  const clock = useRef<{ server: number; local: number } | null>(null);
  clock.current ??= { server: initialNow ?? Date.now(), local: Date.now() };
  const serverNow = () => {
    const c = clock.current as { server: number; local: number };
    return c.server + (Date.now() - c.local);
  };
  const [mechanism, setMechanism] = useState(initialFilter.mechanism ?? '');
  const [action, setAction] = useState(initialFilter.action ?? '');
  const [author, setAuthor] = useState(initialFilter.author ?? '');
  const [object, setObject] = useState(initialFilter.object ?? '');
  const [range, setRange] = useState<LogRange>(initialRange);
  const [textInput, setTextInput] = useState(initialFilter.text ?? '');
  const text = useDebounced(textInput, 200);
  const bounds = useMemo(() => rangeBounds(range), [range]);
  const filter = useMemo(() => clean({ mechanism, action, text, author, object, ...bounds }), [mechanism, action, text, author, object, bounds]);
  const fkey = keyOf(filter);
  const initialKey = keyOf(clean({ ...initialFilter, ...rangeBounds(initialRange) }));
  const [live, setLive] = useState(true);
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);

  // Keep the URL shareable without a server round trip (a relative range stays relative there).
  useEffect(() => {
    const { from: _from, to: _to, ...rest } = filter;
    const params = new URLSearchParams({ ...(rest as Record<string, string>), ...rangeParams(range) });
    const q = params.toString();
    const url = `${window.location.pathname}${q ? `?${q}` : ''}`;
    if (url !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(window.history.state, '', url);
  }, [filter, range]);

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
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Author
          <Select value={author} onChange={(e) => setAuthor(e.target.value)} className="w-40" title={author || 'Any author'}>
            <option value="">Anyone</option>
            {(facets.data?.authors ?? []).map((a) => (
              <option key={a.value} value={a.value}>
                {shortHaid(a.value)} ({fmtInt(a.count)})
              </option>
            ))}
            {author && !(facets.data?.authors ?? []).some((a) => a.value === author) && <option value={author}>{shortHaid(author)}</option>}
          </Select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Time
          <Select
            value={range.kind === 'last' ? range.last : range.kind}
            onChange={(e) => {
              const v = e.target.value;
              if (v === 'all') setRange({ kind: 'all' });
              else if (v === 'custom') setRange({ kind: 'custom', from: bounds.from ?? isoAt(serverNow() - 3_600_000), ...(bounds.to ? { to: bounds.to } : {}) });
              else if (isLast(v)) setRange({ kind: 'last', last: v, from: isoAt(serverNow() - LAST_SECONDS[v] * 1000) });
            }}
            className="w-36"
          >
            <option value="all">{RANGE_LABEL.all}</option>
            <option value="15m">{RANGE_LABEL['15m']}</option>
            <option value="1h">{RANGE_LABEL['1h']}</option>
            <option value="1d">{RANGE_LABEL['1d']}</option>
            <option value="custom">{RANGE_LABEL.custom}</option>
          </Select>
        </label>
        {range.kind === 'custom' && (
          <>
            <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
              From (UTC)
              <TextInput type="datetime-local" step={1} value={toLocalInput(range.from)} onChange={(e) => setRange({ ...range, from: fromLocalInput(e.target.value) })} className="w-52" />
            </label>
            <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
              To (UTC)
              <TextInput type="datetime-local" step={1} value={toLocalInput(range.to)} onChange={(e) => setRange({ ...range, to: fromLocalInput(e.target.value) })} className="w-52" />
            </label>
          </>
        )}
        <label className="flex min-w-64 flex-1 flex-col gap-1 text-xs font-medium text-slate-600">
          Text
          <TextInput data-search type="search" value={textInput} onChange={(e) => setTextInput(e.target.value)} placeholder="Search lines (press /)" className="w-full" />
        </label>
        <div className="flex items-center gap-2 pb-0.5">
          <Button aria-pressed={live} onClick={() => setLive((v) => !v)} variant={live ? 'primary' : 'secondary'} title="Follow new lines as they are written">
            <span aria-hidden className={cx('inline-block size-1.5 rounded-full', live ? 'animate-pulse bg-white' : 'bg-slate-400')} />
            Live tail
          </Button>
          {(mechanism || action || textInput || author || object || range.kind !== 'all') && (
            <Button
              variant="ghost"
              onClick={() => {
                setMechanism('');
                setAction('');
                setAuthor('');
                setObject('');
                setRange({ kind: 'all' });
                setTextInput('');
              }}
            >
              Clear
            </Button>
          )}
        </div>
      </div>

      {(object || range.kind === 'last') && (
        <div className="flex flex-wrap items-center gap-2 text-xs text-slate-600">
          {object && (
            <span className="inline-flex items-center gap-1.5 rounded-full bg-indigo-50 py-0.5 pl-2.5 pr-1 text-indigo-800 ring-1 ring-inset ring-indigo-200" data-testid="object-filter">
              Lines naming <span className="font-mono">{object.replace(':', ' ')}</span>
              <button type="button" onClick={() => setObject('')} aria-label={`Stop filtering by ${object}`} className="rounded-full px-1 hover:bg-indigo-100">
                ×
              </button>
            </span>
          )}
          {range.kind === 'last' && (
            <span data-testid="range-since">
              Since <span className="font-mono">{fmtTs(range.from)}</span> UTC ({RANGE_LABEL[range.last].toLowerCase()} when chosen)
            </span>
          )}
        </div>
      )}

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
                        <span className="flex min-w-0 items-center gap-2">
                          <span className="truncate font-mono text-[12px] text-slate-700" title={e.detail}>
                            {e.detail}
                          </span>
                          {e.author && (
                            <span className="ml-auto shrink-0 rounded bg-slate-100 px-1.5 font-mono text-[10px] text-slate-500" title={`written by ${e.author}`} data-author={e.author}>
                              {shortHaid(e.author)}
                            </span>
                          )}
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
                <dd className="font-mono" data-testid="log-detail-time">
                  {fmtTs(activeEntry.ts)}
                  {!Number.isNaN(Date.parse(activeEntry.ts)) && (
                    <span className="ml-2 font-sans text-xs text-slate-500" suppressHydrationWarning>
                      {Date.parse(activeEntry.ts) <= serverNow() ? `${fmtAge(serverNow() - Date.parse(activeEntry.ts))} ago` : 'in the future'}
                    </span>
                  )}
                </dd>
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
                <dt className="text-xs font-medium text-slate-500">Author</dt>
                <dd className="break-all font-mono text-[12px]" data-testid="log-detail-author">
                  {activeEntry.author ? (
                    <Link href={authorLogHref(activeEntry.author)} onClick={() => setAuthor(activeEntry.author ?? '')} className="text-indigo-700 hover:underline" title="Every line this author wrote">
                      {activeEntry.author}
                    </Link>
                  ) : (
                    <span className="font-sans text-slate-500">not recorded (a command-line write, or a line from before authors were logged)</span>
                  )}
                </dd>
              </div>
              {activeEntry.refs.length > 0 && (
                <div>
                  <dt className="text-xs font-medium text-slate-500">Names</dt>
                  <dd>
                    <ul className="mt-1 space-y-1" data-testid="log-detail-refs">
                      {activeEntry.refs.map((r) => (
                        <li key={`${r.kind}:${r.id}`} className="flex flex-wrap items-baseline gap-x-2 text-[13px]">
                          <span className="text-xs text-slate-500">{REF_LABEL[r.kind]}</span>
                          <Link href={objectHref(r)} className="break-all font-mono text-[12px] font-medium text-indigo-700 hover:underline" data-ref={`${r.kind}:${r.id}`}>
                            {r.id}
                          </Link>
                          <Link href={logHref(r.kind, r.id)} onClick={() => setObject(`${r.kind}:${r.id}`)} className="text-xs text-slate-500 hover:text-indigo-700 hover:underline">
                            its lines
                          </Link>
                        </li>
                      ))}
                    </ul>
                  </dd>
                </div>
              )}
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
