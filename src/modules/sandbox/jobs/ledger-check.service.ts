/**
 * The ledger check run over accounts (docs/rules/sandbox.md#ledger-check): on demand (`algodesk
 * sandbox verify`, the diagnostics probe, the tests) and on a timer in the service, which reports
 * a drift as a `ledger_drift` critical event (an error-level log line, so it reaches the error
 * log) and in the metrics. A drift in a user's account must never depend on someone noticing it.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../../platform/clock.js';
import { checkLedger, type LedgerDifference } from '../core/ledger-check.js';
import type { LedgerCheckRepository } from '../store/ledger-check.repository.js';

/** What one pass over the accounts found. */
export interface LedgerReport {
  /** When the pass started (epoch ms). */
  at: number;
  /** Accounts checked. */
  accounts: number;
  /** Accounts with at least one difference. */
  drifted: number;
  differences: LedgerDifference[];
}

/** The latest pass, for the metrics: undefined until one ran. */
export interface LedgerCheckState {
  last: LedgerReport | undefined;
  /** Passes run since start, and those that found a drift. */
  runs: number;
  drifts: number;
}

export class LedgerCheck {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<LedgerReport> | undefined;
  readonly state: LedgerCheckState = { last: undefined, runs: 0, drifts: 0 };

  constructor(
    private readonly repo: LedgerCheckRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Minutes between the service's own passes; 0: none. */
    private readonly everyMinutes: number,
  ) {}

  /** The differences of one account (empty when it agrees, or has no account). */
  async account(userId: number): Promise<LedgerDifference[]> {
    const snapshot = await this.repo.snapshot(userId);
    return snapshot ? checkLedger(snapshot) : [];
  }

  /**
   * Checks every account, or the one of `userId`. Accounts are read one at a time, each in a
   * transaction of its own, yielding between them so a large install's pass never holds the
   * event loop for long.
   */
  async run(opts: { userId?: number } = {}): Promise<LedgerReport> {
    const at = this.clock.now();
    const users = opts.userId === undefined ? await this.repo.accountUserIds() : [opts.userId];
    const differences: LedgerDifference[] = [];
    let accounts = 0;
    let drifted = 0;
    for (const userId of users) {
      const snapshot = await this.repo.snapshot(userId);
      if (!snapshot) continue;
      accounts += 1;
      const found = checkLedger(snapshot);
      if (found.length > 0) drifted += 1;
      differences.push(...found);
      await new Promise((r) => setImmediate(r));
    }
    return { at, accounts, drifted, differences };
  }

  /** One pass of the service's own (see the file comment); never throws. */
  async scheduledPass(): Promise<LedgerReport | undefined> {
    if (this.running) return this.running;
    this.running = this.run();
    try {
      const report = await this.running;
      this.state.last = report;
      this.state.runs += 1;
      if (report.drifted > 0) {
        this.state.drifts += 1;
        this.logger.error(
          {
            event: 'ledger_drift',
            severity: 'critical',
            accounts: report.accounts,
            drifted: report.drifted,
            differences: report.differences.slice(0, 20),
          },
          `ledger_drift: ${report.drifted} of ${report.accounts} sandbox accounts differ from their trade book (run "algodesk sandbox verify")`,
        );
      } else this.logger.debug({ accounts: report.accounts }, 'ledger check: every account agrees');
      return report;
    } catch (err) {
      this.logger.warn({ err }, 'ledger check could not run');
      return undefined;
    } finally {
      this.running = undefined;
    }
  }

  /** Starts the timer (a first pass a minute after start, then every interval). */
  start(): void {
    if (this.everyMinutes <= 0 || this.timer) return;
    const every = this.everyMinutes * 60_000;
    this.timer = setTimeout(
      () => {
        this.timer = setInterval(() => void this.scheduledPass(), every);
        this.timer.unref();
        void this.scheduledPass();
      },
      Math.min(60_000, every),
    );
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass in flight. */
  async stop(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      clearInterval(this.timer);
      this.timer = undefined;
    }
    await this.running?.catch(() => undefined);
  }
}
