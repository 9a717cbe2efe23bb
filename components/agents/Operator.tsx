import type { OperatorView } from '@/components/trpc/types';

/**
 * Who Studio acts as: its own identity, the operator. Shown wherever the page writes on someone's
 * behalf, so the sender of a message or the releaser of a claim is never a surprise (and never typed in).
 */
export function OperatorNote({ operator, doing }: { operator: OperatorView; doing: string }) {
  return (
    <p className="text-xs text-slate-600" data-testid="operator">
      {doing} as the operator{' '}
      <span className="font-mono text-[12px] text-slate-800" data-testid="operator-address">
        {operator.address}
      </span>{' '}
      (
      <span className="font-mono text-[12px]" data-testid="operator-haid">
        {operator.haid ?? '{root}/studio, once the tree has a root HAID'}
      </span>
      , {operator.tier} tier).
    </p>
  );
}
