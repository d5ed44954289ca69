/**
 * Records buffered column by column: each numeric field in a `Float64Array`, each other field
 * (strings, mostly constants or values the request already holds) in an array of references. A
 * buffered record is then no object of its own.
 *
 * Why: the buffers that hold one record per request until a timer writes them (the traffic log,
 * order latency) keep ~100 ms of records alive. At thousands of requests a second every
 * young-generation GC finds them alive, copies them and, at the next one, promotes them: the GC's
 * pause, which holds every request in flight, grows with them (bench/README.md, "The hot paths
 * against their targets"). Numbers in typed arrays are not objects to copy.
 *
 * The columns start small and double, up to `max` rows. Rows are addressed by index; a ring
 * buffer passes its head to {@link grow}, which lays the rows out from index 0 again.
 */
export class Columns<N extends string, R extends Record<string, unknown>> {
  private numbers: Record<N, Float64Array>;
  private refs: { [K in keyof R]: R[K][] };
  private cap: number;

  constructor(
    private readonly numberNames: readonly N[],
    private readonly refNames: readonly (keyof R & string)[],
    readonly max: number,
    initial = 256,
  ) {
    this.cap = Math.max(1, Math.min(max, initial));
    this.numbers = this.allocNumbers(this.cap);
    this.refs = this.allocRefs(this.cap);
  }

  /** Rows the columns hold now (grows up to {@link max}). */
  get capacity(): number {
    return this.cap;
  }

  /** The column of a numeric field (write and read by row index; re-read it after {@link grow}). */
  num(name: N): Float64Array {
    return this.numbers[name];
  }

  /** The column of a reference field (re-read it after {@link grow}). */
  ref<K extends keyof R>(name: K): R[K][] {
    return this.refs[name];
  }

  /**
   * Doubles the capacity (at most {@link max}); the `count` rows that started at `head` (wrapping
   * around the old capacity) are at 0 … count-1 afterwards. False when already at `max`.
   */
  grow(head = 0, count = this.cap): boolean {
    if (this.cap >= this.max) return false;
    const old = this.cap;
    const cap = Math.min(this.max, old * 2);
    const numbers = this.allocNumbers(cap);
    const refs = this.allocRefs(cap);
    for (let i = 0; i < count; i++) {
      const j = (head + i) % old;
      for (const n of this.numberNames) numbers[n][i] = this.numbers[n][j]!;
      for (const r of this.refNames) refs[r][i] = this.refs[r][j]!;
    }
    this.numbers = numbers;
    this.refs = refs;
    this.cap = cap;
    return true;
  }

  /** Drops the references of row `i` (its strings are garbage once written). */
  release(i: number): void {
    for (const r of this.refNames) (this.refs[r] as unknown[])[i] = undefined;
  }

  private allocNumbers(cap: number): Record<N, Float64Array> {
    return Object.fromEntries(this.numberNames.map((n) => [n, new Float64Array(cap)])) as Record<
      N,
      Float64Array
    >;
  }

  private allocRefs(cap: number): { [K in keyof R]: R[K][] } {
    return Object.fromEntries(this.refNames.map((r) => [r, new Array<unknown>(cap).fill(undefined)])) as {
      [K in keyof R]: R[K][];
    };
  }
}
