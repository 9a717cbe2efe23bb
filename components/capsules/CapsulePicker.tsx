'use client';
/**
 * Find a capsule by id or by what it did, from the keyboard: type, arrows to move, Enter to pick,
 * Escape to close. At most 30 matches are in the DOM, whatever the number of capsules.
 */
import { type KeyboardEvent, useId, useMemo, useState } from 'react';
import { TextInput } from '@/components/ui/Field';
import { cx } from '@/components/ui/cx';

export interface PickerItem {
  id: string;
  what?: string;
}

const MAX = 30;

export function CapsulePicker({ items, onPick }: { items: PickerItem[]; onPick: (id: string) => void }) {
  const [q, setQ] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const id = useId();
  const matches = useMemo(() => {
    const s = q.trim().toLowerCase();
    const out: PickerItem[] = [];
    for (const it of items) {
      if (!s || it.id.toLowerCase().includes(s) || it.what?.toLowerCase().includes(s)) out.push(it);
      if (out.length >= MAX) break;
    }
    return out;
  }, [items, q]);
  const pick = (itemId: string) => {
    onPick(itemId);
    setQ(itemId);
    setOpen(false);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setOpen(true);
      setActive((a) => Math.min(matches.length - 1, a + 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => Math.max(0, a - 1));
    } else if (e.key === 'Enter') {
      const m = matches[active] ?? matches[0];
      if (m) {
        e.preventDefault();
        pick(m.id);
      }
    } else if (e.key === 'Escape') {
      setOpen(false);
    }
  };
  return (
    <div className="relative">
      <label htmlFor={`${id}-input`} className="text-xs font-medium text-slate-600">
        Find a capsule ({items.length.toLocaleString('en-US')})
      </label>
      <TextInput
        id={`${id}-input`}
        role="combobox"
        aria-expanded={open && matches.length > 0}
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        aria-activedescendant={open && matches[active] ? `${id}-opt-${active}` : undefined}
        value={q}
        onChange={(e) => {
          setQ(e.target.value);
          setOpen(true);
          setActive(0);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 120)}
        onKeyDown={onKey}
        placeholder="id or what it did"
        className="mt-1 w-full font-mono"
        autoComplete="off"
        spellCheck={false}
        data-testid="capsule-picker"
      />
      {open && matches.length > 0 && (
        <ul id={`${id}-list`} role="listbox" aria-label="Matching capsules" className="absolute z-20 mt-1 max-h-72 w-full overflow-y-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg">
          {matches.map((m, i) => (
            <li
              key={m.id}
              id={`${id}-opt-${i}`}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => {
                e.preventDefault();
                pick(m.id);
              }}
              onMouseEnter={() => setActive(i)}
              className={cx('flex cursor-pointer gap-2 px-3 py-1.5', i === active && 'bg-indigo-50')}
            >
              <span className="font-mono text-[12px] font-semibold text-slate-800">{m.id}</span>
              <span className="truncate text-[12px] text-slate-500">{m.what}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
