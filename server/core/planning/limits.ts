/**
 * The bounds every read obeys (architecture doc, "Storage guarantees"): how many bytes one file or
 * stdin may hold, how deep a JSON value may nest before a recursive walk sees it, and how long a
 * writer waits for a lock. They are process-wide because the readers that need them (a state file
 * read deep inside a store) do not carry the context; the composition root sets them once from the
 * environment (`storageLimitsFromEnv`), and every error that hits one names the variable to raise.
 */
import { HeimdallError } from '../errors.js';

export interface StorageLimits {
  /** Largest file (state, log, or a file named on the command line) or stdin read whole. */
  maxReadBytes: number;
  /** Deepest nesting of arrays and objects accepted in JSON input. */
  maxJsonDepth: number;
  /** How long a writer waits for a lock held by a live process before giving up. */
  lockTimeoutMs: number;
}

export const LIMIT_ENV = {
  maxReadBytes: 'HEIMDALL_MAX_READ_BYTES',
  maxJsonDepth: 'HEIMDALL_MAX_JSON_DEPTH',
  lockTimeoutMs: 'HEIMDALL_LOCK_TIMEOUT_MS',
} as const satisfies Record<keyof StorageLimits, string>;

export const DEFAULT_LIMITS: Readonly<StorageLimits> = Object.freeze({
  maxReadBytes: 128 * 1024 * 1024,
  // Real documents nest a dozen levels; 256 stays far below what a recursive walk can take.
  maxJsonDepth: 256,
  lockTimeoutMs: 30_000,
});

let current: StorageLimits = { ...DEFAULT_LIMITS };

/** The limits in force in this process. */
export function storageLimits(): Readonly<StorageLimits> {
  return current;
}

/** Replace some limits (the composition root from the environment; tests directly). Returns the previous ones. */
export function setStorageLimits(partial: Partial<StorageLimits>): StorageLimits {
  const previous = current;
  current = { ...current, ...partial };
  return previous;
}

/** Parse the limit variables that are set; a malformed one is a usage error naming it. */
export function storageLimitsFromEnv(env: Record<string, string | undefined>): Partial<StorageLimits> {
  const out: Partial<StorageLimits> = {};
  for (const key of Object.keys(LIMIT_ENV) as Array<keyof StorageLimits>) {
    const name = LIMIT_ENV[key];
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') continue;
    const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1) {
      throw new HeimdallError('usage', `${name} must be a positive whole number (default ${DEFAULT_LIMITS[key]}), got ${JSON.stringify(raw)}`);
    }
    out[key] = n;
  }
  return out;
}

/** "128 MiB" for messages. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** The error for input over the size limit, naming the variable that raises it. */
export function tooLarge(what: string, limit = current.maxReadBytes): HeimdallError {
  return new HeimdallError(
    'environment',
    `${what} is larger than the limit of ${formatBytes(limit)}; nothing was read. If it is meant to be this large, raise the limit with ${LIMIT_ENV.maxReadBytes}=<bytes>.`,
  );
}
