/**
 * `GET /admin/api/system` (spec "Session routes: administration", system snapshot sections):
 * exactly `mode`, `host`, `runtime`, `hardware`, `build`, `config`, `brokers`, `databases`,
 * `time`. The event-bus counters and the instrument-index state are runtime state, so they sit
 * in `runtime`. Secret values are never read into the snapshot: secrets appear only as
 * present/strong booleans, URLs only as scheme, host and port.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { sql } from 'kysely';
import { isStrongSecret, type ResolvedConfig } from '../../config.js';
import { effectivePriceSource } from '../../config-sandbox.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/database.js';
import { safeUrl } from '../../platform/safe-url.js';
import {
  buildInfo,
  hardwareInfo,
  hostInfo,
  LoopDelayMonitor,
  processInfo,
  type BuildInfo,
} from './host-info.js';

/** What the snapshot reads from other modules, through their services (wired in the module). */
export interface SnapshotSources {
  config: ResolvedConfig;
  database: Database;
  clock: Clock;
  /** Analyzer mode on? */
  analyze(): boolean;
  /** Brokers with a live adapter. */
  brokerNames(): string[];
  /** The newest live broker session: its broker and expiry only, never its token. */
  activeBroker(): { broker: string; expiresAt: number | null } | undefined;
  /** Is an SMTP password stored? */
  mailPasswordSet(): Promise<boolean>;
  /** Has any user stored a messaging-bot (Telegram) token? */
  botTokenSet(): Promise<boolean>;
  eventBus(): {
    pending: number;
    dropped: number;
    delivered: number;
    running: number;
    workers: number;
    queue_limit: number;
  };
  instrumentIndex(): { enabled: boolean; ready: boolean; instruments: number };
}

const iso = (t: number | null | undefined) =>
  t === null || t === undefined ? null : new Date(t).toISOString();

/** Wall-clock time in India (IST, UTC+05:30, no daylight saving). */
export function istString(t: number): string {
  return `${new Date(t + 330 * 60_000).toISOString().slice(0, 19).replace('T', ' ')} IST`;
}

export class SystemSnapshotService {
  readonly loopDelay = new LoopDelayMonitor();
  private build: Promise<BuildInfo> | undefined;

  constructor(private readonly s: SnapshotSources) {}

  start(): void {
    this.loopDelay.start();
  }

  stop(): void {
    this.loopDelay.stop();
  }

  async snapshot() {
    const { config, clock } = this.s;
    this.build ??= buildInfo();
    const [host, hardware, build, databases, mailPassword, botToken] = await Promise.all([
      hostInfo(),
      hardwareInfo(config.dataDir),
      this.build,
      this.databases(),
      this.s.mailPasswordSet().catch(() => false),
      this.s.botTokenSet().catch(() => false),
    ]);
    const active = this.s.activeBroker();
    const now = clock.now();
    return {
      mode: this.s.analyze() ? ('Analyze' as const) : ('Live' as const),
      host,
      runtime: {
        ...processInfo(),
        event_loop_delay: this.loopDelay.snapshot(),
        event_bus: this.s.eventBus(),
        instrument_index: this.s.instrumentIndex(),
      },
      hardware,
      build,
      config: {
        host: config.host,
        port: config.port,
        data_dir: config.dataDir,
        host_server: safeUrl(config.hostServer),
        database: config.databaseUrl ? 'postgres' : 'sqlite',
        database_host: safeUrl(config.databaseUrl, false),
        redis: safeUrl(config.redisUrl, false),
        trust_proxy_headers: config.trustProxyHeaders,
        log_level: config.logLevel,
        session_idle_minutes: Math.round(config.sessionIdleMs / 60_000),
        session_max_hours: Math.round(config.sessionMaxMs / 3_600_000),
        rate_limits: {
          api: config.apiRateLimit?.map((r) => r.text).join('; ') ?? null,
          order: config.orderRateLimit.map((r) => r.text).join('; '),
          login: config.loginRateLimit.map((r) => r.text).join('; '),
          reset: config.resetRateLimit.map((r) => r.text).join('; '),
          webhook: config.webhookRateLimit.map((r) => r.text).join('; '),
        },
        traffic_retention_days: config.trafficRetentionDays,
        instrument_index: config.instrumentIndex,
        master_contract_broker: config.masterContractBroker ?? null,
        ban_check_disabled: config.disableBanCheck,
        // The source in use (`auto` resolved): broker, simulated or scripted.
        sandbox_price_source: effectivePriceSource(config),
        secrets_present: {
          app_key: Boolean(config.appKey),
          api_key_pepper: Boolean(config.apiKeyPepper),
          broker_api_key: Boolean(config.broker.apiKey),
          broker_api_secret: Boolean(config.broker.apiSecret),
          // No separate market-data broker: quotes run under the trading broker's session.
          market_data_broker_api_key: false,
          market_data_broker_api_secret: false,
          broker_redirect_url: Boolean(config.broker.redirectUrl),
          smtp_password: mailPassword,
          telegram_bot_token: botToken,
        },
        secret_strength: {
          app_key: isStrongSecret(config.appKey),
          api_key_pepper: isStrongSecret(config.apiKeyPepper),
          // Password hashes use argon2id with a random salt per hash: never a shared value.
          salt: true,
        },
      },
      brokers: {
        configured: config.broker.name ?? null,
        available: this.s.brokerNames(),
        api_base_url: safeUrl(config.broker.baseUrl, false),
        timeout_ms: config.broker.timeoutMs,
        active_session: active ? { broker: active.broker, expires_at: iso(active.expiresAt) } : null,
      },
      databases,
      time: {
        server_time: new Date(now).toISOString(),
        epoch_ms: now,
        zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        utc_offset_minutes: -new Date(now).getTimezoneOffset(),
        ist: istString(now),
      },
    };
  }

  /** Per database: present, size, modification time (SQLite files) or the PostgreSQL size. */
  private async databases() {
    const { database } = this.s;
    if (database.dialect === 'sqlite') {
      const file = database.file;
      if (!file)
        return [
          { name: 'main', kind: 'sqlite', file: null, present: true, size_bytes: null, modified: null },
        ];
      const [main, wal] = await Promise.all([
        stat(file).catch(() => undefined),
        stat(`${file}-wal`).catch(() => undefined),
      ]);
      return [
        {
          name: 'main',
          kind: 'sqlite',
          file: basename(file),
          present: main !== undefined,
          size_bytes: main ? main.size + (wal?.size ?? 0) : null,
          modified: main ? new Date(Math.max(main.mtimeMs, wal?.mtimeMs ?? 0)).toISOString() : null,
        },
      ];
    }
    const size = await sql<{ n: number | string; name: string }>`
      select pg_database_size(current_database()) as n, current_database() as name`
      .execute(database.db)
      .then((r) => r.rows[0])
      .catch(() => undefined);
    return [
      {
        name: 'main',
        kind: 'postgres',
        file: size?.name ?? null,
        present: size !== undefined,
        size_bytes: size ? Number(size.n) : null,
        modified: null,
      },
    ];
  }
}

export type SystemSnapshot = Awaited<ReturnType<SystemSnapshotService['snapshot']>>;
