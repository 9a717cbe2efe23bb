'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { type Settled, seeded } from '@/components/data/seed';
import { useServerNow } from '@/components/data/useServerNow';
import { AgentsByStatus } from '@/components/agents/AgentsByStatus';
import { ClaimStatusBadge, timeLeft } from '@/components/claims/ClaimsView';
import { SavingsCard } from '@/components/ledger/SavingsCard';
import { useTRPC } from '@/components/trpc/react';
import { Badge, toneFor } from '@/components/ui/Badge';
import { Card } from '@/components/ui/Card';
import { Code, ErrorPanel } from '@/components/ui/Notice';
import { fmtInt, fmtTs } from '@/components/ui/format';
import type { AgentList, ClaimList, LedgerReport, LogPage } from '@/components/trpc/types';

export interface OverviewInitial {
  report: Settled<LedgerReport>;
  log: Settled<LogPage>;
  claims: Settled<ClaimList>;
  symbols: Settled<Record<string, string>>;
  facts: Settled<Record<string, string>>;
  capsules: Settled<string[]>;
  agents: Settled<AgentList>;
  now?: number;
}

function Tile({ label, value, href }: { label: string; value: number | undefined; href: string }) {
  return (
    <Link href={href} className="group rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm transition-colors hover:border-indigo-300">
      <p className="text-xs font-medium text-slate-500 group-hover:text-indigo-700">{label}</p>
      <p className="mt-0.5 text-2xl font-semibold tabular-nums text-slate-900">{value === undefined ? '—' : fmtInt(value)}</p>
    </Link>
  );
}

export function OverviewView(props: OverviewInitial) {
  const trpc = useTRPC();
  const report = useQuery(trpc.ledger.report.queryOptions({}, seeded(props.report)));
  const log = useQuery(trpc.log.page.queryOptions({ limit: 12 }, seeded(props.log)));
  const claims = useQuery(trpc.claims.list.queryOptions(undefined, seeded(props.claims)));
  const symbols = useQuery(trpc.symbols.list.queryOptions(undefined, seeded(props.symbols)));
  const facts = useQuery(trpc.blackboard.list.queryOptions(undefined, seeded(props.facts)));
  const capsules = useQuery(trpc.capsules.ids.queryOptions(undefined, seeded(props.capsules)));
  const agents = useQuery(trpc.agents.list.queryOptions(undefined, seeded(props.agents)));
  const now = useServerNow(props.now);
  const errors = [report.error, log.error, claims.error, symbols.error, facts.error, capsules.error, agents.error]
    .map((e) => e?.message)
    .concat([props.report, props.log, props.claims, props.symbols, props.facts, props.capsules, props.agents].map((s) => (s.ok ? undefined : s.error.message)))
    .filter((m): m is string => !!m);
  const active = (claims.data?.claims ?? []).filter((c) => c.status === 'active');

  return (
    <div className="space-y-4">
      {[...new Set(errors)].map((m) => (
        <ErrorPanel key={m} message={m} />
      ))}
      <div className="grid gap-4 xl:grid-cols-[minmax(0,28rem)_minmax(0,1fr)]">
        <div className="space-y-4">
          {report.data && <SavingsCard report={report.data} compact exportable />}
          <div className="grid grid-cols-2 gap-3">
            <Tile label="Log lines" value={log.data?.total} href="/log" />
            <Tile label="Symbols" value={symbols.data ? Object.keys(symbols.data).length : undefined} href="/symbols" />
            <Tile label="Capsules" value={capsules.data?.length} href="/capsules" />
            <Tile label="Blackboard facts" value={facts.data ? Object.keys(facts.data).length : undefined} href="/blackboard" />
          </div>
        </div>
        <div className="space-y-4">
          <AgentsByStatus data={agents.data} />
          <Card
            title="Active claims"
            description={claims.data ? `${claims.data.active} active, ${claims.data.expired} expired, ${claims.data.retired} retired` : undefined}
            actions={
              <Link href="/claims" className="text-xs font-medium text-indigo-600 hover:text-indigo-800">
                All claims →
              </Link>
            }
            bodyClassName="p-0"
          >
            {active.length === 0 ? (
              <p className="px-4 py-5 text-sm text-slate-500">
                No active claims. Agents claim surfaces before changing them: <Code>heimdall-claim claim --surfaces &apos;src/**&apos; --task T-1</Code>
              </p>
            ) : (
              <ul className="divide-y divide-slate-50" data-testid="overview-claims">
                {active.slice(0, 6).map((c) => (
                  <li key={c.haid} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-4 py-2 text-sm">
                    <ClaimStatusBadge status={c.status} />
                    <span className="font-mono text-[12px] font-medium text-slate-800">{c.haid}</span>
                    <span className="font-mono text-[12px] text-slate-600">{c.surfaces.join(', ')}</span>
                    <span className="ml-auto text-xs tabular-nums text-slate-500" suppressHydrationWarning>
                      {c.task} · {timeLeft(c, now)}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </Card>
          <Card
            title="Latest activity"
            description="protocol.log, newest first"
            actions={
              <Link href="/log" className="text-xs font-medium text-indigo-600 hover:text-indigo-800">
                Full log →
              </Link>
            }
            bodyClassName="p-0"
          >
            {(log.data?.entries ?? []).length === 0 ? (
              <p className="px-4 py-5 text-sm text-slate-500">protocol.log is empty.</p>
            ) : (
              <ol className="divide-y divide-slate-50" data-testid="overview-log">
                {(log.data?.entries ?? []).map((e) => (
                  <li key={e.line} className="grid grid-cols-[9.5rem_6.5rem_5.5rem_minmax(0,1fr)] items-center gap-3 px-4 py-1.5 text-[13px]">
                    <span className="font-mono text-[11px] text-slate-500">{fmtTs(e.ts)}</span>
                    <span className="truncate">
                      <Badge tone={toneFor(e.mechanism)}>{e.mechanism}</Badge>
                    </span>
                    <span className="truncate font-medium text-slate-700">{e.action}</span>
                    <span className="truncate font-mono text-[12px] text-slate-600" title={e.detail}>
                      {e.detail}
                    </span>
                  </li>
                ))}
              </ol>
            )}
          </Card>
        </div>
      </div>
    </div>
  );
}
