/**
 * TypeBox schemas of the observability routes. Responses are serialised through them, so a
 * field that is not declared here (a token that slipped into an object, say) cannot leave.
 */
import { Type, type TSchema } from 'typebox';
import { CLIENT_LEVELS, ERROR_LEVELS } from './error-record.js';
import { ERROR_LOG_LIMITS } from './error-log.service.js';

const Success = Type.Literal('success');
const Str = Type.String();
const Int = Type.Integer();
const Num = Type.Number();
const Bool = Type.Boolean();
const N = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

// ---- Requests ----

/** Level filter: that level and the more severe ones. */
const LevelFilter = Type.Enum([...ERROR_LEVELS], {
  description: 'warn, error or fatal: that level and above',
});

export const ErrorsQuery = Type.Object({
  /** Entries returned, newest first; values outside 1..500 are clamped. Default 100. */
  limit: Type.Optional(
    Type.Integer({ description: `clamped to ${ERROR_LOG_LIMITS.listMin}..${ERROR_LOG_LIMITS.listMax}` }),
  ),
  level: Type.Optional(LevelFilter),
  /** `server` or `client`. */
  origin: Type.Optional(Type.Enum(['server', 'client'])),
  /** Case-insensitive substring of message, module, exception or request path. */
  q: Type.Optional(Type.String({ maxLength: 200 })),
});

export const GroupsQuery = Type.Object({
  /** Groups returned, most recently seen first; clamped to 1..200. Default 50. */
  limit: Type.Optional(Type.Integer()),
  level: Type.Optional(LevelFilter),
});

/**
 * A browser's error report. Long fields are never refused: they are cut to the store's caps
 * (message 2,000 characters, stack 16,000, component stack 8,000, URL 2,048, user agent 512,
 * `CAPS` in error-record.ts); what bounds the input is the body limit,
 * {@link CLIENT_REPORT_BODY_LIMIT} bytes (413 beyond). Unknown fields are ignored.
 */
export const ClientErrorBody = Type.Object({
  level: Type.Optional(Type.Enum(Object.keys(CLIENT_LEVELS))),
  message: Type.String({ minLength: 1 }),
  stack: Type.Optional(N(Str)),
  url: Type.Optional(N(Str)),
  component_stack: Type.Optional(N(Str)),
  user_agent: Type.Optional(N(Str)),
});

/** Largest client report body (bytes); larger ones are refused with 413. */
export const CLIENT_REPORT_BODY_LIMIT = 256 * 1024;

export const ReportQuery = Type.Object({
  /** `md` (default) or `txt`. */
  format: Type.Optional(Type.Enum(['md', 'txt'])),
});

// ---- Responses ----

/** The report file itself (Markdown or plain text), sent as is. */
export const ReportBody = Type.String();

const ErrorEntry = Type.Object({
  id: Int,
  time: Str,
  level: Str,
  origin: Str,
  module: N(Str),
  message: Str,
  exception: N(Str),
  stack: N(Str),
  request: Type.Object({ id: N(Str), method: N(Str), path: N(Str) }),
  user_id: N(Int),
  url: N(Str),
  user_agent: N(Str),
  component_stack: N(Str),
  context: N(Str),
  fingerprint: Str,
});

export const ErrorsResponse = Type.Object({
  status: Success,
  data: Type.Object({ limit: Int, count: Int, entries: Type.Array(ErrorEntry) }),
});

export const ClientErrorResponse = Type.Object({
  status: Success,
  message: Str,
  data: Type.Object({ level: Str, fingerprint: Str }),
});

const Counts = (keys: readonly string[]) => Type.Object(Object.fromEntries(keys.map((k) => [k, Int])));

export const StatsResponse = Type.Object({
  status: Success,
  data: Type.Object({
    total: Int,
    by_level: Counts(ERROR_LEVELS),
    by_origin: Counts(['server', 'client']),
    last_hour: Int,
    last_24h: Int,
    dropped: Int,
    pending: Int,
    retention: Type.Object({ max_rows: Int, max_age_days: Int }),
  }),
});

