/**
 * Versioned whole-file JSON state: `{ "version": "2.0.0", <key>: { ... } }`. Reads validate the
 * version and shape; updates run read-modify-write under the file lock and rename atomically.
 */
import { HeimdallError } from '../errors.js';
import { atomicWrite, readJsonFile, withLock } from './fsx.js';
import { PROTOCOL_VERSION, checkStateVersion } from './version.js';

export type StringMap = Record<string, string>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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
): Record<string, V> {
  const data = readJsonFile(file);
  if (data === undefined) return {};
  if (!isPlainObject(data)) {
    throw new HeimdallError('environment', `${file} must hold a JSON object {"version": "${PROTOCOL_VERSION}", "${key}": {...}}; the file was left untouched`);
  }
  checkStateVersion(file, data.version);
  const map = data[key];
  if (map === undefined) return {};
  if (!isPlainObject(map)) {
    throw new HeimdallError('environment', `${file}: "${key}" must be an object of ${expected}; the file was left untouched`);
  }
  for (const [k, v] of Object.entries(map)) {
    if (!valueCheck(v)) {
      throw new HeimdallError('environment', `${file}: "${key}.${k}" must be ${expected}, got ${JSON.stringify(v)}; the file was left untouched`);
    }
  }
  return map as Record<string, V>;
}

export function writeVersionedMap<V>(file: string, key: string, map: Record<string, V>): void {
  const sorted: Record<string, V> = {};
  for (const k of Object.keys(map).sort()) sorted[k] = map[k] as V;
  atomicWrite(file, `${JSON.stringify({ version: PROTOCOL_VERSION, [key]: sorted }, null, 2)}\n`);
}

/** Read-modify-write under the file's lock. `mutate` may throw to abort without writing. */
export function updateVersionedMap<V, R>(
  file: string,
  key: string,
  valueCheck: (v: unknown) => v is V,
  expected: string,
  mutate: (map: Record<string, V>) => R,
): R {
  return withLock(file, () => {
    const map = readVersionedMap(file, key, valueCheck, expected);
    const result = mutate(map);
    writeVersionedMap(file, key, map);
    return result;
  });
}

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isNonNegInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
