/**
 * The MIS square-off of scanners (docs/rules/scanner.md#scanner-squareoff): once a scanner's
 * `squareoff_time` has passed on an IST trading day, what it opened that day and has not closed is
 * closed by opposite MARKET orders, never more than the position holds now. One instance wins the
 * day's claim; each pass writes one audit row.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { istDay } from '../sandbox/core/ist-day.js';
import { istTimeOf } from '../market/timings.service.js';
import type { ScannerRepository, ScannerRow } from './scanner.repository.js';
import type { ScannerTrading, ScannerWebhook } from './scanner-webhook.service.js';
import type { ScannerMode, SymbolResult } from './scanner.schema.js';
import type { WebhooksRepository } from '../webhooks/webhooks.repository.js';

/** How often the pass runs. */
export const SQUAREOFF_EVERY_MS = 30_000;

export class ScannerSquareOff {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      repo: ScannerRepository;
      /** Where each pass's audit row goes (the webhooks module's repository). */
      webhooks: WebhooksRepository;
      trading: ScannerTrading;
      webhook: ScannerWebhook;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), SQUAREOFF_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass now (one at a time in this process). */
  run(): Promise<void> {
    this.running ??= this.pass()
      .catch((err: unknown) => this.deps.logger.error({ err }, 'scanner square-off pass failed'))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<void> {
    const { repo, clock } = this.deps;
    const now = clock.now();
    const day = istDay(now);
    const time = istTimeOf(now);
    for (const s of await repo.squareOffCandidates(day)) {
      if (s.squareoff_time === null || time < s.squareoff_time) continue;
      if (!this.deps.trading.sessionOn(s.exchange, day)?.open) continue;
      if (!(await repo.claimSquareOff(Number(s.id), day))) continue;
      await this.squareOff(s, day, now);
    }
  }

  private async squareOff(s: ScannerRow, day: string, now: number): Promise<void> {
    const { repo, webhooks, trading, webhook, logger } = this.deps;
    const started = performance.now();
    const net = new Map<string, number>();
    for (const o of await repo.ordersOfDay(Number(s.id), day))
      net.set(o.symbol, (net.get(o.symbol) ?? 0) + (o.side === 'BUY' ? o.quantity : -o.quantity));
    const results: SymbolResult[] = [];
    for (const [symbol, opened] of net) {
      if (opened === 0) continue;
      try {
        const held = await trading.closable(Number(s.user_id), s.mode as ScannerMode, {
          symbol,
          exchange: s.exchange,
          product: s.product,
        });
        // Only what the scanner opened, and only what is still held on that side.
        const quantity =
          opened > 0 ? Math.min(opened, Math.max(held, 0)) : Math.min(-opened, Math.max(-held, 0));
        if (quantity === 0) {
          results.push({ symbol, status: 'skipped', message: 'Already closed' });
          continue;
        }
        const side = opened > 0 ? 'SELL' : 'BUY';
        results.push(await webhook.place(s, { symbol, side, quantity, kind: 'squareoff' }, undefined, now));
      } catch (err) {
        logger.error({ err, scannerId: s.id, symbol }, 'scanner square-off of a symbol failed');
        results.push({ symbol, status: 'error', message: 'The square-off order could not be placed' });
      }
    }
    const placed = results.filter((r) => r.status === 'success').length;
    await webhooks
      .insertDelivery({
        source: 'scanner',
        owner_id: Number(s.id),
        ts: now,
        ip: 'square-off',
        result: 'squareoff',
        http_status: 200,
        action: null,
        message: `Square-off at ${s.squareoff_time}: ${placed} of ${results.length} symbols closed`,
        payload: null,
        detail: JSON.stringify({ results }),
        duration_ms: performance.now() - started,
      })
      .catch((err: unknown) => logger.error({ err, scannerId: s.id }, 'scanner square-off not audited'));
  }
}
