/**
 * Ports: time, ids and token counting reach the core as parameters so tests are deterministic.
 */

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface Ids {
  /** A fresh, sortable, url-safe id with an optional prefix. */
  next(prefix?: string): string;
}

export interface Tokenizer {
  /** Name of the encoding, e.g. "o200k_base (gpt-tokenizer)"; every figure is labelled with it. */
  readonly name: string;
  count(text: string): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can move. */
export function fixedClock(startMs: number): Clock & { set(ms: number): void; advance(ms: number): void } {
  let t = startMs;
  return {
    now: () => t,
    set: (ms: number) => {
      t = ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}

export const randomIds: Ids = {
  next(prefix = '') {
    const time = Date.now().toString(36).padStart(9, '0');
    // globalThis.crypto needs no module load, which keeps CLI start-up cheap.
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(6));
    return `${prefix}${time}${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  },
};

export function sequentialIds(prefix = 'id'): Ids {
  let n = 0;
  return { next: (p?: string) => `${p ?? prefix}${String(++n).padStart(4, '0')}` };
}

/** ISO-8601 UTC without milliseconds, as protocol.log shows it: 2026-06-11T12:07:27Z. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
