/**
 * TypeBox schemas of the system routes (snapshot, diagnostics, report). Responses are serialised
 * through them, so a field that is not declared here cannot leave.
 */
import { Type, type TSchema } from 'typebox';

const Success = Type.Literal('success');
const Str = Type.String();
const Int = Type.Integer();
const Num = Type.Number();
const Bool = Type.Boolean();
const N = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ReportQuery = Type.Object({
  /** `md` (default) or `txt`. */
  format: Type.Optional(Type.Enum(['md', 'txt'])),
});

/** The report file itself (Markdown or plain text), sent as is. */
export const ReportBody = Type.String();

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
