/**
 * Keys are data (issue 15, item 2): every built-in property name (Object.prototype's and
 * Function's own names, `__proto__`, `prototype`, ...) is fed to every core call that takes an id or
 * a key. Each call must either refuse the name with a clear error or treat it as an ordinary id; in
 * both cases every state file stays readable, a value read back is the value written (never an
 * inherited function), and nothing leaks into Object.prototype. fast-check then runs random
 * sequences of those calls on fresh trees.
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { Ctx } from '../context.js';
import { isHeimdallError } from '../errors.js';
import { deleteFact, getFact, readFacts, setFact } from '../blackboard/blackboard.js';
import { closure, readCapsule, writeCapsule } from '../capsules/capsules.js';
import { listClaims, makeClaim, readClaims, releaseClaim } from '../claims/claims.js';
import { announceMsg, dispatchMsg } from '../handshake/fixtures.test-helpers.js';
import { announce, dispatch, listPeers, readTasks } from '../handshake/handshake.js';
import { checkin, listAgents, send } from '../herd/checkin.js';
import { readTeam } from '../herd/team.js';
import { haidStatus, readRegistry, registerHaid, retireHaid, rootHaid } from '../identity/registry.js';
import { computeDelta, logTokens, readBaselines, readLedger, report, setBaseline } from '../ledger/ledger.js';
import { listRuns, readRun, recordRun } from '../ledger/runs.js';
import { tailLog } from '../log/protocolLog.js';
import { deleteSymbol, getSymbol, readSymbols, reverseSymbol, setSymbol } from '../symbols/symbols.js';
import { tmpCtx } from '../../testing/fixtures.js';
import { initPlanning } from './init.js';

/** Every name an object or function has before anyone stores anything. */
const BUILTIN_NAMES = [
  ...new Set([
    ...Object.getOwnPropertyNames(Object.prototype),
    ...Object.getOwnPropertyNames(Function.prototype),
    ...Object.getOwnPropertyNames(Function),
    ...Object.getOwnPropertyNames(Object),
    '__proto__',
    'prototype',
    'constructor',
    'toJSON',
    'then',
  ]),
].sort();

const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();
const PROTO_KEYS = Object.keys(Object.prototype);

let trees: Ctx[] = [];
afterEach(() => {
  for (const c of trees) fs.rmSync(c.root, { recursive: true, force: true });
  trees = [];
});

function tree(): Ctx {
  const ctx = tmpCtx();
  initPlanning(ctx);
  trees.push(ctx);
  return ctx;
}

const lower = (n: string) => n.toLowerCase();

/** A call with a name in it: returns normally, or refuses with a HeimdallError (anything else fails the test). */
type Op = (ctx: Ctx, name: string) => unknown;

const OPS: Record<string, Op> = {
  'resolve set/get/reverse/delete': (ctx, n) => {
    setSymbol(ctx, n, `v-${n}`);
    expect(getSymbol(ctx, n)).toBe(`v-${n}`);
    expect(reverseSymbol(ctx, `v-${n}`)).toEqual([n]);
    deleteSymbol(ctx, n);
  },
  'resolve get of an unset name': (ctx, n) => getSymbol(ctx, n),
  'resolve delete of an unset name': (ctx, n) => deleteSymbol(ctx, n),
  'blackboard set/get/delete': (ctx, n) => {
    setFact(ctx, n, `f-${n}`);
    expect(getFact(ctx, n)).toBe(`f-${n}`);
    deleteFact(ctx, n);
  },
  'blackboard get of an unset name': (ctx, n) => getFact(ctx, n),
  'ledger baseline and delta': (ctx, n) => {
    setBaseline(ctx, n, 100);
    expect(computeDelta(ctx, n).baseline).toBe(100);
  },
  'ledger delta of an unset role': (ctx, n) => computeDelta(ctx, n),
  'ledger log with the name as role, kind, msg and run': (ctx, n) => logTokens(ctx, { role: n, kind: n, msgId: n, run: n, tokens: 5 }),
  'capsule write/read/closure': (ctx, n) => {
    writeCapsule(ctx, n, { what: 'w', where: 'x' });
    expect(readCapsule(ctx, n).id).toBe(n);
    expect(closure(ctx, [n]).map((c) => c.id)).toEqual([n]);
  },
  'capsule read of an unset name': (ctx, n) => readCapsule(ctx, n),
  'haid retire of an unregistered name': (ctx, n) => retireHaid(ctx, n),
  'haid status of an unregistered name': (ctx, n) => expect(haidStatus(ctx, n)).toBe('unregistered'),
  'haid register and retire as a role': (ctx, n) => {
    const h = `${rootHaid(ctx)}/${lower(n)}`;
    registerHaid(ctx, h);
    expect(retireHaid(ctx, h).record.status).toBe('retired');
  },
  'claim and release as a role': (ctx, n) => {
    const h = `${rootHaid(ctx)}/${lower(n)}`;
    const made = makeClaim(ctx, { haid: h, surfaces: [`src/${n}/**`], task: n });
    expect(readClaims(ctx).get(made.claim.id)?.task).toBe(n);
    releaseClaim(ctx, { haid: h });
  },
  'claim release of an unknown holder': (ctx, n) => releaseClaim(ctx, { haid: n }),
  'herd check-in and send as an agent name and a team name': async (ctx, n) => {
    const a = `${lower(n)}.1@core`;
    const b = `mason.1@${lower(n)}`;
    await checkin(ctx, { as: a, status: 'working' });
    await checkin(ctx, { as: b, status: 'working' });
    send(ctx, { from: b, to: a, type: 'inform', body: n });
    expect((await checkin(ctx, { as: a, status: 'done' })).messages.map((m) => m.body)).toEqual([n]);
  },
  'a2a announce and dispatch with the name as agent, MCP server and task id': async (ctx, n) => {
    await announce(ctx, announceMsg(n, { health: { [n]: 'ok' } }));
    await dispatch(ctx, dispatchMsg(n, { required_mcp: [n], caps: ['terminal'] }), { to: n });
  },
  'a2a dispatch needing an MCP server the peer does not have': async (ctx, n) => {
    await announce(ctx, announceMsg('peer-a', { health: { other: 'ok' } }));
    const out = await dispatch(ctx, dispatchMsg(`t-${lower(n)}`, { required_mcp: [n], caps: ['terminal'] }), { to: 'peer-a' });
    expect(out.decision).toBe('blocked');
  },
  'run record': (ctx, n) => {
    recordRun(ctx, { run: n, kind: 'demo', workspace: 'w', tokenizer: 't', arms: {} });
    expect(readRun(ctx, n)?.run).toBe(n);
  },
};

