/**
 * The trigram index under the instrument index's substring search: every row's search key cut
 * into trigrams of 6-bit characters (2^18 codes, none spanning a field separator), kept as two
 * typed arrays (offsets and postings: about 4 bytes per distinct trigram of a row, no Map of
 * strings), and a query's candidates as the intersection of its rarest posting lists. Apart from
 * instrument-index.ts because it knows nothing of instruments: keys in, row numbers out; the
 * index keeps the rows, their order and the lookups, and verifies each candidate.
 */
import type { SearchTerm } from './search-rules.js';

/** A generation's posting lists: the rows of trigram `c` are `postings[offsets[c], offsets[c + 1])`. */
export interface TrigramPostings {
  offsets: Uint32Array;
  postings: Uint32Array;
}

/** Posting lists intersected at most per query, and the candidate count below which it stops. */
const MAX_INTERSECTIONS = 6;
const INTERSECT_BELOW = 64;

/** 6 bits per character, 3 characters: 2^18 trigram codes. */
const TRIGRAMS = 1 << 18;
const CHAR_CODES = (() => {
  const m = new Int8Array(128).fill(63);
  m[0x1f] = -1; // the key separator: no trigram spans two fields
  for (let c = 0; c < 26; c++) m[65 + c] = 1 + c;
  for (let d = 0; d < 10; d++) m[48 + d] = 27 + d;
  " -&._|/()+,:'".split('').forEach((ch, n) => (m[ch.charCodeAt(0)] = 37 + n));
  return m;
})();

function charCode(c: number): number {
  return c < 128 ? CHAR_CODES[c]! : 62;
}

/** Code of the trigram at `i`, or -1 if it spans a field separator. */
function trigramAt(s: string, i: number): number {
  const a = charCode(s.charCodeAt(i));
  const b = charCode(s.charCodeAt(i + 1));
  const c = charCode(s.charCodeAt(i + 2));
  if (a < 0 || b < 0 || c < 0) return -1;
  return (a << 12) | (b << 6) | c;
}

/** The posting lists of `rows`' keys; row numbers are positions in `rows`, ascending in each list. */
export function buildPostings(rows: readonly { key: string }[]): TrigramPostings {
  // Two passes over the keys: count each row's distinct trigrams, then fill.
  const counts = new Uint32Array(TRIGRAMS + 1);
  const last = new Int32Array(TRIGRAMS).fill(-1);
  for (let row = 0; row < rows.length; row++) {
    const key = rows[row]!.key;
    for (let i = 0, code = 0, run = 0; i < key.length; i++) {
      const c = charCode(key.charCodeAt(i));
      if (c < 0) {
        run = 0; // a field separator: no trigram spans two fields
        continue;
      }
      code = ((code << 6) | c) & (TRIGRAMS - 1);
      if (++run >= 3 && last[code] !== row) {
        last[code] = row;
        counts[code + 1]!++;
      }
    }
  }
  for (let c = 0; c < TRIGRAMS; c++) counts[c + 1]! += counts[c]!;
  const postings = new Uint32Array(counts[TRIGRAMS]!);
  const fill = counts.slice(0, TRIGRAMS);
  last.fill(-1);
  for (let row = 0; row < rows.length; row++) {
    const key = rows[row]!.key;
    for (let i = 0, code = 0, run = 0; i < key.length; i++) {
      const c = charCode(key.charCodeAt(i));
      if (c < 0) {
        run = 0;
        continue;
      }
      code = ((code << 6) | c) & (TRIGRAMS - 1);
      if (++run >= 3 && last[code] !== row) {
        last[code] = row;
        postings[fill[code]!++] = row;
      }
    }
  }
  return { offsets: counts, postings };
}

/**
 * The rows that may hold every term's text: the intersection of the posting lists of the terms'
 * trigrams, rarest first (a superset: the caller verifies each), in row order; null when no
 * term has a trigram (every row is a candidate).
 */
export function trigramCandidates(p: TrigramPostings, terms: SearchTerm[]): Uint32Array | number[] | null {
  const ranges: { from: number; to: number }[] = [];
  for (const term of terms) {
    for (let i = 0; i + 2 < term.text.length; i++) {
      const code = trigramAt(term.text, i);
      if (code >= 0) ranges.push({ from: p.offsets[code]!, to: p.offsets[code + 1]! });
    }
  }
  if (ranges.length === 0) return null;
  ranges.sort((a, b) => a.to - a.from - (b.to - b.from));
  const first = ranges[0]!;
  let candidates: Uint32Array | number[] = p.postings.subarray(first.from, first.to);
  for (let k = 1; k < ranges.length && k < MAX_INTERSECTIONS && candidates.length > INTERSECT_BELOW; k++) {
    const r = ranges[k]!;
    candidates = intersect(candidates, p.postings, r.from, r.to);
  }
  return candidates;
}

/** Entries of the sorted `list` that are also in the sorted range `postings[from, to)`. */
function intersect(list: Uint32Array | number[], postings: Uint32Array, from: number, to: number): number[] {
  const out: number[] = [];
  let lo = from;
  for (const x of list) {
    // Gallop then binary-search: `list` is much shorter than the range.
    let step = 1;
    let hi = lo;
    while (hi < to && postings[hi]! < x) {
      lo = hi + 1;
      hi += step;
      step *= 2;
    }
    if (hi > to) hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (postings[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= to) break;
    if (postings[lo] === x) out.push(x);
  }
  return out;
}
