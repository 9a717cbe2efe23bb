/**
 * The objects a protocol.log line names: the symbol a `resolve set` wrote, the capsules a hydration
 * emitted, the claim holder, the agent that checked in, the wire stream an event went to, the ledger
 * run a demo or bench recorded. Studio turns them into links, and the log can be filtered to the
 * lines that name one object (`object: "capsule:w2"`).
 *
 * The details are the free text each mechanism writes with `logAction`; this is the one place that
 * reads them back. A detail that does not have its mechanism's shape (a hand-written line) names
 * nothing rather than something wrong.
 */

export const LOG_REF_KINDS = ['symbol', 'fact', 'capsule', 'claim', 'agent', 'stream', 'run', 'peer'] as const;
export type LogRefKind = (typeof LOG_REF_KINDS)[number];

export interface LogRef {
  kind: LogRefKind;
  id: string;
}

interface LineFields {
  mechanism: string;
  action: string;
  detail: string;
}

/** Up to the first space (or the whole text). */
function firstWord(s: string): string {
  const i = s.indexOf(' ');
  return i === -1 ? s : s.slice(0, i);
}

function ids(list: string): string[] {
  return list.split(',').filter((s) => s !== '' && s !== '-');
}

function add(out: LogRef[], kind: LogRefKind, id: string | undefined): void {
  if (!id || /\s/.test(id) || id.length > 600) return;
  if (!out.some((r) => r.kind === kind && r.id === id)) out.push({ kind, id });
}

/** `run X: ...` or `start run X (...)`, as the demo and the GSD bench write them. */
function runOf(detail: string): string | undefined {
  return /^(?:start )?run (\S+?):?(?: |$)/.exec(detail)?.[1];
}

/** The objects one line names, in the order they appear. */
export function logRefs(e: LineFields): LogRef[] {
  const out: LogRef[] = [];
  const d = e.detail;
  switch (e.mechanism) {
    case 'resolve':
      if (e.action === 'set') add(out, 'symbol', d.slice(0, Math.max(0, d.indexOf('='))));
      else if (e.action === 'delete') add(out, 'symbol', d);
      break;
    case 'blackboard':
      if (e.action === 'set') add(out, 'fact', d.slice(0, Math.max(0, d.indexOf('='))));
      else if (e.action === 'delete') add(out, 'fact', d);
      break;
    case 'capsule':
      if (e.action === 'write') {
        add(out, 'capsule', firstWord(d));
        const deps = / depends=(\S+)/.exec(d)?.[1];
        for (const id of ids(deps ?? '')) add(out, 'capsule', id);
      } else if (e.action === 'hydrate') {
        const [asked = '', emitted = ''] = d.split(' -> ');
        for (const id of [...ids(asked), ...ids(emitted)]) add(out, 'capsule', id);
      }
      break;
    case 'brief': {
      const caps = /, capsules (\S+?),? \d+ tokens$/.exec(d)?.[1];
      for (const id of ids(caps ?? '')) add(out, 'capsule', id);
      break;
    }
    case 'claim':
      add(out, 'claim', firstWord(d));
      break;
    case 'herd':
      if (e.action === 'checkin') add(out, 'agent', firstWord(d));
      else if (e.action === 'send') {
        // `{id} {from} -> {to} {type}`: @everyone and @anyone are not agents.
        const m = /^\S+ (\S+) -> (\S+) /.exec(d);
        for (const a of m ? [m[1], m[2]] : []) if (a && !a.startsWith('@')) add(out, 'agent', a);
      }
      break;
    case 'wire':
      if (e.action === 'emit') {
        // `{topic}#{seq} {type} {stream_id}#{stream_seq} {wire_id}`; a batch line names no stream.
        const stream = d.split(' ')[2];
        const hash = stream?.lastIndexOf('#') ?? -1;
        if (stream && hash > 0) add(out, 'stream', stream.slice(0, hash));
      }
      break;
    case 'ledger':
      if (e.action === 'run') add(out, 'run', firstWord(d));
      break;
    case 'protocol':
      if (e.action === 'demo' || e.action === 'bench') add(out, 'run', runOf(d));
      break;
    case 'a2a':
      if (e.action === 'announce') add(out, 'peer', firstWord(d));
      break;
  }
  return out;
}

/** `kind:id`, the form the log's object filter and Studio's URLs use. */
export function refKey(r: LogRef): string {
  return `${r.kind}:${r.id}`;
}

/** Parse `kind:id`; undefined when the kind is unknown or the id empty. */
export function parseRefKey(key: string): LogRef | undefined {
  const i = key.indexOf(':');
  if (i <= 0) return undefined;
  const kind = key.slice(0, i) as LogRefKind;
  const id = key.slice(i + 1);
  if (!LOG_REF_KINDS.includes(kind) || id === '') return undefined;
  return { kind, id };
}
