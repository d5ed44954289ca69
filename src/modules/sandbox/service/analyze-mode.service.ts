/**
 * Analyzer / live mode (spec "Analyzer / live mode"): the `analyze_mode` flag of the settings
 * row. Switching to Analyze starts the sandbox engine, switching to Live stops it. The flag is
 * read on every `/api/v1` order call, so it is kept in memory and reloaded on every change, here
 * and — through the invalidation bus — on every other instance, which starts or stops its own
 * engine in step.
 */
import type { Logger } from 'pino';
import type { AnalyzeModeRepository } from '../store/analyze-mode.repository.js';
import type { InvalidationBus } from '../../../platform/invalidation.js';

export const ANALYZE_MODE_TOPIC = 'analyze-mode';

/** What follows the mode: the sandbox engine. */
export interface ModeFollower {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export class AnalyzeModeService {
  private mode = false;
  /** The mode the last transition asked for (before it has run); undefined until the first. */
  private target: boolean | undefined;
  private readonly followers: ModeFollower[] = [];
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: AnalyzeModeRepository,
    private readonly bus: InvalidationBus,
    private readonly logger: Logger,
  ) {
    // A message naming the mode this instance is in already changes nothing: it is this
    // instance's own `set` coming back, or another's that arrived after ours. Re-reading it anyway
    // would race with anything stopped or started since (the engine restarted behind a stop).
    bus.subscribe(ANALYZE_MODE_TOPIC, (key) => {
      if (this.target !== undefined && key === (this.target ? '1' : '0')) return;
      void this.reload();
    });
  }

  /** Registers something started in analyzer mode and stopped in live mode. */
  follow(f: ModeFollower): void {
    this.followers.push(f);
  }

  /** True in analyzer mode (memory; no I/O). */
  get analyze(): boolean {
    return this.mode;
  }

  /** Reads the flag and brings the followers in line (start-up, and messages from other instances). */
  async reload(): Promise<void> {
    await this.apply(await this.repo.read());
  }

  /** Switches the mode (administrator): writes the flag, starts or stops the engine, tells the other instances. */
  async set(analyze: boolean): Promise<void> {
    await this.repo.write(analyze);
    await this.apply(analyze);
    this.bus.publish(ANALYZE_MODE_TOPIC, analyze ? '1' : '0');
    this.logger.info({ mode: analyze ? 'analyze' : 'live' }, 'trading mode switched');
  }

  /** Stops the followers (app shutdown) without changing the stored mode. */
  async shutdown(): Promise<void> {
    await this.applying;
    for (const f of this.followers) await f.stop();
  }

  private apply(analyze: boolean): Promise<void> {
    // Transitions run one at a time, so a quick 1 → 0 → 1 ends in the last state.
    this.target = analyze;
    this.applying = this.applying
      .then(async () => {
        this.mode = analyze;
        for (const f of this.followers) await (analyze ? f.start() : f.stop());
      })
      .catch((err: unknown) => this.logger.error({ err }, 'trading mode switch failed'));
    return this.applying;
  }
}
