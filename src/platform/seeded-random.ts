/**
 * A seeded generator of numbers in [0, 1) (mulberry32): the same sequence for the same seed, so a
 * bench's instruments and orders, or a test's kill moment, are the same in every run.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A 32-bit seed from a text (FNV-1a): the same text gives the same seed on every run and every
 * instance, so a seed can be named (`NSE:SBIN:2026-01-05`) instead of numbered.
 */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
