/**
 * A capsule's `where:` names symbol ids (`F12,F15`) or paths (`README.md`). A reader wants the
 * paths: this reads the capsule and resolves each id against the symbol table, leaving what is not
 * a symbol as written.
 */
import type { Ctx } from '../context.js';
import { readSymbols } from '../symbols/symbols.js';
import { type Capsule, readCapsule } from './capsules.js';

export interface WhereItem {
  /** As written in the capsule. */
  text: string;
  /** The symbol's value when `text` is a symbol id of this tree. */
  value?: string;
}

/** Split `where:` on commas and whitespace and resolve each symbol id. */
export function resolveWhere(where: string | undefined, symbols: Record<string, string>): WhereItem[] {
  const out: WhereItem[] = [];
  for (const text of (where ?? '').split(/[\s,]+/)) {
    if (text === '') continue;
    const value = Object.hasOwn(symbols, text) ? symbols[text] : undefined;
    out.push(value === undefined ? { text } : { text, value });
  }
  return out;
}

/** One capsule with its `where:` resolved against the symbol table. */
export function readCapsuleResolved(ctx: Ctx, id: string): Capsule & { whereItems: WhereItem[] } {
  const capsule = readCapsule(ctx, id);
  return { ...capsule, whereItems: resolveWhere(capsule.where, readSymbols(ctx)) };
}
