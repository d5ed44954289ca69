import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { parseRateRules, type RateRule } from './platform/rate-rule.js';
import {
  parseBrokeragePlan,
  parseSessions,
  parseChargesSetting,
  parseHhmm,
  parseLeverage,
  parsePriceSource,
  parseResetDay,
  parseSquareOff,
  parseStartingFunds,
  DEFAULT_SQUARE_OFF,
  type SandboxConfig,
} from './config-sandbox.js';
import { parseWebsocketUrl, type FeedConfig } from './config-feed.js';
import { DEFAULT_LEVERAGE } from './domain/sandbox.js';
import { DEFAULT_BROKERAGE_PLAN } from './domain/charges.js';
import { DEFAULT_FNO_MARGIN, parseFnoMargin } from './domain/fno-margin.js';
import { printableUrl } from './platform/startup-error.js';
import { BROKERS, isBroker } from './domain/brokers.js';
import {
  parseBoolean,
  parseDatabaseUrl,
  parseHost,
  parseInteger,
  parseLogFormat,
  parseLogLevel,
  parseMetricsToken,
  parseSecret,
  parseUrl,
  type LogFormat,
  type LogLevel,
} from './config-values.js';

export { LOG_LEVELS, type LogLevel } from './config-values.js';

/**
 * The one validated configuration object. Nothing else in `src/` reads `process.env`
 * (ARCHITECTURE.md): everything a module needs arrives through this object.
 */
