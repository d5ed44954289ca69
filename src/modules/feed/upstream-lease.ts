/**
 * Who holds the upstream among the instances of one install (docs/rules/market-data.md#one-upstream):
 * a Redis key taken with `SET NX PX` and renewed by its holder every {@link LEASE_RENEW_MS}; a holder
 * that dies (kill -9, a lost network) stops renewing and the key expires within
 * {@link LEASE_TTL_MS}, when the next instance's attempt takes it. Renewal and release only touch a
 * key that still names this instance (a Lua check-and-act), so a holder that paused past its TTL
 * cannot extend or drop another's lease.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export const LEASE_TTL_MS = 4_000;
export const LEASE_RENEW_MS = 1_000;

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export interface UpstreamLeaseOptions {
  redis: Redis;
  key: string;
  /** This instance's name (`INSTANCE_ID` and a per-process suffix: two processes never share it). */
  holder: string;
  onGain(): void;
  onLose(): void;
  logger: Logger;
  ttlMs?: number;
  renewMs?: number;
}

export class UpstreamLease {
  private holding = false;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(private readonly opts: UpstreamLeaseOptions) {}

  get held(): boolean {
    return this.holding;
  }

  start(): void {
    void this.beat();
    this.timer ??= setInterval(() => void this.beat(), this.opts.renewMs ?? LEASE_RENEW_MS);
    this.timer.unref();
  }

  /** Stops renewing and lets the key go (another instance takes it on its next attempt). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (!this.holding) return;
    this.holding = false;
    await this.opts.redis.eval(RELEASE, 1, this.opts.key, this.opts.holder).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const ttl = String(this.opts.ttlMs ?? LEASE_TTL_MS);
    try {
      if (this.holding) {
        const kept = await this.opts.redis.eval(RENEW, 1, this.opts.key, this.opts.holder, ttl);
        if (kept !== 1) this.lose('the lease expired before it was renewed');
      } else {
        const got = await this.opts.redis.set(this.opts.key, this.opts.holder, 'PX', Number(ttl), 'NX');
        if (got === 'OK') {
          this.holding = true;
          this.opts.logger.info({ holder: this.opts.holder }, 'feed: this instance holds the upstream');
          this.opts.onGain();
        }
      }
    } catch (err) {
      // Redis away: a holder cannot prove it still holds; it stops serving the others' wants.
      if (this.holding) this.lose((err as Error).message);
    } finally {
      this.busy = false;
    }
  }

  private lose(why: string): void {
    this.holding = false;
    this.opts.logger.warn(
      { holder: this.opts.holder, why },
      'feed: this instance no longer holds the upstream',
    );
    this.opts.onLose();
  }
}
