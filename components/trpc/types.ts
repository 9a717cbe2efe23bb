/**
 * The data types of Studio's components, taken from the router (as create-t3-app does): what a
 * component renders is exactly what the procedure returns over the wire, and a component never
 * reaches into the core's files for a type (.dependency-cruiser.cjs, `client-types-from-router`).
 */
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/trpc/root';

export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type RouterInputs = inferRouterInputs<AppRouter>;

export type LogPage = RouterOutputs['log']['page'];
export type LogEntry = LogPage['entries'][number];
export type LogRef = LogEntry['refs'][number];
export type LogFacets = RouterOutputs['log']['facets'];
export type LogFilter = Omit<NonNullable<RouterInputs['log']['page']>, 'upTo' | 'offset' | 'limit'>;
export type LedgerReport = RouterOutputs['ledger']['report'];
export type LedgerRead = RouterOutputs['ledger']['entries'];
export type LedgerEntry = LedgerRead['entries'][number];
export type ClaimList = RouterOutputs['claims']['list'];
export type ClaimView = ClaimList['claims'][number];
export type ClaimStatus = ClaimView['status'];
export type Decision = RouterOutputs['claims']['decisions'][number];
export type AgentList = RouterOutputs['agents']['list'];
export type HeartbeatStatus = AgentList['agents'][number]['heartbeat'];
export type CapsuleNode = RouterOutputs['capsules']['graph'][number];
export type CapsuleDetail = RouterOutputs['capsules']['get'];
export type WireOverview = RouterOutputs['streams']['overview'];
export type PeerView = RouterOutputs['peers']['list'][number];
export type TaskRecord = RouterOutputs['peers']['tasks'][number];
export type BoardAgent = AgentList['agents'][number];
export type BoardClaim = BoardAgent['claims'][number];
export type OperatorView = AgentList['operator'];
export type ClaimBoard = RouterOutputs['claims']['board'];
export type ClaimRow = ClaimBoard['claims'][number];
export type ClaimFilter = ClaimBoard['filter'];
