/** The pure rules of watch lists: names (docs/rules/watchlists.md#watchlist-names) and reorders (#watchlist-order). */
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../platform/errors.js';
import { listName, permutationFault } from './watchlists.service.js';

const fieldOf = (fn: () => unknown): Record<string, string[]> | undefined => {
  try {
    fn();
  } catch (err) {
    if (isAppError(err) && err.statusCode === 400) return err.fields;
    throw err;
  }
  throw new Error('no error thrown');
};

describe('list names', () => {
  it('are trimmed and NFC-normalised', () => {
    expect(listName('  Banks \n')).toBe('Banks');
    expect(listName('Cafe\u0301')).toBe('Caf\u00e9');
  });

  it('count characters, not UTF-16 units: 40 emoji pass, 41 do not', () => {
    expect(listName('📈'.repeat(40))).toBe('📈'.repeat(40));
    expect(fieldOf(() => listName('📈'.repeat(41)))).toEqual({ name: ['must be at most 40 characters'] });
  });

  it('refuse blank and unprintable names, naming the field', () => {
    expect(fieldOf(() => listName('   '))).toEqual({ name: ['must not be blank'] });
    for (const bad of ['a\u0000b', 'a\tb', 'a\u202Eb', 'a\u200Bb', 'a\uD800b', 'a\u2028b', 'a\uE000b'])
      expect(fieldOf(() => listName(bad))).toEqual({ name: ['must contain only printable characters'] });
  });
});

describe('reorders', () => {
  it('accept exactly a permutation', () => {
    expect(permutationFault([1, 2, 3], [3, 1, 2])).toBeUndefined();
    expect(permutationFault([], [])).toBeUndefined();
  });

  it('name what is missing, unknown and repeated', () => {
    expect(permutationFault([1, 2, 3], [3, 3, 9])).toBe(
      "item_ids must name each of the list's 3 items exactly once (missing 1, 2; not in this list 9; repeated 3)",
    );
    expect(permutationFault([], [1])).toMatch(/not in this list 1/);
  });

  it('cut long lists of ids short', () => {
    const ids = Array.from({ length: 8 }, (_, i) => i + 1);
    expect(permutationFault(ids, [])).toMatch(/missing 1, 2, 3, 4, 5, … \(8\)/);
  });
});
