/**
 * Mechanism 5, the blackboard: facts discovered once (ports, versions, env quirks) and read by key.
 * blackboard.json is `{"version": "2.0.0", "facts": {key: value}}`.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry } from '../log/protocolLog.js';
import { checkName, checkValue } from '../planning/ids.js';
import { hasKey, isString, readVersionedMap, updateVersionedMap } from '../planning/state.js';

const KEY = 'facts';
const EXPECTED = 'string values';
const keyCheck = (k: string) => checkName('blackboard key', k);

export function readFacts(ctx: Ctx): Record<string, string> {
  return readVersionedMap(ctx.paths.blackboard, KEY, isString, EXPECTED, { keyCheck });
}

export function setFact(ctx: Ctx, key: string, value: string): void {
  checkName('blackboard key', key);
  checkValue('blackboard', value);
  updateVersionedMap(
    ctx.paths.blackboard,
    KEY,
    isString,
    EXPECTED,
    (m) => {
      m[key] = value;
    },
    { keyCheck, audit: () => auditEntry(ctx, 'blackboard', 'set', `${key}=${value}`) },
  );
}

export function getFact(ctx: Ctx, key: string): string {
  checkName('blackboard key', key);
  const v = readFacts(ctx)[key];
  if (v === undefined) throw new HeimdallError('not_found', `no blackboard fact ${key}`);
  return v;
}

export function deleteFact(ctx: Ctx, key: string): void {
  checkName('blackboard key', key);
  updateVersionedMap(
    ctx.paths.blackboard,
    KEY,
    isString,
    EXPECTED,
    (m) => {
      if (!hasKey(m, key)) throw new HeimdallError('not_found', `no blackboard fact ${key}`);
      delete m[key];
    },
    { keyCheck, audit: () => auditEntry(ctx, 'blackboard', 'delete', key) },
  );
}