export interface Config {
  /** Interface to listen on (`HOST`, default 127.0.0.1). */
  host: string;
  /** TCP port (`PORT`, default 5000). */
  port: number;
  /**
   * This instance's name among those sharing a database (`INSTANCE_ID`, default
   * `<hostname>:<PORT>`): the holder named on a strategy's lease. It must stay the same across a
   * restart (a restarted instance releases the leases its previous life held) and differ between
   * instances running at once.
   */
  instanceId: string;
  /** Absolute data directory (`DATA_DIR`, default ./data): SQLite files and generated secrets. */
  dataDir: string;
  /** `postgres://…` when set (`DATABASE_URL`); unset means SQLite in {@link dataDir}. */
  databaseUrl: string | undefined;
  /** Optional Redis for shared state across instances (`REDIS_URL`). */
  redisUrl: string | undefined;
  /**
   * Namespace of this install's Redis channel and keys (`REDIS_PREFIX`; default derived from the
   * database, so the instances of one install share it and two installs on one Redis do not).
   */
  redisPrefix: string;
  /** `APP_KEY` as given; when unset, {@link ensureInstallSecrets} generates one. */
  appKey: string | undefined;
  /** `API_KEY_PEPPER` as given; when unset, {@link ensureInstallSecrets} generates one. */
  apiKeyPepper: string | undefined;
  /** Read client IPs from proxy headers (`TRUST_PROXY_HEADERS`, default false). */
  trustProxyHeaders: boolean;
  /** `API_RATE_LIMIT`; unset means each surface uses the spec's own default. */
  apiRateLimit: RateRule[] | undefined;
  /** `ORDER_RATE_LIMIT`, default 10 per second. */
  orderRateLimit: RateRule[];
  /** `SMART_ORDER_RATE_LIMIT`, default 2 per second (OpenAlgo's): `/api/v1/placesmartorder`. */
  smartOrderRateLimit: RateRule[];
  /** `LOGIN_RATE_LIMIT`, default 5 per minute and 25 per hour, per client IP. */
  loginRateLimit: RateRule[];
  /** `RESET_RATE_LIMIT`, default 15 per hour, per client IP: every password-reset request. */
  resetRateLimit: RateRule[];
  /** `WEBHOOK_RATE_LIMIT`, default 10 per second: strategy webhook deliveries per client IP and per token. */
  webhookRateLimit: RateRule[];
  /** `GREEKS_RATE_LIMIT`, default 30 per minute (OpenAlgo's): `/api/v1/optiongreeks` per client IP. */
  greeksRateLimit: RateRule[];
  /** Public base URL (`HOST_SERVER`, default `http://127.0.0.1:<PORT>`), without a trailing slash. */
  hostServer: string;
  /** Session cookies carry `Secure` when the public URL is https. */
  secureCookies: boolean;
  /**
   * `TUNNEL_ALLOW` (default false): open the public tunnel at start-up (spec "Limits", tunnel
   * paragraph). Only a case-insensitive `true` turns it on; any other value (`yes`, `1`, empty)
   * leaves it off, as the spec says, so this is deliberately not {@link parseBoolean}.
   */
  tunnelAllow: boolean;
  /**
   * ngrok's own `NGROK_AUTHTOKEN` (environment or `.env`), handed to the tunnel's SDK only: never
   * logged, shown or stored.
   */
  ngrokAuthtoken: string | undefined;
  /** pino level (`LOG_LEVEL`, default info). */
  logLevel: LogLevel;
  /**
   * `LOG_FORMAT` (default auto): `auto` writes readable lines when standard output is a terminal
   * and JSON lines otherwise (a service manager, a container, a file), `json` or `pretty` always.
   */
  logFormat: LogFormat;
  /** Idle expiry of a session (`SESSION_IDLE_MINUTES`, default 480). */
  sessionIdleMs: number;
  /** Absolute expiry of a session (`SESSION_MAX_HOURS`, default 24). */
  sessionMaxMs: number;
  /** Name used in client-facing messages such as "Invalid algodesk apikey". */
  serviceName: string;
  /**
   * `UNSAFE_DISABLE_BAN_CHECK` (default false): skips the IP-ban check. Exists only so
   * `bench/ban-check` can measure the check's cost against the same server without it; start-up
   * warns loudly when it is set.
   */
  disableBanCheck: boolean;
  /** Days of traffic log kept (`TRAFFIC_RETENTION_DAYS`, default 30). */
  trafficRetentionDays: number;
  /** Error log retention: days (`ERROR_LOG_RETENTION_DAYS`, 30) and rows (`ERROR_LOG_MAX_ROWS`, 10,000). */
  errorLogRetention: { maxAgeDays: number; maxRows: number };
  /**
   * Broker whose published master contract `POST /api/master-contract/download` fetches
   * (`MASTER_CONTRACT_BROKER`: zerodha, upstox, dhan or angel (the brokers with one downloadable file); unset = the request must name one).
   */
  masterContractBroker: string | undefined;
  /**
   * Origin the master contract is downloaded from instead of the broker's published one
   * (`MASTER_CONTRACT_BASE_URL`; tests and mirrors).
   */
  masterContractBaseUrl: string | undefined;
  /**
   * `INSTRUMENT_INDEX` (default true): keep the instrument index in memory (about 100 MB for
   * 200k instruments). false answers every search from the database.
   */
  instrumentIndex: boolean;
  /** Analyzer mode's paper-trading engine (`SANDBOX_*`, see config-sandbox.ts). */
  sandbox: SandboxConfig;
  /** The live feed (`WEBSOCKET_*`, `FEED_*`, see config-feed.ts). */
  feed: FeedConfig;
  /** The live broker (`BROKER_*`). */
  broker: BrokerConfig;
  /** `TELEGRAM_API_BASE_URL`: Telegram Bot API origin instead of api.telegram.org (tests). */
  telegramApiBaseUrl: string | undefined;
  /**
   * `WHATSAPP_API_BASE_URL`: WhatsApp Cloud API origin and version instead of
   * https://graph.facebook.com/v24.0 (a newer Graph API version; tests).
   */
  whatsappApiBaseUrl: string | undefined;
  /**
   * `METRICS_TOKEN` (at least 16 characters): the bearer token `GET /metrics` requires. Unset,
   * the route answers 404 as if it did not exist. Never logged or shown.
   */
  metricsToken: string | undefined;
}

