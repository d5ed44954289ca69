/**
 * The remote agents' settings (docs/rules/mcp.md#mcp-settings): one row in the database, read
 * through a short cache that a change drops on every instance (the invalidation bus), so a new
 * setting or the kill switch is in force everywhere at once, without a restart.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import { fromDbBool, toDbBool } from '../../platform/db/database.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import { MCP_SCOPES, type McpScope } from './mcp-tools.js';

export interface McpSettings {
  enabled: boolean;
  require_approval: boolean;
  writes_enabled: boolean;
  allowed_scopes: McpScope[];
  /** Tool calls per minute per access token. */
  token_rate_per_minute: number;
  kill_switch: boolean;
}

export const DEFAULT_MCP_SETTINGS: Readonly<McpSettings> = Object.freeze({
  enabled: true,
  require_approval: true,
  writes_enabled: true,
  allowed_scopes: [...MCP_SCOPES],
  token_rate_per_minute: 60,
  kill_switch: false,
});

const TOPIC = 'mcp-settings';
/** A cached read lives this long even without a bus message (a lost message is healed). */
const CACHE_MS = 2_000;

export class McpSettingsService {
  private cached: { at: number; value: McpSettings } | undefined;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
  ) {
    bus.subscribe(TOPIC, () => (this.cached = undefined));
  }

  async get(): Promise<McpSettings> {
    const now = this.clock.now();
    if (this.cached && now - this.cached.at < CACHE_MS) return this.cached.value;
    const row = await this.db.selectFrom('mcp_settings').selectAll().where('id', '=', 1).executeTakeFirst();
    const value: McpSettings = row
      ? {
          enabled: fromDbBool(row.enabled),
          require_approval: fromDbBool(row.require_approval),
          writes_enabled: fromDbBool(row.writes_enabled),
          allowed_scopes: (JSON.parse(row.allowed_scopes) as string[]).filter((s): s is McpScope =>
            (MCP_SCOPES as readonly string[]).includes(s),
          ),
          token_rate_per_minute: row.token_rate_per_minute,
          kill_switch: fromDbBool(row.kill_switch),
        }
      : { ...DEFAULT_MCP_SETTINGS, allowed_scopes: [...DEFAULT_MCP_SETTINGS.allowed_scopes] };
    this.cached = { at: now, value };
    return value;
  }

  async update(patch: Partial<McpSettings>): Promise<McpSettings> {
    const next = { ...(await this.get()), ...patch };
    const row = {
      enabled: toDbBool(next.enabled),
      require_approval: toDbBool(next.require_approval),
      writes_enabled: toDbBool(next.writes_enabled),
      allowed_scopes: JSON.stringify(next.allowed_scopes),
      token_rate_per_minute: next.token_rate_per_minute,
      kill_switch: toDbBool(next.kill_switch),
      updated_at: this.clock.now(),
    };
    await this.db
      .insertInto('mcp_settings')
      .values({ id: 1, ...row })
      .onConflict((oc) => oc.column('id').doUpdateSet(row))
      .execute();
    this.cached = undefined;
    this.bus.publish(TOPIC, '1');
    return this.get();
  }
}
