import type { ReactNode } from 'react';
import { cx } from './cx';

/** An error from the core, shown as a person-readable message (never as HTML). */
export function ErrorPanel({ title = 'The planning tree could not be read', message, className }: { title?: string; message: string; className?: string }) {
  return (
    <div role="alert" data-testid="error-panel" className={cx('rounded-lg border border-rose-200 bg-rose-50 px-4 py-3 text-sm text-rose-900', className)}>
      <p className="font-semibold">{title}</p>
      <p className="mt-1 whitespace-pre-wrap break-words font-mono text-xs leading-relaxed">{message}</p>
    </div>
  );
}

export function EmptyState({ title, children, className }: { title: string; children?: ReactNode; className?: string }) {
  return (
    <div className={cx('rounded-lg border border-dashed border-slate-300 bg-white px-6 py-10 text-center', className)}>
      <p className="text-sm font-semibold text-slate-700">{title}</p>
      {children && <div className="mx-auto mt-2 max-w-xl text-sm text-slate-500">{children}</div>}
    </div>
  );
}

export function Code({ children }: { children: ReactNode }) {
  return <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[12px] text-slate-800">{children}</code>;
}

export function Kbd({ children }: { children: ReactNode }) {
  return <kbd className="rounded border border-slate-300 bg-white px-1 font-mono text-[10px] text-slate-500 shadow-[0_1px_0_var(--color-slate-300)]">{children}</kbd>;
}
