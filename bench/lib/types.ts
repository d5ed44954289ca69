/**
 * The contract between the shared runner (`bench/lib/runner.ts`) and one benchmark
 * (`bench/benches/<name>.ts`).
 */

/** The one request every connection sends, to the server and to the baseline alike. */
export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute path, with the query string if any (`/api/v1/ping`). */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Bodies every connection sends in turn, instead of {@link body} (e.g. a BUY then a SELL, so
   * that an order bench neither runs out of funds nor builds a position). The probe sends the
   * first one.
   */
  bodies?: string[];
  /**
   * Paths the connections take, one each (connection i the i-th, round the list), instead of
   * {@link path} (e.g. one strategy's webhook per connection, so that each connection's signals
   * alternate on a strategy of its own). {@link path} is the first; the probe sends it.
   */
  paths?: string[];
}

/** What the bare `node:http` baseline answers to {@link BenchRequest}: the server's own reply. */
export interface BaselineResponse {
  status: number;
  contentType: string;
  body: string;
}

export interface BenchPlan {
  request: BenchRequest;
  /**
   * The expected answer; the bare `node:http` baseline serves it unless {@link baselineServerEnv}
   * is set. When omitted, the baseline serves the server's own answer to {@link request}, captured
   * once the server is ready (for answers that depend on the data, e.g. a search).
   */
  baseline?: BaselineResponse;
  /**
   * When set, the baseline is a second algodesk server on the same DATA_DIR with these extra
   * environment variables (e.g. a feature switched off), so the ratio isolates that feature.
   */
  baselineServerEnv?: Record<string, string>;
  /**
   * Applied to the server's and the baseline's answers before the probe compares them, for an
   * answer that differs per request (a new order id): e.g. replace the id with a fixed one.
   */
  normalize?(body: string): string;
  /** Extra environment variables of the server under test (e.g. `INSTRUMENT_INDEX=false`). */
  serverEnv?: Record<string, string>;
  /**
   * Called once each algodesk server listens (the server under test and, with
   * {@link baselineServerEnv}, the baseline server), before the baseline's answer is captured and
   * before any request: resolves once that server is ready to be measured (e.g. a background
   * index build has finished), rejects to fail the run. Without it, listening means ready.
   */
  ready?(server: ServerHandle): Promise<void>;
  /**
   * Called once the measured rounds are over and the server under test has been stopped (its
   * log is complete, its queues drained, its database quiet), before the report: extra lines
   * printed under the table, extra verdicts printed (and written) with the targets, extra JSON
   * fields. For what the load generator cannot see (events dropped, rows written).
   */
  afterRun?(server: ServerHandle): Promise<AfterRunReport>;
}

/** What {@link BenchPlan.afterRun} adds to the report. */
export interface AfterRunReport {
  lines?: string[];
  targets?: ({ label: string } & Verdict)[];
  json?: Record<string, unknown>;
}

/** A running algodesk server, as {@link BenchPlan.ready} sees it. */
export interface ServerHandle {
  label: string;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Everything the server has logged so far (stdout and stderr, pino JSON lines mostly). */
  log(): string;
  /** Whether the process has exited. */
  exited(): boolean;
}

/** Handed to {@link Bench.setup}, which runs before the server starts. */
export interface SetupContext {
  /** The DATA_DIR the server will use (SQLite database and generated secrets). */
  dataDir: string;
  /** The connections the load will open (`--connections`, or the default). */
  connections: number;
  /**
   * Runs `node dist/src/cli.js <args>` against {@link dataDir} with the server's environment;
   * resolves to its stdout without the trailing newline, rejects with its stderr on failure.
   */
  cli(...args: string[]): Promise<string>;
}

/** The figures of one run, rounded exactly as printed; targets are judged on these. */
export interface Figures {
  /** Server requests/s divided by baseline requests/s. */
  ratio: number;
  rps: number;
  baselineRps: number;
  p50Ms: number;
  baselineP50Ms: number;
  p99Ms: number;
  baselineP99Ms: number;
}

export interface Verdict {
  /** null: the target does not apply to this run (e.g. it is defined at another connection count). */
  met: boolean | null;
  /** The measured value, worded for the report (`0.72`, `1.35× baseline`). */
  actual: string;
}

/** An informational goal: a missed target is reported as MISSED and never fails the run. */
export interface Target {
  label: string;
  evaluate(figures: Figures, run: RunConditions): Verdict;
}

/** How the run was made, for targets defined under given conditions. */
export interface RunConditions {
  connections: number;
  /** What the server was measured against (`--baseline`). */
  baseline: 'node' | 'fastify' | 'same-writes';
  database: 'sqlite' | 'postgres';
}

export interface Bench {
  /** One line, shown in the list of benches. */
  description: string;
  /** Prepares the data (users, keys, …) and returns the request to measure. */
  setup(ctx: SetupContext): Promise<BenchPlan>;
  targets: Target[];
  /** Connections when `--connections` is not given (default 50), e.g. 1 for a latency bench. */
  connections?: number;
  /** When set, a run not finished after this many seconds is stopped and fails. */
  deadlineS?: number;
}
