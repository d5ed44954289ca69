import { describe, expect, it } from 'vitest';
import { Columns } from './columns.js';

type Refs = { name: string; note: string | null };
const make = (max: number, initial: number) =>
  new Columns<'a' | 'b', Refs>(['a', 'b'], ['name', 'note'], max, initial);

function put(c: Columns<'a' | 'b', Refs>, i: number, n: number): void {
  c.num('a')[i] = n;
  c.num('b')[i] = n / 2;
  c.ref('name')[i] = `row ${n}`;
  c.ref('note')[i] = n % 2 === 0 ? null : 'odd';
}

function row(c: Columns<'a' | 'b', Refs>, i: number) {
  return [c.num('a')[i], c.num('b')[i], c.ref('name')[i], c.ref('note')[i]];
}

describe('Columns', () => {
  it('keeps each row across doublings, up to its maximum', () => {
    const c = make(10, 2);
    expect(c.capacity).toBe(2);
    for (let i = 0; i < 10; i++) {
      if (i === c.capacity) expect(c.grow()).toBe(true);
      put(c, i, i + 1);
    }
    expect(c.capacity).toBe(10);
    expect(c.grow()).toBe(false);
    expect(Array.from({ length: 10 }, (_, i) => row(c, i))).toEqual(
      Array.from({ length: 10 }, (_, i) => [
        i + 1,
        (i + 1) / 2,
        `row ${i + 1}`,
        (i + 1) % 2 === 0 ? null : 'odd',
      ]),
    );
  });

  it('lays a wrapped ring out from index 0 when it grows', () => {
    const c = make(8, 4);
    // A ring of 4 whose oldest row is at index 2: rows 3, 4 at 2, 3 and rows 5, 6 wrapped to 0, 1.
    put(c, 2, 3);
    put(c, 3, 4);
    put(c, 0, 5);
    put(c, 1, 6);
    expect(c.grow(2, 4)).toBe(true);
    expect(c.capacity).toBe(8);
    expect([0, 1, 2, 3].map((i) => c.num('a')[i])).toEqual([3, 4, 5, 6]);
    expect([0, 1, 2, 3].map((i) => c.ref('name')[i])).toEqual(['row 3', 'row 4', 'row 5', 'row 6']);
    expect(c.ref('name')[4]).toBeUndefined();
    expect(c.num('a')[4]).toBe(0);
  });

  it('drops the references of a released row and keeps its numbers', () => {
    const c = make(4, 4);
    put(c, 1, 7);
    c.release(1);
    expect(row(c, 1)).toEqual([7, 3.5, undefined, undefined]);
  });

  it('never starts above its maximum', () => {
    expect(make(3, 256).capacity).toBe(3);
  });
});
