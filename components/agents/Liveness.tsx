import { cx } from '@/components/ui/cx';
import type { HeartbeatStatus } from '@/components/trpc/types';
import { fmtAge } from '@/components/ui/format';

export const LIVENESS: Record<HeartbeatStatus, { label: string; dot: string; text: string; hint: string }> = {
  active: { label: 'active', dot: 'bg-emerald-500', text: 'text-emerald-700', hint: 'heartbeat under 2 min old' },
  deep_work: { label: 'deep work', dot: 'bg-sky-500', text: 'text-sky-700', hint: 'heartbeat 2-5 min old: a long tool call or think' },
  stale: { label: 'stale', dot: 'bg-amber-500', text: 'text-amber-700', hint: 'heartbeat 5-10 min old' },
  unresponsive: { label: 'unresponsive', dot: 'bg-rose-500', text: 'text-rose-700', hint: 'no heartbeat for over 10 min, or never' },
};

export const LIVENESS_ORDER: HeartbeatStatus[] = ['active', 'deep_work', 'stale', 'unresponsive'];

/** Colour and text, never colour alone. */
export function LivenessBadge({ status }: { status: HeartbeatStatus }) {
  const l = LIVENESS[status];
  return (
    <span className={cx('inline-flex items-center gap-1.5 text-[13px] font-medium', l.text)} title={l.hint} data-liveness={status}>
      <span aria-hidden className={cx('inline-block size-2 rounded-full', l.dot)} />
      {l.label}
    </span>
  );
}

/** The time since the last check-in, in words. */
export function silence(a: { seconds_since_checkin: number | null }): string {
  return a.seconds_since_checkin === null ? 'never checked in' : `${fmtAge(a.seconds_since_checkin * 1000)} ago`;
}
