/**
 * Mechanism 2, the symbol table: short ids for recurring artifacts (paths, criteria, invariants),
 * human-readable both ways. symbols.json is `{"version": "2.0.0", "symbols": {id: value}}`.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry } from '../log/protocolLog.js';
import { checkName, checkValue } from '../planning/ids.js';
import { hasKey, isString, readVersionedMap, updateVersionedMap } from '../planning/state.js';

const KEY = 'symbols';
const EXPECTED = 'string values';
const keyCheck = (k: string) => checkName('symbol', k);

export function readSymbols(ctx: Ctx): Record<string, string> {
  return readVersionedMap(ctx.paths.symbols, KEY, isString, EXPECTED, { keyCheck });
}

/** Set (or overwrite) a symbol. Returns the previous value, if any. */
export function setSymbol(ctx: Ctx, id: string, value: string): { previous?: string } {
  checkName('symbol', id);
  checkValue('symbol', value);
  const previous = updateVersionedMap(
    ctx.paths.symbols,
    KEY,
    isString,
    EXPECTED,
    (m) => {
      const prev = m[id];
      m[id] = value;
      return prev;
    },
    { keyCheck, audit: () => auditEntry(ctx, 'resolve', 'set', `${id}=${value}`) },
  );
  return previous === undefined ? {} : { previous };
}

/** Set many symbols in one locked write (used by importers). Returns how many changed. */
export function setSymbols(ctx: Ctx, entries: Record<string, string>): number {
  for (const [id, v] of Object.entries(entries)) {
    checkName('symbol', id);
    checkValue('symbol', v);
  }
  const changed = updateVersionedMap(
    ctx.paths.symbols,
    KEY,
    isString,
    EXPECTED,
    (m) => {
      let n = 0;
      for (const [id, v] of Object.entries(entries)) {
        if (m[id] !== v) {
          m[id] = v;
          n++;
        }
      }
      return n;
    },
    { keyCheck, audit: (n) => (n > 0 ? auditEntry(ctx, 'resolve', 'set-many', `${n} symbols`) : undefined) },
  );
  return changed;
}

export function getSymbol(ctx: Ctx, id: string): string {
  checkName('symbol', id);
  const v = readSymbols(ctx)[id];
  if (v === undefined) throw new HeimdallError('not_found', `no symbol ${id} in ${ctx.paths.symbols}`);
  return v;
}

/** All ids whose value is exactly `value`, sorted. */
export function reverseSymbol(ctx: Ctx, value: string): string[] {
  const ids = Object.entries(readSymbols(ctx))
    .filter(([, v]) => v === value)
    .map(([k]) => k)
    .sort();
  if (ids.length === 0) throw new HeimdallError('not_found', `no symbol has the value ${JSON.stringify(value)}`);
  return ids;
}

export function deleteSymbol(ctx: Ctx, id: string): void {
  checkName('symbol', id);
  updateVersionedMap(
    ctx.paths.symbols,
    KEY,
    isString,
    EXPECTED,
    (m) => {
      if (!hasKey(m, id)) throw new HeimdallError('not_found', `no symbol ${id} in ${ctx.paths.symbols}`);
      delete m[id];
    },
    { keyCheck, audit: () => auditEntry(ctx, 'resolve', 'delete', id) },
  );
}
