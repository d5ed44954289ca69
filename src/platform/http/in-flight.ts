/**
 * Requests in flight, for a graceful shutdown that lets them finish before the services under
 * them stop. `begin` in the first `onRequest` hook, `end` when the request's traffic row is
 * recorded (its answer written, or its client gone).
 */
export class InFlight {
  count = 0;
  private waiters: (() => void)[] = [];

  begin(): void {
    this.count++;
  }

  end(): void {
    this.count = Math.max(0, this.count - 1);
    if (this.count === 0) for (const w of this.waiters.splice(0)) w();
  }

  /** True once no request is in flight; false when `ms` passed first. */
  drained(ms: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
