/**
 * The accounts' daily equity (docs/rules/sandbox.md#daily-equity): on the day jobs' pass, at most
 * once every {@link EQUITY_EVERY_MS} per instance, every account's day as it is now is written to
 * its row of the IST day (an upsert: the day's last pass wins, and two instances writing the same
 * day write the same thing). A past day's row therefore holds the day as its last pass saw it.
 */
import type { Logger } from 'pino';
import type { SandboxBooks } from '../service/books.js';
import type { SandboxRepository } from '../store/sandbox.repository.js';

/** How often an instance records the accounts' day. */
export const EQUITY_EVERY_MS = 5 * 60_000;

export class EquityDays {
  private last = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly deps: { repo: SandboxRepository; books: SandboxBooks; logger: Logger },
    private readonly everyMs = EQUITY_EVERY_MS,
  ) {}

  /** Records every account's day when the last record is `everyMs` old (or `force`). */
  async run(now: number, force = false): Promise<void> {
    if (!force && now - this.last < this.everyMs) return;
    this.last = now;
    for (const userId of await this.deps.repo.accountUserIds()) {
      try {
        await this.deps.repo.saveEquityDay(await this.deps.books.equityNow(userId));
      } catch (err) {
        this.deps.logger.warn({ err, userId }, 'sandbox equity day not recorded');
      }
    }
  }
}