/** Every reader of every state file still works, returns data (never a function), and Object.prototype is untouched. */
async function assertStateSound(ctx: Ctx): Promise<void> {
  const maps: Array<Record<string, unknown>> = [readSymbols(ctx), readFacts(ctx), readBaselines(ctx), Object.fromEntries(readClaims(ctx)), readRegistry(ctx).haids, readTasks(ctx)];
  for (const m of maps) for (const k of Object.keys(m)) expect(typeof m[k]).not.toBe('function');
  readLedger(ctx);
  report(ctx);
  listClaims(ctx);
  listAgents(ctx);
  readTeam(ctx);
  await listPeers(ctx);
  listRuns(ctx);
  tailLog(ctx);
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO_NAMES);
  expect(Object.keys(Object.prototype)).toEqual(PROTO_KEYS);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

async function attempt(op: Op, ctx: Ctx, name: string): Promise<'ok' | 'refused'> {
  try {
    await op(ctx, name);
    return 'ok';
  } catch (e) {
    if (isHeimdallError(e)) {
      expect(e.message.length).toBeGreaterThan(10);
      return 'refused';
    }
    throw e;
  }
}

describe('keys are data: every built-in property name through every id or key', () => {
  it(`${BUILTIN_NAMES.length} names x ${Object.keys(OPS).length} calls: each is refused clearly or behaves as an ordinary id, and state stays sound`, async () => {
    expect(BUILTIN_NAMES).toEqual(expect.arrayContaining(['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype', 'apply', 'bind']));
    const tally: Record<string, { ok: number; refused: number }> = {};
    const ctx = tree();
    for (const [label, op] of Object.entries(OPS)) {
      tally[label] = { ok: 0, refused: 0 };
      for (const name of BUILTIN_NAMES) {
        const r = await attempt(op, ctx, name);
        (tally[label] as { ok: number; refused: number })[r]++;
      }
      await assertStateSound(ctx);
    }
    // Names that fit the id patterns are accepted as ordinary ids; reads of unset names are not_found.
    expect(tally['resolve set/get/reverse/delete']?.ok).toBeGreaterThan(20);
    expect(tally['resolve get of an unset name']?.ok).toBe(0);
    expect(tally['haid retire of an unregistered name']?.ok).toBe(0);
    expect(tally['herd check-in and send as an agent name and a team name']?.ok).toBeGreaterThan(10);
    expect(tally['a2a announce and dispatch with the name as agent, MCP server and task id']?.ok).toBeGreaterThan(10);
  });

  it('the three names from the report behave: haid retire constructor, resolve toString, a herd agent named constructor', async () => {
    const ctx = tree();
    expect(() => retireHaid(ctx, 'constructor')).toThrow(/HAID constructor is not registered/);
    expect(() => getSymbol(ctx, 'toString')).toThrow(/no symbol toString/);
    await checkin(ctx, { as: 'constructor.1@core', status: 'here' });
    send(ctx, { from: 'mason.1@core', to: 'constructor.1@core', type: 'inform', body: 'hi' });
    expect(listAgents(ctx).agents.find((a) => a.address === 'constructor.1@core')?.tier).toBe('Execution');
    await assertStateSound(ctx);
  });

  it('a hand-written state file with a key that is not an id is refused by name on read', () => {
    const ctx = tree();
    fs.writeFileSync(ctx.paths.symbols, JSON.stringify({ version: '2.0.0', symbols: { __proto__: 'x', ok: 'y' } }).replace('"ok"', '"__proto__"'));
    expect(() => readSymbols(ctx)).toThrow(/symbols\.json: "symbols" has a key that is not a valid id: invalid symbol id "__proto__"/);
  });

  it('random sequences of calls with built-in names keep every state file sound (fast-check)', async () => {
    const opNames = Object.keys(OPS);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(...opNames), fc.constantFrom(...BUILTIN_NAMES)), { minLength: 1, maxLength: 12 }), async (steps) => {
        const ctx = tree();
        for (const [label, name] of steps) await attempt(OPS[label] as Op, ctx, name);
        await assertStateSound(ctx);
        fs.rmSync(ctx.root, { recursive: true, force: true });
        trees = trees.filter((t) => t !== ctx);
      }),
      { numRuns: 25, seed: 15 },
    );
  });
});
