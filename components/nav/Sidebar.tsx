'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useLiveStatus } from '@/components/live/LiveProvider';
import { cx } from '@/components/ui/cx';
import { ThemeToggle } from './ThemeToggle';

const SECTIONS: { label: string; items: { href: string; label: string; hint: string }[] }[] = [
  { label: '', items: [{ href: '/', label: 'Overview', hint: 'Savings, agents, claims, latest activity' }] },
  {
    label: 'Protocol',
    items: [
      { href: '/log', label: 'Log', hint: 'protocol.log, newest first' },
      { href: '/symbols', label: 'Symbols', hint: 'The symbol table' },
      { href: '/capsules', label: 'Capsules', hint: 'Dependency graph and hydration' },
      { href: '/blackboard', label: 'Blackboard', hint: 'Shared facts' },
      { href: '/ledger', label: 'Ledger', hint: 'Measured token savings' },
    ],
  },
  {
    label: 'Team',
    items: [
      { href: '/claims', label: 'Claims', hint: 'Who holds which surfaces' },
      { href: '/agents', label: 'Agents', hint: 'Heartbeats and status' },
      { href: '/phase', label: 'Phase', hint: 'A GSD phase as a board: who runs which plan' },
    ],
  },
  {
    label: 'Wire',
    items: [
      { href: '/streams', label: 'Streams', hint: 'Wire events and task runs' },
      { href: '/peers', label: 'Peers', hint: 'Handshake profiles' },
    ],
  },
];

function LiveIndicator() {
  const { status } = useLiveStatus();
  const label = status === 'live' ? 'Live' : status === 'polling' ? 'Polling every 2 s' : 'Connecting…';
  return (
    <p role="status" aria-live="polite" className="flex items-center gap-2 text-xs text-ink-400" data-live-status={status}>
      <span aria-hidden className={cx('inline-block size-2 rounded-full', status === 'live' ? 'bg-emerald-400 shadow-[0_0_0_3px_rgba(52,211,153,0.2)]' : status === 'polling' ? 'bg-amber-400' : 'bg-ink-500')} />
      {label}
    </p>
  );
}

export function Sidebar({ root }: { root: string }) {
  const pathname = usePathname();
  return (
    // The dark column spans the whole page; the navigation inside it stays in view while the page scrolls.
    <div className="w-48 shrink-0 bg-ink-900 xl:w-56">
    <nav aria-label="Studio" className="sticky top-0 flex h-screen w-48 flex-col text-ink-300 xl:w-56">
      <div className="flex items-center gap-2 px-4 pb-4 pt-5">
        <span aria-hidden className="grid size-7 place-items-center rounded-md bg-indigo-500 font-mono text-sm font-bold text-ink-50">H</span>
        <div>
          <p className="text-sm font-semibold leading-tight text-ink-50">Heimdall</p>
          <p className="text-[11px] leading-tight text-ink-400">Studio</p>
        </div>
      </div>
      <div className="flex-1 overflow-y-auto px-2">
        {SECTIONS.map((s) => (
          <div key={s.label || 'top'} className="mb-3">
            {s.label && <p className="px-2 pb-1 pt-2 text-[11px] font-semibold uppercase tracking-wider text-ink-500">{s.label}</p>}
            <ul>
              {s.items.map((it) => {
                const active = it.href === '/' ? pathname === '/' : pathname === it.href || pathname.startsWith(`${it.href}/`);
                return (
                  <li key={it.href}>
                    <Link
                      href={it.href}
                      title={it.hint}
                      aria-current={active ? 'page' : undefined}
                      className={cx(
                        'block rounded-md px-2 py-1.5 text-sm transition-colors',
                        active ? 'bg-ink-800 font-medium text-ink-50' : 'text-ink-300 hover:bg-ink-800/60 hover:text-ink-50',
                      )}
                    >
                      {it.label}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </div>
        ))}
      </div>
      <div className="space-y-1.5 border-t border-ink-800 px-4 py-3">
        <ThemeToggle />
        <LiveIndicator />
        <p className="truncate font-mono text-[11px] text-ink-500" title={root}>
          {root}
        </p>
      </div>
    </nav>
    </div>
  );
}