/** The live broker's app credentials. */
export interface BrokerConfig {
  /** `BROKER_NAME`: one of the brokers in src/domain/brokers.ts; unset = no live broker (live orders answer 404). */
  name: string | undefined;
  /** `BROKER_API_KEY` / `BROKER_API_SECRET`: the broker app's credentials (the secret is never logged). */
  apiKey: string | undefined;
  apiSecret: string | undefined;
  /** `BROKER_REDIRECT_URL`: the login callback registered with the broker app. */
  redirectUrl: string | undefined;
  /** `BROKER_API_BASE_URL`: API origin instead of the broker's (tests use a loopback stub). */
  baseUrl: string | undefined;
  /**
   * `BROKER_LOGIN_URL`: origin of the broker's browser login page instead of the broker's own
   * (Kite `https://kite.zerodha.com`, Upstox `https://api.upstox.com`; tests use a loopback stub).
   */
  loginUrl: string | undefined;
  /**
   * `BROKER_TIMEOUT_MS` (default 10000): a broker call slower than this answers 504, to within
   * about a second (undici's headers timeout runs on its coarse timers, ticks of ~0.5 s).
   */
  timeoutMs: number;
}

/** A configuration problem: names each variable and the reason, and stops start-up. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * The process's environment, for what hands it on whole: the command line's I/O (src/cli/io.ts),
 * whose commands read their configuration through {@link loadConfig} like `serve`. The one read
 * of `process.env` outside `loadConfig`'s default.
 */
export function processEnvironment(): Env {
  return process.env;
}

/**
 * Builds the configuration from `env` (normally `process.env`) and an optional `.env` file in
 * `cwd`; variables in `env` win over the file. Every bad value is reported at once.
 */
