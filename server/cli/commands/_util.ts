/** Shared output helpers for commands: one JSON or text rendering per result. */
import type { Io } from '../io.js';

export function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value));
}

/** `key<TAB>value` lines, as the spec's `list` commands print them. */
export function printTable(io: Io, map: Record<string, string>): void {
  for (const k of Object.keys(map).sort()) io.out(`${k}\t${map[k]}`);
}
