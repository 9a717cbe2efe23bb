/**
 * The default tokenizer: gpt-tokenizer's o200k_base, loaded on first use only, because its rank
 * table costs tens of milliseconds to load and most CLI calls never count tokens.
 */
import { createRequire } from 'node:module';
import type { Tokenizer } from '../ports.js';

export const DEFAULT_TOKENIZER_NAME = 'o200k_base (gpt-tokenizer)';

let encoder: { countTokens(text: string): number } | undefined;

function load(): { countTokens(text: string): number } {
  if (!encoder) {
    const require = createRequire(import.meta.url);
    encoder = require('gpt-tokenizer/encoding/o200k_base') as { countTokens(text: string): number };
  }
  return encoder;
}

export const o200kTokenizer: Tokenizer = {
  name: DEFAULT_TOKENIZER_NAME,
  count(text: string): number {
    if (text.length === 0) return 0;
    return load().countTokens(text);
  },
};
