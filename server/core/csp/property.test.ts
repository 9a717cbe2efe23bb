/**
 * Robustness: 10,000 random and mutated inputs. The parser must never throw, and its answer must be
 * one of two things: an error result whose every error is well formed (line in range, expected, got,
 * example), or a document that formats back to exactly the input (so nothing it accepts is read
 * loosely).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MUTATION_SEEDS, documentArb, mutationArb, wordSaladArb } from './fixtures/arbitraries.js';
import { formatCsp, formatUnknown } from './format.js';
import { INTERNAL_ERROR_MARK, parseCsp } from './parse.js';

interface Tally {
  refused: number;
  accepted: number;
}

function check(text: string, tally: Tally): void {
  let r: ReturnType<typeof parseCsp>;
  try {
    r = parseCsp(text);
  } catch (e) {
    throw new Error(`parseCsp threw on ${JSON.stringify(text)}: ${(e as Error).stack}`);
  }
  const lineCount = text.split('\n').length;
  if (!r.ok) {
    tally.refused++;
    expect(r.errors.length).toBeGreaterThan(0);
    for (const e of r.errors) {
      expect(Number.isInteger(e.line)).toBe(true);
      expect(e.line).toBeGreaterThanOrEqual(1);
      expect(e.line).toBeLessThanOrEqual(lineCount + 1);
      expect(typeof e.expected === 'string' && e.expected.length > 0).toBe(true);
      expect(typeof e.got === 'string' && e.got.length > 0).toBe(true);
      expect(typeof e.example === 'string' && e.example.length > 0).toBe(true);
      expect(e.got).not.toContain(INTERNAL_ERROR_MARK);
      // The example must itself be free of the problem shown in `got`... at least be different text.
      expect(e.example).not.toBe(e.got);
    }
    return;
  }
  tally.accepted++;
  const canonical = text.endsWith('\n') ? text : `${text}\n`;
  expect(formatCsp(r.message)).toBe(canonical);
}

describe('parser robustness (10,000 inputs)', () => {
  it('5,000 mutated seed and intent examples: never throws; refuses with good errors or accepts canonically', () => {
    const tally: Tally = { refused: 0, accepted: 0 };
    fc.assert(
      fc.property(fc.constantFrom(...MUTATION_SEEDS), fc.array(mutationArb, { minLength: 1, maxLength: 4 }), (seed, edits) => {
        check(edits.reduce((t, f) => f(t), seed), tally);
      }),
      { numRuns: 5000 },
    );
    expect(tally.refused + tally.accepted).toBe(5000);
    // Most damage must be caught; a few edits (dropping an optional line) leave a valid message.
    expect(tally.refused).toBeGreaterThan(3500);
  });

  it('3,000 random strings (any characters) and 2,000 CSP word salads: never throw, refused', () => {
    const tally: Tally = { refused: 0, accepted: 0 };
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.string({ maxLength: 300, unit: 'binary' }), fc.string({ maxLength: 300, unit: 'grapheme' })), (s) => check(s, tally)),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(wordSaladArb, (s) => check(s, tally)),
      { numRuns: 2000 },
    );
    expect(tally.refused + tally.accepted).toBe(5000);
    expect(tally.refused).toBeGreaterThanOrEqual(4950);
  });
});

describe('formatter and parser agree on generated documents', () => {
  it('every generated document formats to text that parses back to it (1,000 documents)', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        const r = formatUnknown(doc);
        if (!r.ok) throw new Error(`${JSON.stringify(doc)}\n${JSON.stringify(r.errors, null, 2)}`);
        // Canonical: formatting the parsed document gives the same text again.
        expect(formatCsp(r.message)).toBe(r.text);
      }),
      { numRuns: 1000 },
    );
  });
});
