/**
 * Versioned whole-file JSON state: `{ "version": "2.0.0", <key>: { ... } }`. Reads validate the
 * version, the shape and every key; updates run read-modify-write under the file lock and rename
 * atomically, committing their protocol.log line with the change when given one.
 *
 * Keys are data, never object properties: every map read or built here has no prototype, so an id
 * such as `constructor` or `toString` is looked up, set and deleted like any other, and `__proto__`
 * can neither be inherited nor change a map's prototype.
 */
import { HeimdallError } from '../errors.js';
import { type Audit, atomicWrite, readJsonFile, withLock } from './fsx.js';
import { PROTOCOL_VERSION, checkStateVersion } from './version.js';

export type StringMap = Record<string, string>;

/** An empty map keyed by data (no prototype). */
export function dataMap<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** Copy entries into a map keyed by data. */
export function toDataMap<V>(entries: Iterable<[string, V]> | Record<string, V>): Record<string, V> {
  const out = dataMap<V>();
  const list = Symbol.iterator in Object(entries) ? (entries as Iterable<[string, V]>) : Object.entries(entries as Record<string, V>);
  for (const [k, v] of list) out[k] = v;
  return out;
}

/** Own-property test that works on maps with and without a prototype. */
export function hasKey(map: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(map, key);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface MapOptions {
  /** Checks one key (e.g. `(k) => checkName('symbol', k)`); a key it refuses makes the file unreadable by name. */
  keyCheck?: (key: string) => unknown;
}

/**
 * Read a versioned map file. `valueCheck` says what one value must be (for the error message).
 * Missing file: empty map.
 */
export function readVersionedMap<V>(
  file: string,
  key: string,
  valueCheck: (v: unknown) => v is V,
  expected: string,
  opts: MapOptions = {},
): Record<string, V> {
  const data = readJsonFile(file);
  if (data === undefined) return dataMap<V>();
  if (!isPlainObject(data)) {
    throw new HeimdallError('environment', `${file} must hold a JSON object {"version": "${PROTOCOL_VERSION}", "${key}": {...}}; the file was left untouched`);
  }
  checkStateVersion(file, data.version);
  const map = hasKey(data, key) ? data[key] : undefined;
  if (map === undefined) return dataMap<V>();
  if (!isPlainObject(map)) {
    throw new HeimdallError('environment', `${file}: "${key}" must be an object of ${expected}; the file was left untouched`);
  }
  const out = dataMap<V>();
  for (const [k, v] of Object.entries(map)) {
    if (opts.keyCheck) {
      try {
        opts.keyCheck(k);
      } catch (e) {
        throw new HeimdallError('environment', `${file}: "${key}" has a key that is not a valid id: ${(e as Error).message}; the file was left untouched`);
      }
    }
    if (!valueCheck(v)) {
      throw new HeimdallError('environment', `${file}: "${key}.${k}" must be ${expected}, got ${JSON.stringify(v)}; the file was left untouched`);
    }
    out[k] = v;
  }
  return out;
}

/** The text of a versioned map file, keys sorted. */
export function versionedMapText<V>(key: string, map: Record<string, V>): string {
  const sorted = dataMap<V>();
  for (const k of Object.keys(map).sort()) sorted[k] = map[k] as V;
  return `${JSON.stringify({ version: PROTOCOL_VERSION, [key]: sorted }, null, 2)}\n`;
}

/** Write a versioned map (sorted keys); with `audit`, its protocol.log line is committed with it (under the file's lock). */
export function writeVersionedMap<V>(file: string, key: string, map: Record<string, V>, audit?: Audit): void {
  atomicWrite(file, versionedMapText(key, map), audit);
}

export interface UpdateOptions<R> extends MapOptions {
  /** The protocol.log line for this change, given the mutation's result; committed with the change. */
  audit?: (result: R) => Audit | undefined;
}

/** Read-modify-write under the file's lock. `mutate` may throw to abort without writing. */
export function updateVersionedMap<V, R>(
  file: string,
  key: string,
  valueCheck: (v: unknown) => v is V,
  expected: string,
  mutate: (map: Record<string, V>) => R,
  opts: UpdateOptions<R> = {},
): R {
  return withLock(file, () => {
    const map = readVersionedMap(file, key, valueCheck, expected, opts);
    const result = mutate(map);
    writeVersionedMap(file, key, map, opts.audit?.(result));
    return result;
  });
}

export const isString = (v: unknown): v is string => typeof v === 'string';
/** A whole number that JSON and JavaScript both hold exactly (1e23 is refused). */
export const isNonNegInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
