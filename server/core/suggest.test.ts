import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from './suggest.js';

const MECHANISMS = ['init', 'log', 'demo', 'validate', 'resolve', 'capsule', 'brief', 'blackboard', 'ledger', 'gate', 'import', 'bench', 'claim', 'haid', 'csp', 'herd', 'a2a', 'wire', 'setup', 'studio'];

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and a swap of neighbours as one edit each', () => {
    expect(editDistance('resolve', 'resolve')).toBe(0);
    expect(editDistance('reslove', 'resolve')).toBe(1); // swap
    expect(editDistance('resolv', 'resolve')).toBe(1); // deletion
    expect(editDistance('resolvee', 'resolve')).toBe(1); // insertion
    expect(editDistance('rasolve', 'resolve')).toBe(1); // substitution
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    // Plain Levenshtein would count the swap as two.
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('closest', () => {
  it('names what a typo meant', () => {
    expect(closest('reslove', MECHANISMS)).toBe('resolve');
    expect(closest('blackbord', MECHANISMS)).toBe('blackboard');
    expect(closest('cliam', MECHANISMS)).toBe('claim');
    expect(closest('Resolve', MECHANISMS)).toBe('resolve');
    expect(closest('lsit', ['set', 'list', 'delete'])).toBe('list');
    expect(closest('jsno', ['reverse', 'json'])).toBe('json');
  });

  it('takes a unique prefix of three characters or more', () => {
    expect(closest('blackb', MECHANISMS)).toBe('blackboard');
    expect(closest('stu', MECHANISMS)).toBe('studio');
    expect(closest('st', MECHANISMS)).toBeUndefined();
  });

  it('suggests nothing for a word that is no near miss, and nothing for a known word', () => {
    expect(closest('frobnicate', MECHANISMS)).toBeUndefined();
    expect(closest('xyz', MECHANISMS)).toBeUndefined();
    expect(closest('', MECHANISMS)).toBeUndefined();
    expect(closest('resolve', MECHANISMS)).toBeUndefined();
    // Two edits away from a three-letter name is a different word.
    expect(closest('ls', ['log'])).toBeUndefined();
  });

  it('formats the hint', () => {
    expect(didYouMean('jsno', ['json'], (k) => `--${k}`)).toBe(' (did you mean --json?)');
    expect(didYouMean('zzzz', ['json'])).toBe('');
  });
});