export const GroupsResponse = Type.Object({
  status: Success,
  data: Type.Object({
    limit: Int,
    groups: Type.Array(
      Type.Object({
        fingerprint: Str,
        level: Str,
        module: N(Str),
        pattern: Str,
        count: Int,
        first_seen: Str,
        last_seen: Str,
        sample: ErrorEntry,
      }),
    ),
  }),
});

const Bytes = N(Num);

export const SystemSnapshotSchema = Type.Object({
  mode: Type.Enum(['Live', 'Analyze']),
  host: Type.Object({
    os: Str,
    platform: Str,
    release: Str,
    machine: Str,
    hostname: Str,
    distro: N(Str),
    container: Bool,
    wsl: Bool,
    single_board: Bool,
    board_model: N(Str),
    terminal_emulator: Bool,
  }),
  runtime: Type.Object({
    node: Str,
    pid: Int,
    uptime_s: Int,
    memory: Type.Object({ rss_bytes: Num, heap_used_bytes: Num, heap_total_bytes: Num, external_bytes: Num }),
    event_loop_delay: Type.Object({ window_s: Int, mean_ms: Num, p50_ms: Num, p99_ms: Num, max_ms: Num }),
    event_bus: Type.Object({
      pending: Int,
      dropped: Int,
      delivered: Int,
      running: Int,
      workers: Int,
      queue_limit: Int,
    }),
    instrument_index: Type.Object({ enabled: Bool, ready: Bool, instruments: Int }),
  }),
  hardware: Type.Object({
    cpu_model: N(Str),
    cpu_count: Int,
    load_average: Type.Array(Num),
    memory: Type.Object({ total_bytes: Num, free_bytes: Num }),
    disk: Type.Object({ path: Str, total_bytes: Bytes, free_bytes: Bytes, available_bytes: Bytes }),
  }),
  build: Type.Object({ version: N(Str), git_commit: N(Str), build_time: N(Str), source: Str }),
  config: Type.Object({
    host: Str,
    port: Int,
    data_dir: Str,
    host_server: N(Str),
    database: Str,
    database_host: N(Str),
    redis: N(Str),
    trust_proxy_headers: Bool,
    log_level: Str,
    session_idle_minutes: Int,
    session_max_hours: Int,
    rate_limits: Type.Object({ api: N(Str), order: Str, login: Str, reset: Str, webhook: Str }),
    traffic_retention_days: Int,
    instrument_index: Bool,
    master_contract_broker: N(Str),
    ban_check_disabled: Bool,
    sandbox_price_source: Str,
    secrets_present: Type.Object({
      app_key: Bool,
      api_key_pepper: Bool,
      broker_api_key: Bool,
      broker_api_secret: Bool,
      market_data_broker_api_key: Bool,
      market_data_broker_api_secret: Bool,
      broker_redirect_url: Bool,
      smtp_password: Bool,
      telegram_bot_token: Bool,
    }),
    secret_strength: Type.Object({ app_key: Bool, api_key_pepper: Bool, salt: Bool }),
  }),
  brokers: Type.Object({
    configured: N(Str),
    available: Type.Array(Str),
    api_base_url: N(Str),
    timeout_ms: Int,
    active_session: N(Type.Object({ broker: Str, expires_at: N(Str) })),
  }),
  databases: Type.Array(
    Type.Object({
      name: Str,
      kind: Str,
      file: N(Str),
      present: Bool,
      size_bytes: Bytes,
      modified: N(Str),
    }),
  ),
  time: Type.Object({ server_time: Str, epoch_ms: Num, zone: Str, utc_offset_minutes: Int, ist: Str }),
});

export const SystemResponse = Type.Object({ status: Success, data: SystemSnapshotSchema });

export const DiagnosticsResponse = Type.Object({
  status: Success,
  data: Type.Object({
    ok: Bool,
    ms: Num,
    timeout_ms: Int,
    probes: Type.Array(
      Type.Object({ name: Str, target: N(Str), ok: Bool, skipped: Bool, ms: Num, detail: Str }),
    ),
  }),
});
