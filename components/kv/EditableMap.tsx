'use client';
/**
 * A key/value table edited in place: the symbol table and the blackboard. Every write goes to the
 * core through tRPC; a refused id or value is shown inline with the core's own reason.
 *
 * Values are typed into a one-row textarea, not an <input>: an input silently drops or flattens a
 * pasted newline, so the browser would store something other than what was pasted. The textarea
 * keeps it (and grows to show it), Enter still saves, and the core refuses it with the same message
 * the CLI prints.
 */
import { type FormEvent, type KeyboardEvent, type TextareaHTMLAttributes, forwardRef, useEffect, useId, useMemo, useRef, useState } from 'react';
import { LogLink } from '@/components/log/LogLink';
import { Button } from '@/components/ui/Button';
import { TextInput } from '@/components/ui/Field';
import { EmptyState } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import { fmtInt } from '@/components/ui/format';

export interface MapKind {
  /** "symbol", "fact" */
  noun: string;
  idLabel: string;
  valueLabel: string;
  idPlaceholder: string;
  valuePlaceholder: string;
  /** The kind protocol.log lines name these entries by (see the log's object filter). */
  refKind: 'symbol' | 'fact';
}

interface Props {
  kind: MapKind;
  entries: Record<string, string>;
  onSet: (id: string, value: string) => Promise<unknown>;
  onDelete: (id: string) => Promise<unknown>;
  empty: React.ReactNode;
  /** An entry to bring into view and highlight (from a link in the log). */
  focus?: string;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A one-line value box that keeps what is pasted into it, newlines and tabs included. */
const ValueInput = forwardRef<HTMLTextAreaElement, TextareaHTMLAttributes<HTMLTextAreaElement> & { onEnter: () => void; value: string }>(function ValueInput(
  { onEnter, onKeyDown, className, value, ...rest },
  ref,
) {
  const lines = Math.min(4, value.split(/\r\n|\r|\n/).length);
  return (
    <textarea
      ref={ref}
      rows={lines}
      value={value}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
          e.preventDefault();
          onEnter();
          return;
        }
        onKeyDown?.(e);
      }}
      className={cx(
        'block min-h-8 resize-none rounded-md border border-slate-300 bg-white px-2.5 py-[5px] text-sm leading-5 text-slate-900 placeholder:text-slate-400 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/20 aria-[invalid=true]:border-rose-400',
        className,
      )}
      {...rest}
    />
  );
});

export function EditableMap({ kind, entries, onSet, onDelete, empty, focus }: Props) {
  const [filter, setFilter] = useState('');
  const [status, setStatus] = useState('');
  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return Object.entries(entries)
      .filter(([k, v]) => !f || k.toLowerCase().includes(f) || v.toLowerCase().includes(f))
      .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
  }, [entries, filter]);
  const total = Object.keys(entries).length;

  return (
    <div className="space-y-4">
      <AddForm kind={kind} onSet={onSet} exists={(id) => id in entries} onDone={(id) => setStatus(`Saved ${kind.noun} ${id}`)} />
      <div className="rounded-lg border border-slate-200 bg-white shadow-sm">
        <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-100 px-4 py-2.5">
          <label className="flex items-center gap-2 text-sm text-slate-600">
            <span className="sr-only">Filter {kind.noun}s</span>
            <TextInput data-search type="search" placeholder={`Filter ${kind.noun}s (press /)`} value={filter} onChange={(e) => setFilter(e.target.value)} className="w-72" />
          </label>
          <p className="text-xs text-slate-500" data-testid="row-count">
            {filter ? `${fmtInt(rows.length)} of ${fmtInt(total)}` : fmtInt(total)} {total === 1 ? kind.noun : `${kind.noun}s`}
          </p>
        </div>
        {total === 0 ? (
          <div className="p-4">{empty}</div>
        ) : rows.length === 0 ? (
          <p className="px-4 py-6 text-sm text-slate-500">No {kind.noun} matches “{filter}”.</p>
        ) : (
          <table className="w-full table-fixed text-sm">
            <caption className="sr-only">
              {kind.noun}s: {kind.idLabel.toLowerCase()} and {kind.valueLabel.toLowerCase()}
            </caption>
            <thead>
              <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
                <th scope="col" className="w-40 px-4 py-2 xl:w-56">
                  {kind.idLabel}
                </th>
                <th scope="col" className="px-4 py-2">
                  {kind.valueLabel}
                </th>
                <th scope="col" className="w-44 px-4 py-2 text-right">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map(([id, value]) => (
                <Row key={id} kind={kind} id={id} value={value} onSet={onSet} onDelete={onDelete} onStatus={setStatus} focused={id === focus} />
              ))}
            </tbody>
          </table>
        )}
      </div>
      <p role="status" aria-live="polite" className="sr-only">
        {status}
      </p>
    </div>
  );
}

