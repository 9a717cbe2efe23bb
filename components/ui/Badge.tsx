import type { ReactNode } from 'react';
import { cx } from './cx';

export type Tone = 'slate' | 'green' | 'amber' | 'red' | 'blue' | 'violet' | 'indigo' | 'teal' | 'rose' | 'orange' | 'cyan' | 'lime';

const TONES: Record<Tone, string> = {
  slate: 'bg-slate-100 text-slate-700 ring-slate-200',
  green: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
  amber: 'bg-amber-50 text-amber-800 ring-amber-200',
  red: 'bg-rose-50 text-rose-700 ring-rose-200',
  blue: 'bg-sky-50 text-sky-700 ring-sky-200',
  violet: 'bg-violet-50 text-violet-700 ring-violet-200',
  indigo: 'bg-indigo-50 text-indigo-700 ring-indigo-200',
  teal: 'bg-teal-50 text-teal-700 ring-teal-200',
  rose: 'bg-pink-50 text-pink-700 ring-pink-200',
  orange: 'bg-orange-50 text-orange-700 ring-orange-200',
  cyan: 'bg-cyan-50 text-cyan-700 ring-cyan-200',
  lime: 'bg-lime-50 text-lime-800 ring-lime-200',
};

export function Badge({ tone = 'slate', children, className, title }: { tone?: Tone; children: ReactNode; className?: string; title?: string }) {
  return (
    <span title={title} className={cx('inline-flex items-center gap-1 whitespace-nowrap rounded px-1.5 py-0.5 text-[11px] font-medium ring-1 ring-inset', TONES[tone], className)}>
      {children}
    </span>
  );
}

const HASHED: Tone[] = ['indigo', 'teal', 'violet', 'orange', 'cyan', 'rose', 'lime', 'blue', 'amber', 'green'];

/** A stable colour per name (mechanisms in the log, roles in the ledger). */
export function toneFor(name: string): Tone {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return HASHED[h % HASHED.length] as Tone;
}
