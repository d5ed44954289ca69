import type { Clock } from '../../platform/clock.js';
import { fromDbBool, toDbBool } from '../../platform/db/database.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { SecuritySettingsRepository } from './security-settings.repository.js';

/** The automatic-ban settings of the settings row, as the spec names and types them. */
export interface SecuritySettings {
  security_auto_ban_enabled: boolean;
  security_404_threshold: number;
  security_404_ban_duration: number;
  security_api_threshold: number;
  security_api_ban_duration: number;
  security_repeat_offender_limit: number;
}

/** Ranges of "Automatic-ban settings" (inclusive). */
export const SECURITY_RANGES = {
  security_404_threshold: [1, 1000],
  security_404_ban_duration: [0, 8760],
  security_api_threshold: [1, 100],
  security_api_ban_duration: [0, 8760],
  security_repeat_offender_limit: [1, 10],
} as const;

/** The bus topic of a change of the automatic-ban settings (every instance drops its cached copy). */
export const SECURITY_SETTINGS_TOPIC = 'security-settings';

/**
 * Reads and writes the automatic-ban settings. Reads are cached briefly (the trackers read them
 * on every flush); a change drops the cached copy here and, through the bus, on every instance.
 */
export class SecuritySettingsService {
  private cached: { at: number; value: SecuritySettings } | undefined;

  constructor(
    private readonly repo: SecuritySettingsRepository,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
  ) {
    bus.subscribe(SECURITY_SETTINGS_TOPIC, () => (this.cached = undefined));
  }

  async get(): Promise<SecuritySettings> {
    const now = this.clock.now();
    if (this.cached && now - this.cached.at < 5_000) return this.cached.value;
    const r = await this.repo.read();
    const value: SecuritySettings = {
      security_auto_ban_enabled: fromDbBool(r.security_auto_ban_enabled),
      security_404_threshold: r.security_404_threshold,
      security_404_ban_duration: r.security_404_ban_duration,
      security_api_threshold: r.security_api_threshold,
      security_api_ban_duration: r.security_api_ban_duration,
      security_repeat_offender_limit: r.security_repeat_offender_limit,
    };
    this.cached = { at: now, value };
    return value;
  }

  /** Writes the given fields (already range-checked by the route schema) in one statement. */
  async update(patch: Partial<SecuritySettings>): Promise<SecuritySettings> {
    const { security_auto_ban_enabled, ...numbers } = patch;
    await this.repo.write({
      ...numbers,
      ...(security_auto_ban_enabled === undefined
        ? {}
        : { security_auto_ban_enabled: toDbBool(security_auto_ban_enabled) }),
      updated_at: this.clock.now(),
    });
    this.cached = undefined;
    this.bus.publish(SECURITY_SETTINGS_TOPIC, '1');
    return this.get();
  }
}