export function loadConfig(
  env: Env = process.env,
  opts: { cwd?: string; envFile?: string | false } = {},
): Config {
  const cwd = opts.cwd ?? process.cwd();
  const fileVars = readEnvFile(opts.envFile === false ? undefined : (opts.envFile ?? join(cwd, '.env')));
  const get = (name: string): string | undefined => {
    const v = env[name] ?? fileVars[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const problems: string[] = [];
  const check = <T>(name: string, fallback: T, parse: (raw: string) => T): T => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    try {
      return parse(raw);
    } catch (err) {
      problems.push(`${name}: ${(err as Error).message}`);
      return fallback;
    }
  };

  const host = check('HOST', '127.0.0.1', parseHost);
  const port = check('PORT', 5000, (raw) => parseInteger(raw, 1, 65535));
  const instanceId = check('INSTANCE_ID', `${hostname()}:${port}`, (raw) => {
    if (!/^[A-Za-z0-9._:@-]{1,64}$/.test(raw))
      throw new Error('must be 1-64 letters, digits or . _ : @ - characters');
    return raw;
  });
  const dataDir = resolve(
    cwd,
    check('DATA_DIR', './data', (raw) => raw),
  );
  const databaseUrl = check('DATABASE_URL', undefined, parseDatabaseUrl);
  const redisUrl = check('REDIS_URL', undefined, (raw) => parseUrl(raw, ['redis:', 'rediss:']));
  const redisPrefix = check('REDIS_PREFIX', defaultRedisPrefix(databaseUrl, dataDir), (raw) => {
    if (!/^[A-Za-z0-9._:-]{1,64}$/.test(raw))
      throw new Error('must be 1-64 letters, digits or . _ : - characters');
    return raw;
  });
  const hostServer = check('HOST_SERVER', `http://127.0.0.1:${port}`, (raw) =>
    parseUrl(raw, ['http:', 'https:']).replace(/\/+$/, ''),
  );
  const config: Config = {
    host,
    port,
    instanceId,
    dataDir,
    databaseUrl,
    redisUrl,
    redisPrefix,
    appKey: check('APP_KEY', undefined, (raw) => parseSecret(raw)),
    apiKeyPepper: check('API_KEY_PEPPER', undefined, (raw) => parseSecret(raw)),
    trustProxyHeaders: check('TRUST_PROXY_HEADERS', false, parseBoolean),
    apiRateLimit: check('API_RATE_LIMIT', undefined, parseRateRules),
    orderRateLimit: check('ORDER_RATE_LIMIT', parseRateRules('10 per second'), parseRateRules),
    smartOrderRateLimit: check('SMART_ORDER_RATE_LIMIT', parseRateRules('2 per second'), parseRateRules),
    loginRateLimit: check('LOGIN_RATE_LIMIT', parseRateRules('5 per minute;25 per hour'), parseRateRules),
    resetRateLimit: check('RESET_RATE_LIMIT', parseRateRules('15 per hour'), parseRateRules),
    webhookRateLimit: check('WEBHOOK_RATE_LIMIT', parseRateRules('10 per second'), parseRateRules),
    greeksRateLimit: check('GREEKS_RATE_LIMIT', parseRateRules('30 per minute'), parseRateRules),
    hostServer,
    secureCookies: hostServer.startsWith('https:'),
    tunnelAllow: check('TUNNEL_ALLOW', false, (raw) => raw.toLowerCase() === 'true'),
    ngrokAuthtoken: check('NGROK_AUTHTOKEN', undefined, (raw) => raw),
    logLevel: check('LOG_LEVEL', 'info', parseLogLevel),
    logFormat: check('LOG_FORMAT', 'auto' as LogFormat, parseLogFormat),
    sessionIdleMs: check('SESSION_IDLE_MINUTES', 480, (raw) => parseInteger(raw, 1, 10_080)) * 60_000,
    sessionMaxMs: check('SESSION_MAX_HOURS', 24, (raw) => parseInteger(raw, 1, 720)) * 3_600_000,
    serviceName: 'algodesk',
    disableBanCheck: check('UNSAFE_DISABLE_BAN_CHECK', false, parseBoolean),
    trafficRetentionDays: check('TRAFFIC_RETENTION_DAYS', 30, (raw) => parseInteger(raw, 1, 3650)),
    errorLogRetention: {
      maxAgeDays: check('ERROR_LOG_RETENTION_DAYS', 30, (raw) => parseInteger(raw, 1, 3650)),
      maxRows: check('ERROR_LOG_MAX_ROWS', 10_000, (raw) => parseInteger(raw, 100, 10_000_000)),
    },
    masterContractBroker: check('MASTER_CONTRACT_BROKER', undefined, (raw) => {
      if (!isBroker(raw.toLowerCase())) throw new Error(`must be one of ${BROKERS.join(', ')}`);
      return raw.toLowerCase();
    }),
    masterContractBaseUrl: check('MASTER_CONTRACT_BASE_URL', undefined, (raw) =>
      parseUrl(raw, ['http:', 'https:']).replace(/\/+$/, ''),
    ),
    instrumentIndex: check('INSTRUMENT_INDEX', true, parseBoolean),
    sandbox: {
      startingFunds: check('SANDBOX_STARTING_FUNDS', 100_000_000_000, parseStartingFunds),
      leverage: check('SANDBOX_LEVERAGE', { ...DEFAULT_LEVERAGE }, parseLeverage),
      squareOff: check('SANDBOX_SQUARE_OFF', { ...DEFAULT_SQUARE_OFF }, parseSquareOff),
      resetDay: check('SANDBOX_RESET_DAY', 'sunday', parseResetDay),
      resetTime: check('SANDBOX_RESET_TIME', '00:00', parseHhmm),
      maxQuoteAgeMs: check('SANDBOX_MAX_QUOTE_AGE_SECONDS', 60, (raw) => parseInteger(raw, 1, 86_400)) * 1000,
      priceSource: check('SANDBOX_PRICE_SOURCE', 'auto' as const, parsePriceSource),
      scriptFile: check('SANDBOX_SCRIPT_FILE', undefined, (raw) => resolve(cwd, raw)),
      quotePollMs: check('SANDBOX_QUOTE_POLL_MS', 1000, (raw) => parseInteger(raw, 100, 60_000)),
      ledgerCheckMinutes: check('SANDBOX_LEDGER_CHECK_MINUTES', 60, (raw) => parseInteger(raw, 0, 1440)),
      brokerage: check('SANDBOX_BROKERAGE', { ...DEFAULT_BROKERAGE_PLAN }, parseBrokeragePlan),
      sessions: check('SANDBOX_SESSIONS', 'enforce' as const, parseSessions),
      charges: check('SANDBOX_CHARGES', 'book' as const, parseChargesSetting),
      fnoMargin: check('SANDBOX_FNO_MARGIN', DEFAULT_FNO_MARGIN, parseFnoMargin),
    },
    feed: {
      host: check('WEBSOCKET_HOST', '127.0.0.1', parseHost),
      port: check('WEBSOCKET_PORT', 8765, (raw) => parseInteger(raw, 0, 65535)),
      url: check('WEBSOCKET_URL', undefined, parseWebsocketUrl),
      maxConnections: check('FEED_MAX_CONNECTIONS', 1000, (raw) => parseInteger(raw, 1, 100_000)),
      maxSubscriptionsPerSocket: check('FEED_MAX_SUBSCRIPTIONS_PER_SOCKET', 1000, (raw) =>
        parseInteger(raw, 1, 10_000),
      ),
      connectRate: check('FEED_CONNECT_RATE_LIMIT', parseRateRules('30 per minute'), parseRateRules),
      pollMs: check('FEED_POLL_MS', 1000, (raw) => parseInteger(raw, 100, 60_000)),
      brokerStreamUrl: check('BROKER_FEED_URL', undefined, parseWebsocketUrl),
      staleMs: check('FEED_STALE_SECONDS', 30, (raw) => parseInteger(raw, 5, 3600)) * 1000,
    },
    telegramApiBaseUrl: check('TELEGRAM_API_BASE_URL', undefined, (raw) =>
      parseUrl(raw, ['http:', 'https:']).replace(/\/+$/, ''),
    ),
    whatsappApiBaseUrl: check('WHATSAPP_API_BASE_URL', undefined, (raw) =>
      parseUrl(raw, ['http:', 'https:']).replace(/\/+$/, ''),
    ),
    metricsToken: check('METRICS_TOKEN', undefined, parseMetricsToken),
    broker: {
      name: check('BROKER_NAME', undefined, (raw) => {
        if (!isBroker(raw.toLowerCase())) throw new Error(`must be one of ${BROKERS.join(', ')}`);
        return raw.toLowerCase();
      }),
      apiKey: check('BROKER_API_KEY', undefined, (raw) => raw),
      apiSecret: check('BROKER_API_SECRET', undefined, (raw) => raw),
      redirectUrl: check('BROKER_REDIRECT_URL', undefined, (raw) => parseUrl(raw, ['http:', 'https:'])),
      timeoutMs: check('BROKER_TIMEOUT_MS', 10_000, (raw) => parseInteger(raw, 100, 120_000)),
      baseUrl: check('BROKER_API_BASE_URL', undefined, (raw) =>
        parseUrl(raw, ['http:', 'https:']).replace(/\/+$/, ''),
      ),
      loginUrl: check('BROKER_LOGIN_URL', undefined, (raw) =>
        parseUrl(raw, ['http:', 'https:']).replace(/\/+$/, ''),
      ),
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function readEnvFile(path: string | undefined): Record<string, string> {
  if (path === undefined || !existsSync(path)) return {};
  return parseDotenv(readFileSync(path));
}

/**
 * `algodesk-<8 hex>` of the database's identity: the PostgreSQL server, port, database and
 * options without user or password, or the SQLite file's absolute path.
 */
function defaultRedisPrefix(databaseUrl: string | undefined, dataDir: string): string {
  let identity = join(dataDir, 'algodesk.db');
  if (databaseUrl) {
    const u = new URL(databaseUrl);
    identity = `${u.hostname}:${u.port || '5432'}${u.pathname}${u.search}`;
  }
  return `algodesk-${createHash('sha256').update(identity).digest('hex').slice(0, 8)}`;
}

/**
 * Sample values published in documentation (ours and OpenAlgo's); an install running on one of
 * them has no secret at all, so it is reported as weak.
 */
const PUBLISHED_PLACEHOLDERS = new Set([
  'change-me-to-64-random-hex-characters',
  'OPENALGO_PLACEHOLDER_APP_KEY_REGENERATE_BEFORE_USE',
  'OPENALGO_PLACEHOLDER_API_KEY_PEPPER_REGENERATE_BEFORE_USE',
  '3daa0403ce2501ee7432b75bf100048e3cf510d9d7e1ee2ecf27bc01ec4a4e97',
  'a25d94718479b170c16278e321ea6c989358bf499a658fd20c90033cef8ce772',
]);

/** True when `value` is install-specific: not a published sample and long enough to be random. */
export function isStrongSecret(value: string): boolean {
  return !PUBLISHED_PLACEHOLDERS.has(value) && !/placeholder|change-?me/i.test(value) && value.length >= 32;
}

/** Configuration with both install secrets present. */
export interface ResolvedConfig extends Config {
  appKey: string;
  apiKeyPepper: string;
}

/**
 * Fills in `APP_KEY` and `API_KEY_PEPPER` when they were not given: generated once, kept in
 * `DATA_DIR/install-secrets.json` with mode 0600, and reused on every later start. Returns the
 * warnings to log (generated secrets, weak secrets); never the values.
 */
export function ensureInstallSecrets(config: Config): { config: ResolvedConfig; warnings: string[] } {
  const warnings: string[] = [];
  let appKey = config.appKey;
  let apiKeyPepper = config.apiKeyPepper;
  if (appKey === undefined || apiKeyPepper === undefined) {
    const file = join(config.dataDir, 'install-secrets.json');
    mkdirSync(config.dataDir, { recursive: true });
    let stored: { app_key?: string; api_key_pepper?: string } = {};
    if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as typeof stored;
    const generated: string[] = [];
    if (appKey === undefined && stored.app_key === undefined) {
      stored.app_key = randomBytes(32).toString('hex');
      generated.push('APP_KEY');
    }
    if (apiKeyPepper === undefined && stored.api_key_pepper === undefined) {
      stored.api_key_pepper = randomBytes(32).toString('hex');
      generated.push('API_KEY_PEPPER');
    }
    if (generated.length > 0) {
      writeFileSync(file, JSON.stringify(stored, null, 2) + '\n', { mode: 0o600 });
      warnings.push(
        `${generated.join(' and ')} not set: generated and stored in ${file} (mode 0600). ` +
          'Back this file up: without it stored secrets cannot be decrypted and API keys stop working.',
      );
    }
    chmodSync(file, 0o600);
    appKey ??= stored.app_key!;
    apiKeyPepper ??= stored.api_key_pepper!;
  }
  if (!isStrongSecret(appKey))
    warnings.push('APP_KEY is a published sample value or too short: set a random one');
  if (!isStrongSecret(apiKeyPepper))
    warnings.push('API_KEY_PEPPER is a published sample value or too short: set a random one');
  return { config: { ...config, appKey, apiKeyPepper }, warnings };
}

/** Path of the SQLite database file when no `DATABASE_URL` is set. */
/** Where the configured database is, as the banner and the command line name it (no password). */
export function describeDatabase(config: Config): string {
  return config.databaseUrl
    ? `PostgreSQL at ${printableUrl(config.databaseUrl)}`
    : `SQLite at ${sqliteFile(config)}`;
}

export function sqliteFile(config: Config): string {
  return isAbsolute(config.dataDir)
    ? join(config.dataDir, 'algodesk.db')
    : resolve(config.dataDir, 'algodesk.db');
}
