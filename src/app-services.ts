/**
 * The services of the app, built and started without HTTP: `buildApp` puts its routes over them,
 * and the middle tier of the tests drives them directly on a real database.
 */
import { safeUrl } from './platform/safe-url.js';
import type { Logger } from 'pino';
import type { ResolvedConfig } from './config.js';
import { type InvalidKeyListener } from './modules/api/api-key.guard.js';
import { ApiKeysRepository } from './modules/auth/api-keys.repository.js';
import { ApiKeysService } from './modules/auth/api-keys.service.js';
import { LoginActivityRepository } from './modules/auth/login-activity.repository.js';
import { LoginService } from './modules/auth/login.service.js';
import { PasswordResetRepository } from './modules/auth/password-reset.repository.js';
import { PasswordResetService } from './modules/auth/password-reset.service.js';
import { SessionsRepository } from './modules/auth/sessions.repository.js';
import { SessionsService } from './modules/auth/sessions.service.js';
import { TotpService } from './modules/auth/totp.service.js';
import { UsersRepository } from './modules/auth/users.repository.js';
import { UsersService } from './modules/auth/users.service.js';
import { SettingsRepository } from './modules/settings/settings.repository.js';
import { BanService } from './modules/security/ban.service.js';
import { BansRepository } from './modules/security/bans.repository.js';
import { SecuritySettingsService } from './modules/security/security-settings.service.js';
import { TrackersRepository } from './modules/security/trackers.repository.js';
import { TrackersService } from './modules/security/trackers.service.js';
import { SINGLE_ROW_INSERT, TrafficRepository } from './modules/monitoring/traffic.repository.js';
import { TrafficLogService } from './modules/monitoring/traffic.service.js';
import { SqliteWriterThread } from './platform/db/sqlite-writer-thread.js';
import { LOG_THREAD_STATEMENTS } from './modules/orders/orders.repository.js';
import { buildMarketAdminServices, type MarketAdminServices } from './modules/market/market-admin.module.js';
import {
  buildMarketServices,
  startMarketServices,
  type MarketServices,
} from './modules/market/market.module.js';
import { type StrategyServices } from './modules/strategies/strategies.module.js';
import type { StrategySeam } from './modules/strategies/strategy-runner.types.js';
import { buildMailServices, type MailConnectOptions, type MailServices } from './modules/mail/mail.module.js';
import type { AlertDelivery } from './modules/alerts/alerts.consumer.js';
import type { AlertSettingsService } from './modules/alerts/alert-settings.service.js';
import type { BrokerRegistry } from './modules/brokers/broker-registry.js';
import type { OrderServices } from './modules/orders/orders.module.js';
import type { SandboxServices } from './modules/sandbox/sandbox.module.js';
import { buildTradingServices } from './app-trading.js';
import type { Clock } from './platform/clock.js';
import type { Database } from './platform/db/database.js';
import type { SchemaCompilers } from './platform/http/schema-compilers.js';
import type { InvalidationBus } from './platform/invalidation.js';
import {
  buildObservabilityServices,
  type ObservabilityServices,
} from './modules/observability/observability.module.js';
import type { RateLimiter } from './platform/rate-limiter.js';
import { buildTunnelServices, type TunnelServices } from './modules/tunnel/tunnel.module.js';
import type { TunnelDriver } from './modules/tunnel/tunnel.types.js';

/** Everything the app is built from; tests pass fakes (clock, limiter, bus) here. */
export interface AppDeps {
  config: ResolvedConfig;
  database: Database;
  clock: Clock;
  logger: Logger;
  rateLimiter: RateLimiter;
  bus: InvalidationBus;
  /** Mail TLS trust and timeouts (tests trust their own CA); default: the system's CAs. */
  mailConnect?: MailConnectOptions;
  /** The public base URL when it differs from HOST_SERVER (the tunnel's); for webhook URLs. */
  publicBaseUrl?: () => string | undefined;
  /** The public tunnel's provider (default ngrok); tests pass a fake. */
  tunnelDriver?: TunnelDriver;
  /** Bound on the tunnel's start (default 10 s); tests shorten it. */
  tunnelStartTimeoutMs?: number;
  /** Compiled route schemas, shared by every app a process builds (tests); default: the app's own. */
  schemaCompilers?: SchemaCompilers;
  /**
   * Called between a strategy order's writes (strategy-runner.ts, `StrategySeam`): tests kill the
   * process there to prove a restart reconciles; never set in production.
   */
  strategySeam?: (name: StrategySeam) => Promise<void> | void;
}

/** The services of the app, built once and shared by the route modules (no singletons). */
export interface Services {
  users: UsersService;
  sessions: SessionsService;
  /** Two-factor codes: enrollment, login, purposes, the remote-agent consent rule. */
  totp: TotpService;
  apiKeys: ApiKeysService;
  login: LoginService;
  loginActivity: LoginActivityRepository;
  settings: SettingsRepository;
  /** Listeners told about every refused API key (the shield's tracker subscribes). */
  invalidKeyListeners: InvalidKeyListener[];
  bans: BanService;
  trackers: TrackersService;
  securitySettings: SecuritySettingsService;
  traffic: TrafficLogService;
  /** Freeze quantities, holidays, timings. */
  marketAdmin: MarketAdminServices;
  /** Master contract, instrument index and search. */
  market: MarketServices;
  /** Analyzer mode: the paper-trading account, engine and mode switch. */
  sandbox: SandboxServices;
  /** Live brokers by name. */
  brokers: BrokerRegistry;
  /** Order placement, events, latency, broker sessions, Action Center. */
  orders: OrderServices;
  /** Telegram and Slack alerts on order events, per user. */
  alerts: { settings: AlertSettingsService; delivery: AlertDelivery };
  /** Outgoing mail: SMTP settings, sending, diagnostics. */
  mail: MailServices;
  /** Password reset by authenticator code or mailed link. */
  passwordReset: PasswordResetService;
  /** Batch and signal strategies, the strategy webhook and event trail. */
  strategies: StrategyServices;
  /** Error log, system snapshot, diagnostics, report. */
  observability: ObservabilityServices;
  /** The public tunnel (TUNNEL_ALLOW): `publicUrl()` while it is up, else null. */
  tunnel: TunnelServices;
}