function AddForm({ kind, onSet, exists, onDone }: { kind: MapKind; onSet: Props['onSet']; exists: (id: string) => boolean; onDone: (id: string) => void }) {
  const [id, setId] = useState('');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const idRef = useRef<HTMLInputElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errId = useId();
  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSet(id, value);
      onDone(id);
      setId('');
      setValue('');
      idRef.current?.focus();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const overwriting = id !== '' && exists(id);
  return (
    <form ref={formRef} onSubmit={submit} aria-label={`Add a ${kind.noun}`} className="rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm">
      <div className="flex flex-wrap items-start gap-3">
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          {kind.idLabel}
          <TextInput ref={idRef} name="id" value={id} onChange={(e) => setId(e.target.value)} placeholder={kind.idPlaceholder} className="w-48 font-mono" aria-invalid={!!error} aria-describedby={error ? errId : undefined} autoComplete="off" spellCheck={false} />
        </label>
        <label className="flex min-w-64 flex-1 flex-col gap-1 text-xs font-medium text-slate-600">
          {kind.valueLabel}
          <ValueInput
            name="value"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            onEnter={() => formRef.current?.requestSubmit()}
            placeholder={kind.valuePlaceholder}
            className="w-full font-mono"
            aria-invalid={!!error}
            aria-describedby={error ? errId : undefined}
            autoComplete="off"
            spellCheck={false}
          />
        </label>
        <Button type="submit" variant="primary" disabled={busy} className="mt-5">
          {overwriting ? `Overwrite ${kind.noun}` : `Add ${kind.noun}`}
        </Button>
      </div>
      {error && (
        <p id={errId} role="alert" className="mt-2 text-sm text-rose-700" data-testid="add-error">
          {error}
        </p>
      )}
    </form>
  );
}

function Row({
  kind,
  id,
  value,
  onSet,
  onDelete,
  onStatus,
  focused,
}: { kind: MapKind; id: string; value: string; onSet: Props['onSet']; onDelete: Props['onDelete']; onStatus: (s: string) => void; focused: boolean }) {
  const [mode, setMode] = useState<'view' | 'edit' | 'confirm'>('view');
  const [draft, setDraft] = useState(value);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const editBtn = useRef<HTMLButtonElement>(null);
  const rowRef = useRef<HTMLTableRowElement>(null);
  const errId = useId();
  useEffect(() => {
    if (focused) rowRef.current?.scrollIntoView({ block: 'center' });
  }, [focused]);

  const run = async (fn: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      onStatus(done);
      setMode('view');
      requestAnimationFrame(() => editBtn.current?.focus());
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const save = () => run(() => onSet(id, draft), `Saved ${kind.noun} ${id}`);
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      setMode('view');
      setError(null);
      requestAnimationFrame(() => editBtn.current?.focus());
    }
  };

  return (
    <tr
      ref={rowRef}
      data-row-id={id}
      data-focused={focused ? 'true' : undefined}
      className={cx('group border-b border-slate-100 last:border-0 align-top', mode !== 'view' ? 'bg-indigo-50/40' : focused && 'bg-amber-50 ring-1 ring-inset ring-amber-300')}
    >
      <th scope="row" className="truncate px-4 py-1.5 text-left font-mono text-[13px] font-medium text-slate-800" title={id}>
        {id}
      </th>
      <td className="px-4 py-2">
        {mode === 'edit' ? (
          <div>
            <label className="sr-only" htmlFor={`${errId}-input`}>
              {kind.valueLabel} of {id}
            </label>
            <ValueInput
              id={`${errId}-input`}
              autoFocus
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={onKey}
              onEnter={() => void save()}
              className="w-full font-mono"
              aria-invalid={!!error}
              aria-describedby={error ? errId : undefined}
              spellCheck={false}
            />
          </div>
        ) : (
          <span className="block break-words font-mono text-[13px] text-slate-700" data-value data-wrap>
            {value}
          </span>
        )}
        {error && (
          <p id={errId} role="alert" className="mt-1.5 text-sm text-rose-700">
            {error}
          </p>
        )}
        {mode === 'confirm' && <p className="mt-1.5 text-sm text-rose-800">Delete {kind.noun} {id}? This writes to the planning tree and protocol.log.</p>}
      </td>
      <td className="px-4 py-1.5 text-right">
        {mode === 'view' && (
          <div className="flex items-center justify-end gap-1">
            <LogLink kind={kind.refKind} id={id} className="mr-1" />
            <Button
              ref={editBtn}
              size="sm"
              variant="ghost"
              aria-label={`Edit ${id}`}
              onClick={() => {
                setDraft(value);
                setError(null);
                setMode('edit');
              }}
            >
              Edit
            </Button>
            <Button size="sm" variant="ghost" aria-label={`Delete ${id}`} className="hover:text-rose-700" onClick={() => setMode('confirm')}>
              Delete
            </Button>
          </div>
        )}
        {mode === 'edit' && (
          <div className="flex justify-end gap-1">
            <Button size="sm" variant="primary" disabled={busy} onClick={() => void save()}>
              Save
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setMode('view')}>
              Cancel
            </Button>
          </div>
        )}
        {mode === 'confirm' && (
          <div className="flex justify-end gap-1">
            <Button size="sm" variant="danger" autoFocus disabled={busy} onClick={() => void run(() => onDelete(id), `Deleted ${kind.noun} ${id}`)}>
              Delete
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setMode('view')}>
              Cancel
            </Button>
          </div>
        )}
      </td>
    </tr>
  );
}
