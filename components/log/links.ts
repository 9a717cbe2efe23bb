/**
 * Where each kind of object a log line names lives in Studio, and the log filtered to one object:
 * the two directions of the audit trail (a line links to its object, an object page links back to
 * its lines).
 */
import type { LogRef } from '@/components/trpc/types';

const enc = encodeURIComponent;

export const REF_LABEL: Record<LogRef['kind'], string> = {
  symbol: 'symbol',
  fact: 'fact',
  capsule: 'capsule',
  claim: 'claim',
  agent: 'agent',
  stream: 'stream',
  run: 'ledger run',
  peer: 'peer',
};

/** The page that shows the object, focused on it. */
export function objectHref(r: LogRef): string {
  switch (r.kind) {
    case 'symbol':
      return `/symbols?focus=${enc(r.id)}`;
    case 'fact':
      return `/blackboard?focus=${enc(r.id)}`;
    case 'capsule':
      return `/capsules?id=${enc(r.id)}`;
    case 'claim':
      return `/claims?haid=${enc(r.id)}`;
    case 'agent':
      return `/agents?agent=${enc(r.id)}`;
    case 'stream':
      return `/streams?stream=${enc(r.id)}`;
    case 'run':
      return `/ledger?run=${enc(r.id)}`;
    case 'peer':
      return `/peers?peer=${enc(r.id)}`;
  }
}

/** The log, filtered to the lines that name the object. */
export function logHref(kind: LogRef['kind'], id: string): string {
  return `/log?object=${enc(`${kind}:${id}`)}`;
}

/** The log, filtered to the lines one author wrote. */
export function authorLogHref(author: string): string {
  return `/log?author=${enc(author)}`;
}