export function buildServices(deps: AppDeps): Services {
  const { database, clock, config } = deps;
  const db = database.db;
  // SQLite: the traffic log and the order log write from one worker thread, off the event loop
  // (platform/db/sqlite-writer-thread.ts); closed with the traffic log at shutdown.
  const writerThread = database.file
    ? new SqliteWriterThread(database.file, { traffic: SINGLE_ROW_INSERT, ...LOG_THREAD_STATEMENTS })
    : undefined;
  const usersRepo = new UsersRepository(db);
  const users = new UsersService(usersRepo, clock);
  const sessions = new SessionsService(new SessionsRepository(db), clock, {
    idleMs: config.sessionIdleMs,
    maxMs: config.sessionMaxMs,
  });
  const loginActivity = new LoginActivityRepository(db);
  const totp = new TotpService(users, sessions, clock, config.appKey);
  const bans = new BanService(new BansRepository(db), clock, deps.bus);
  const securitySettings = new SecuritySettingsService(db, clock);
  const trackers = new TrackersService(
    new TrackersRepository(db),
    bans,
    securitySettings,
    clock,
    deps.logger,
  );
  const marketAdmin = buildMarketAdminServices({ db, clock, bus: deps.bus, logger: deps.logger });
  const market = buildMarketServices({
    db,
    config,
    clock,
    bus: deps.bus,
    logger: deps.logger,
    freezeQty: (exchange, underlying) => marketAdmin.freezeQty(exchange, underlying),
  });
  const tunnel = buildTunnelServices({
    config,
    logger: deps.logger,
    ...(deps.tunnelDriver ? { driver: deps.tunnelDriver } : {}),
    ...(deps.tunnelStartTimeoutMs !== undefined ? { startTimeoutMs: deps.tunnelStartTimeoutMs } : {}),
  });
  // Webhook URLs are shown on the tunnel's public URL while it is up, else on HOST_SERVER.
  const tradingDeps = {
    ...deps,
    publicBaseUrl: deps.publicBaseUrl ?? (() => tunnel.publicUrl() ?? undefined),
  };
  const { brokers, sandbox, orders, alerts, strategies } = buildTradingServices(
    tradingDeps,
    market,
    marketAdmin,
    writerThread,
  );
  const mail = buildMailServices({
    db,
    appKey: config.appKey,
    clock,
    logger: deps.logger,
    ...(deps.mailConnect ? { connect: deps.mailConnect } : {}),
  });
  return {
    tunnel,
    bans,
    trackers,
    marketAdmin,
    market,
    sandbox,
    brokers,
    orders,
    alerts,
    strategies,
    mail,
    observability: buildObservabilityServices(deps, {
      sandbox,
      brokers,
      orders,
      mail,
      users,
      alerts,
      market,
    }),
    passwordReset: new PasswordResetService({
      repo: new PasswordResetRepository(db),
      totp,
      mail,
      clock,
      // The mailed link never carries credentials a HOST_SERVER may hold (a proxy login).
      hostServer: safeUrl(config.hostServer) ?? config.hostServer,
      logger: deps.logger,
      serviceName: config.serviceName,
    }),
    traffic: new TrafficLogService(new TrafficRepository(db, writerThread), clock, deps.logger, {
      retentionDays: config.trafficRetentionDays,
    }),
    securitySettings,
    users,
    sessions,
    loginActivity,
    apiKeys: new ApiKeysService(new ApiKeysRepository(db), usersRepo, config.apiKeyPepper, clock, deps.bus),
    totp,
    login: new LoginService(
      users,
      sessions,
      loginActivity,
      deps.rateLimiter,
      config.loginRateLimit,
      clock,
      deps.logger,
      totp,
    ),
    settings: new SettingsRepository(db),
    invalidKeyListeners: [(ip, digest) => trackers.recordInvalidKey(ip, digest)],
  };
}

/** Starts the services' timers, workers and caches, in dependency order (undone by {@link stopServices}). */
export async function startServices(services: Services): Promise<void> {
  services.trackers.start();
  services.traffic.start();
  services.observability.start();
  await services.marketAdmin.start();
  startMarketServices(services.market);
  await services.orders.start();
  await services.strategies.start();
  await services.sandbox.mode.reload();
}

/** Stops what {@link startServices} started, flushing what is pending (order logs, traffic, mail). */
export async function stopServices(services: Services): Promise<void> {
  await services.sandbox.mode.shutdown();
  await services.strategies.stop();
  await services.orders.stop();
  await services.brokers.closeAll();
  await services.mail.whenIdle();
  await services.trackers.stop();
  await services.traffic.stop();
  services.market.contracts.stop();
  await services.market.contracts.whenIdle();
  await services.observability.stop();
}
