/**
 * `heimdall gsd ...`: run a GSD phase through Heimdall. Parses arguments, makes one core call per
 * subcommand (server/core/phase), prints the result; the wire log and the read model come from the
 * composition root, one catch-up at a time per process.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import {
  HeimdallError,
  GSD_RESULT_STATUSES,
  checkWave,
  describeReason,
  gsdDone,
  gsdReady,
  gsdStart,
  requireTasks,
  withSharedFile,
  type PlanState,
  type ReadyReport,
  type GsdResultStatus,
} from '../../core/index.js';
import { bool, int, parseArgs, str, usageError } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall gsd ready [--phase N] [--as AGENT] [--json]          plans ready to start, wave by wave, with why the others wait',
  '       heimdall gsd check-wave N [--phase P] [--json]          pairs of wave N\'s plans whose write sets overlap (exit 1 if any)',
  '       heimdall gsd start PLAN-ID [--ttl-minutes N] [--as AGENT] [--json]   claim the plan\'s files, open its attempt on the wire, print its brief',
  '       heimdall gsd done PLAN-ID --status pass|fail|partial [--note TEXT] [--commit SHA] [--criteria 1,2] [--as AGENT] [--json]',
  '       heimdall gsd edit-shared FILE [--wait-seconds N] [--ttl-minutes N] [--as AGENT] -- CMD [ARGS...]',
  '  AGENT: a HAID, a herd address (mason.1@core) or a session (claude-code.2); without --as: $HEIMDALL_AGENT, else {root}/cli.',
  '  start again as the holder renews the claim and its wire lease (they expire together) and prints the brief again.',
  '  edit-shared holds a short claim on FILE while CMD runs (waiting up to --wait-seconds, default 60, for another agent),',
  '  releases it however CMD ends, and exits with CMD\'s status.',
].join('\n');

const STATUS_LABEL: Record<PlanState['status'], string> = { waiting: 'waiting', ready: 'READY', claimed: 'claimed', running: 'running', done: 'done', failed: 'failed' };

function holderText(s: PlanState): string {
  const h = s.holder;
  if (!h) return '';
  return ` by ${h.address ?? h.haid}${h.address ? ` [${h.haid}]` : ''} (claim ${h.claim}, until ${h.expires_at})`;
}

function printReady(io: Io, r: ReadyReport): void {
  for (const p of r.phases) {
    const plans = p.waves.flatMap((w) => w.plans);
    const n = (st: PlanState['status']) => plans.filter((x) => x.status === st).length;
    const parts = (['done', 'running', 'claimed', 'ready', 'waiting', 'failed'] as const).filter((st) => n(st)).map((st) => `${n(st)} ${st}`);
    io.out(`phase ${p.phase}: ${plans.length} plan${plans.length === 1 ? '' : 's'} (${parts.join(', ')})`);
    for (const w of p.waves) {
      io.out(`  wave ${w.wave}`);
      for (const s of w.plans) {
        const extra = [
          s.abandoned ? `attempt ${s.abandoned.attempt} by ${s.abandoned.by} abandoned${s.abandoned.lease_expired_at ? ` (lease ran out at ${s.abandoned.lease_expired_at})` : ''}` : '',
          s.last_result && s.status !== 'done' ? `last result: ${s.last_result.status} (attempt ${s.last_result.attempt})` : '',
        ].filter(Boolean);
        const title = s.title && s.title.length > 72 ? `${s.title.slice(0, 71)}…` : s.title;
        io.out(`    ${s.id.padEnd(10)} ${STATUS_LABEL[s.status].padEnd(8)}${holderText(s)}${title ? `  ${title}` : ''}`);
        for (const reason of s.reasons) io.out(`               - ${describeReason(reason)}`);
        for (const x of extra) io.out(`               - ${x}`);
      }
    }
  }
  io.out(r.complete ? 'every plan is done' : `ready: ${r.ready.length ? r.ready.join(', ') : 'none now'}${r.agent ? ` (for ${r.agent.address ?? r.agent.haid})` : ''}`);
}

function parseCriteria(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',').map((x) => x.trim()).filter(Boolean);
  if (parts.length === 0 || parts.some((x) => !/^\d+$/.test(x))) throw usageError(USAGE, `--criteria takes acceptance criteria numbers separated by commas (e.g. 1,2,4), got ${JSON.stringify(text)}`);
  return parts.map(Number);
}

/** Run CMD with the terminal's stdio; resolve with its exit status (128 + signal number when a signal ended it). */
function runCommand(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: 'inherit' });
    const forward = (sig: NodeJS.Signals) => () => {
      child.kill(sig);
    };
    const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => [sig, forward(sig)] as const);
    for (const [sig, h] of handlers) process.on(sig, h);
    const done = () => {
      for (const [sig, h] of handlers) process.off(sig, h);
    };
    child.on('error', (e) => {
      done();
      reject(new HeimdallError('usage', `cannot run ${JSON.stringify(cmd)}: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
    });
    child.on('close', (code, signal) => {
      done();
      resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1));
    });
  });
}

export const command: Command = {
  summary: 'run a GSD phase: ready | check-wave | start | done | edit-shared',
  async run(argv, { io, ctx, prog, runtime, caller }) {
    // edit-shared passes everything after `--` to its command untouched.
    const dash = argv.indexOf('--');
    const own = dash === -1 ? argv : argv.slice(0, dash);
    const rest = dash === -1 ? [] : argv.slice(dash + 1);
    const p = parseArgs(own, {
      usage: USAGE,
      flags: { json: 'boolean', phase: 'string', as: 'string', haid: 'string', 'ttl-minutes': 'int', status: 'string', note: 'string', commit: 'string', criteria: 'string', 'wait-seconds': 'int' },
      positionals: [1, 2],
    });
    const [sub, arg] = p.positionals;
    const json = bool(p, 'json');
    const only = (allowed: string[]) => {
      for (const f of Object.keys(p.flags)) if (!allowed.includes(f)) throw usageError(USAGE, `--${f} does not apply to gsd ${sub}`);
    };
    const who = () => {
      // Before the caller is resolved (which may register the tree's root identity): a tree that
      // was never imported is refused with nothing written.
      if (sub !== 'edit-shared') requireTasks(ctx());
      const a = str(p, 'as');
      const h = str(p, 'haid');
      if (a !== undefined && h !== undefined && a !== h) throw usageError(USAGE, '--as and --haid name different agents; give one');
      return caller(a ?? h, a !== undefined ? '--as' : '--haid');
    };
    if (sub !== 'edit-shared' && dash !== -1) throw usageError(USAGE, `"--" only separates the command of gsd edit-shared`);
    switch (sub) {
      case 'ready': {
        only(['json', 'phase', 'as', 'haid']);
        if (arg !== undefined) throw usageError(USAGE, `unexpected argument ${JSON.stringify(arg)}`);
        const { ctx: c, identity } = await who();
        const r = await runtime.exclusive((w) => gsdReady(c, w, { haid: identity.haid, phase: str(p, 'phase') }));
        if (json) printJson(io, r);
        else printReady(io, r);
        return 0;
      }
      case 'check-wave': {
        only(['json', 'phase']);
        if (arg === undefined || !/^\d+$/.test(arg)) throw usageError(USAGE, `check-wave needs the wave number (e.g. heimdall gsd check-wave 2), got ${JSON.stringify(arg ?? '')}`);
        const phase = str(p, 'phase');
        const r = phase !== undefined ? await checkWave(ctx(), undefined, { wave: Number(arg), phase }) : await runtime.exclusive((w) => checkWave(ctx(), w, { wave: Number(arg) }));
        if (json) printJson(io, r);
        else if (r.ok) io.out(`phase ${r.phase}, wave ${r.wave}: ${r.plans.length} plan${r.plans.length === 1 ? '' : 's'} (${r.plans.map((x) => x.id).join(', ')}), no two write the same file`);
        else {
          io.out(`phase ${r.phase}, wave ${r.wave}: ${r.overlaps.length} overlapping pair${r.overlaps.length === 1 ? '' : 's'} of plans`);
          for (const o of r.overlaps) io.out(`  ${o.plans[0]} and ${o.plans[1]} both write ${o.files.map(([a, b]) => (a === b ? a : `${a} ~ ${b}`)).join(', ')}`);
        }
        return r.ok ? 0 : 1;
      }
      case 'start': {
        only(['json', 'as', 'haid', 'ttl-minutes']);
        if (arg === undefined) throw usageError(USAGE, 'start needs a PLAN-ID (e.g. heimdall gsd start 01-02)');
        const { ctx: c, identity } = await who();
        const r = await runtime.exclusive((w) => gsdStart(c, w, { haid: identity.haid, plan: arg, ttlMinutes: int(p, 'ttl-minutes') }));
        if (json) {
          printJson(io, r);
          return 0;
        }
        const b = r.brief;
        io.out(b.text.trimEnd());
        if (b.reads.length) io.out(`# the executor must also read ${b.reads.length} file${b.reads.length === 1 ? '' : 's'} (${b.read_tokens} tokens): ${b.reads.map((x) => x.path).join(', ')}`);
        io.out(
          `# ${r.resumed ? 'resumed' : 'started'} ${r.plan} attempt ${r.attempt} as ${r.agent.address ?? r.agent.haid}${r.agent.address ? ` [${r.agent.haid}]` : ''}; claim ${r.claim.id} on ${r.claim.surfaces.length} surface${r.claim.surfaces.length === 1 ? '' : 's'} until ${r.lease_expires_at} (the wire lease ends then too)`,
        );
        io.out(`# ${b.tokens} tokens sent, ${b.total_tokens} counted with reads (${b.tokenizer}); ledger ${r.ledger.msg_id}`);
        io.out(`# when finished: heimdall gsd done ${r.plan} --status pass|fail|partial`);
        return 0;
      }
      case 'done': {
        only(['json', 'as', 'haid', 'status', 'note', 'commit', 'criteria']);
        if (arg === undefined) throw usageError(USAGE, 'done needs a PLAN-ID (e.g. heimdall gsd done 01-02 --status pass)');
        const status = str(p, 'status');
        if (status === undefined || !(GSD_RESULT_STATUSES as readonly string[]).includes(status)) {
          throw usageError(USAGE, `--status must be one of ${GSD_RESULT_STATUSES.join(', ')}${status === undefined ? '' : `, got ${JSON.stringify(status)}`}`);
        }
        const criteria = parseCriteria(str(p, 'criteria'));
        const { ctx: c, identity } = await who();
        const r = await runtime.exclusive((w) =>
          gsdDone(c, w, { haid: identity.haid, plan: arg, status: status as GsdResultStatus, note: str(p, 'note'), commit: str(p, 'commit'), criteria }),
        );
        if (json) {
          printJson(io, r);
          return 0;
        }
        io.out(
          `${r.plan} attempt ${r.attempt}: ${r.status}${r.recovered ? ' (finishing an interrupted done)' : ''}; ${r.event ?? 'no new wire event'}; released ${r.released.join(', ') || 'nothing'}`,
        );
        io.out(`  result ${r.result_file} (${r.ledger.tokens} tokens on the ledger in ${r.ledger.lines} line${r.ledger.lines === 1 ? '' : 's'})`);
        if (r.capsule) io.out(`  capsule ${r.capsule.id} from ${r.summary_file} (${r.capsule.tokens} tokens)`);
        else if (r.capsule_skipped) io.out(`  no capsule: ${r.capsule_skipped}`);
        else if (!r.summary_file) io.out('  no SUMMARY.md yet, so no capsule');
        return 0;
      }
      case 'edit-shared': {
        only(['as', 'haid', 'ttl-minutes', 'wait-seconds']);
        if (arg === undefined) throw usageError(USAGE, 'edit-shared needs the FILE (e.g. heimdall gsd edit-shared .planning/STATE.md -- ./update-state.sh)');
        if (dash === -1 || rest.length === 0) throw usageError(USAGE, 'give the command after "--" (e.g. heimdall gsd edit-shared .planning/STATE.md -- ./update-state.sh)');
        const wait = int(p, 'wait-seconds');
        if (wait !== undefined && wait < 0) throw usageError(USAGE, '--wait-seconds must be 0 or more');
        const { ctx: c, identity } = await who();
        const file = path.resolve(runtime.tree.cwd, arg);
        const [cmd, ...args] = rest as [string, ...string[]];
        const r = await withSharedFile(c, { haid: identity.haid, file, ttlMinutes: int(p, 'ttl-minutes'), waitMs: wait === undefined ? undefined : wait * 1000 }, () => runCommand(cmd, args), {
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
          onWait: (cs) => {
            for (const x of cs) io.err(`${prog}: waiting for ${x.overlaps[0]?.[0] ?? arg}: ${x.holder} holds it for task ${x.task} (claim ${x.id}, until ${x.expires_at})`);
          },
        });
        return r.value;
      }
      default:
        throw usageError(USAGE, `unknown subcommand ${JSON.stringify(sub)} (ready, check-wave, start, done, edit-shared)`);
    }
  },
};
