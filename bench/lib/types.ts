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
}

/** What the bare `node:http` baseline answers to {@link BenchRequest}: the server's own reply. */
export interface BaselineResponse {
  status: number;
  contentType: string;
  body: string;
}

export interface BenchPlan {
  request: BenchRequest;
  /** The expected answer; the bare `node:http` baseline serves it unless {@link baselineServerEnv} is set. */
  baseline: BaselineResponse;
  /**
   * When set, the baseline is a second algodesk server on the same DATA_DIR with these extra
   * environment variables (e.g. a feature switched off), so the ratio isolates that feature.
   */
  baselineServerEnv?: Record<string, string>;
}

/** Handed to {@link Bench.setup}, which runs before the server starts. */
export interface SetupContext {
  /** The DATA_DIR the server will use (SQLite database and generated secrets). */
  dataDir: string;
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
  met: boolean;
  /** The measured value, worded for the report (`0.72`, `1.35× baseline`). */
  actual: string;
}

/** An informational goal: a missed target is reported as MISSED and never fails the run. */
export interface Target {
  label: string;
  evaluate(figures: Figures): Verdict;
}

export interface Bench {
  /** One line, shown in the list of benches. */
  description: string;
  /** Prepares the data (users, keys, …) and returns the request to measure. */
  setup(ctx: SetupContext): Promise<BenchPlan>;
  targets: Target[];
}
