import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { BaselineResponse, BenchRequest } from './types.js';

const LIB_DIR = dirname(fileURLToPath(import.meta.url));
const CLI = resolve(LIB_DIR, '../../dist/src/cli.js');
/** The baseline servers by `--baseline` (bench/README.md, "Which baseline"). */
const BASELINE_SERVERS = {
  node: join(LIB_DIR, 'baseline-server.mjs'),
  fastify: join(LIB_DIR, 'baseline-fastify.mjs'),
} as const;
export type BaselineKind = keyof typeof BASELINE_SERVERS;

/** The baseline of this run: `BENCH_BASELINE` (set by run.ts from `--baseline`), default `node`. */
export function baselineKind(): BaselineKind {
  return process.env.BENCH_BASELINE === 'fastify' ? 'fastify' : 'node';
}

const READY_TIMEOUT_MS = 20_000;
/** Bound of one CLI run; a 200k-row contract import takes 15-20 s on a loaded 2-core machine. */
const CLI_TIMEOUT_MS = 120_000;
/** The server drains in-flight requests on SIGTERM; past this it is killed. */
const TERM_GRACE_MS = 5_000;
const KILL_GRACE_MS = 2_000;

/** A child process of the bench with its log file. */
export interface Child {
  label: string;
  port: number;
  logFile: string;
  process: ChildProcess;
}

/**
 * One bench's scratch space: a temp directory holding the server's DATA_DIR and the logs of
 * every child. {@link dispose} stops the children and removes the directory;
 * {@link abortSync} does the same from a signal handler.
 */
export class Workspace {
  readonly dataDir: string;
  private readonly children: Child[] = [];
  /** Schemas of {@link migratedSchema}, dropped with the run's. */
  private readonly extraSchemas: string[] = [];

  private constructor(
    readonly dir: string,
    /** PostgreSQL (`--db postgres`): the server's URL, on a schema of this run's own. */
    private readonly pgRun?: { baseUrl: string; schema: string; url: string },
  ) {
    this.dataDir = join(dir, 'data');
  }

  /**
   * A temp directory and, when `BENCH_DATABASE_URL` is set (`--db postgres`), an empty
   * PostgreSQL schema of its own that every algodesk process of the run uses (dropped by
   * {@link dispose}); otherwise the embedded SQLite under the temp directory.
   */
  static async create(): Promise<Workspace> {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" (npm run bench does it)`);
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-bench-'));
    const baseUrl = process.env.BENCH_DATABASE_URL;
    if (!baseUrl) return new Workspace(dir);
    const schema = `bench_${randomBytes(6).toString('hex')}`;
    await withPg(baseUrl, (c) => c.query(`create schema "${schema}"`));
    const url = pgUrlOf(baseUrl, schema);
    runPgUrl = url;
    return new Workspace(dir, { baseUrl, schema, url });
  }

  /** `sqlite` or `postgres`: where this run's data lives. */
  get database(): 'sqlite' | 'postgres' {
    return this.pgRun ? 'postgres' : 'sqlite';
  }

  /** With `--db postgres`: the database's URL (no search path) and the server's schema. */
  get postgres(): { baseUrl: string; schema: string } | undefined {
    return this.pgRun && { baseUrl: this.pgRun.baseUrl, schema: this.pgRun.schema };
  }

  /**
   * With `--db postgres`: a second schema of this run's own, `<run schema>_<suffix>`, migrated by
   * the CLI (`algodesk migrate`, so the app's tables, indexes, sequences and foreign keys) and
   * empty of the server's rows; dropped by {@link dispose} with the run's schema.
   */
  /**
   * A copy of the server's SQLite database in the workspace (`VACUUM INTO`, a consistent read: the
   * app's migrated schema and the server's rows), for a baseline that must never write a row the
   * server reads. Returns the copy's path.
   */
  copyServerDatabase(name: string): string {
    const file = join(this.dir, name);
    const db = new SQLite(join(this.dataDir, 'algodesk.db'), { readonly: true, fileMustExist: true });
    try {
      db.prepare('vacuum into ?').run(file);
    } finally {
      db.close();
    }
    return file;
  }

  async migratedSchema(suffix: string): Promise<string> {
    const run = this.pgRun;
    if (!run) throw new Error('a second schema needs --db postgres');
    const schema = `${run.schema}_${suffix}`;
    await withPg(run.baseUrl, (c) => c.query(`create schema "${schema}"`));
    this.extraSchemas.push(schema);
    await this.cli(['migrate'], undefined, { DATABASE_URL: pgUrlOf(run.baseUrl, schema) });
    return schema;
  }

  /**
   * The environment of every algodesk process: built from scratch rather than inherited, so
   * that nothing from the caller's shell (DATABASE_URL, REDIS_URL, …) reaches the bench; the
   * processes also run in the temp directory so that no ./.env is read. Rate limits are set
   * far above what one machine can send so that they never answer 429.
   */
  private env(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      DATA_DIR: this.dataDir,
      LOG_LEVEL: 'info',
      API_RATE_LIMIT: '100000 per second',
      ORDER_RATE_LIMIT: '100000 per second',
      LOGIN_RATE_LIMIT: '100000 per second',
      WEBHOOK_RATE_LIMIT: '100000 per second',
      ...(this.pgRun ? { DATABASE_URL: this.pgRun.url } : {}),
      // The allocation profiler's settings (lib/alloc-profile.mjs), when it is loaded.
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('ALLOC_PROFILE_'))),
    };
  }

  /**
   * Runs the CLI against {@link dataDir}; `input`, when given, is written to its stdin; `env`
   * overrides the environment's variables (e.g. another `DATABASE_URL`).
   */
  cli(args: string[], input?: string, env: Record<string, string> = {}): Promise<string> {
    return new Promise((resolvePromise, reject) => {
      const child = execFile(
        process.execPath,
        [CLI, ...args],
        { cwd: this.dir, env: { ...this.env(), ...env }, timeout: CLI_TIMEOUT_MS },
        (err, stdout, stderr) => {
          if (err)
            reject(new Error(`cli ${args.slice(0, 2).join(' ')} failed: ${stderr.trim() || err.message}`));
          else resolvePromise(stdout.replace(/\r?\n$/, ''));
        },
      );
      if (input !== undefined) child.stdin?.end(input);
    });
  }

  /** Starts `algodesk serve` on a free loopback port and waits until it listens. */
  async startServer(label = 'server', extraEnv: Record<string, string> = {}): Promise<Child> {
    const port = await this.freePort();
    const env = { ...this.env(), ...extraEnv, HOST: '127.0.0.1', PORT: String(port) };
    // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"): node flags for the
    // server only, to profile what a bench measures.
    const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    return this.start(label, port, [...nodeArgs, CLI, 'serve'], env, `algodesk is running at`);
  }

  /** Starts the baseline ({@link baselineKind}: bare `node:http` or bare Fastify) answering `request` with `response`. */
  async startBaseline(request: BenchRequest, response: BaselineResponse): Promise<Child> {
    const port = await this.freePort();
    const spec = join(this.dir, 'baseline.json');
    // `paths`: a bench that gives each connection a path of its own (webhook-signal's strategies).
    const paths = request.paths ?? [request.path];
    writeFileSync(spec, JSON.stringify({ port, method: request.method, paths, ...response }));
    const env = { PATH: process.env.PATH };
    const server = BASELINE_SERVERS[baselineKind()];
    return this.start('baseline', port, [server, spec], env, `baseline is running at`);
  }

  /**
   * Starts a bench's own baseline script (`node <script> <spec.json>`, plain JavaScript) with
   * `spec` and a free loopback `port` written to the spec file, under a scratch environment
   * (`PATH` only); ready when its log shows `<readyText> http://127.0.0.1:<port>`.
   */
  async startScript(
    label: string,
    script: string,
    spec: Record<string, unknown>,
    readyText: string,
  ): Promise<Child> {
    const port = await this.freePort();
    const specFile = join(this.dir, `${label}.json`);
    writeFileSync(specFile, JSON.stringify({ ...spec, port }));
    // BENCH_SCRIPT_NODE_ARGS: node flags for the script, as BENCH_SERVER_NODE_ARGS for the server.
    const nodeArgs = (process.env.BENCH_SCRIPT_NODE_ARGS ?? '').split(' ').filter(Boolean);
    return this.start(label, port, [...nodeArgs, script, specFile], { PATH: process.env.PATH }, readyText);
  }

  /** Everything a child has logged so far. */
  log(child: Child): string {
    return existsSync(child.logFile) ? readFileSync(child.logFile, 'utf8') : '';
  }

  /** Stops one child (SIGTERM, then SIGKILL past a grace period); {@link dispose} stops the rest. */
  async stop(child: Child): Promise<void> {
    await stop(child.process);
  }

  /** The last lines of a child's log, for error reports. */
  logTail(child: Child, lines = 20): string {
    return this.log(child).trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** Stops every child (SIGTERM, then SIGKILL past a grace period) and removes the directory. */
  async dispose(): Promise<void> {
    await Promise.all(this.children.map((c) => stop(c.process)));
    // BENCH_KEEP_LOGS=<dir>: the children's logs are copied there before the directory goes.
    const keep = process.env.BENCH_KEEP_LOGS;
    if (keep) {
      mkdirSync(keep, { recursive: true });
      for (const c of this.children)
        if (existsSync(c.logFile)) copyFileSync(c.logFile, join(keep, `${c.label}.log`));
    }
    rmSync(this.dir, { recursive: true, force: true });
    const run = this.pgRun;
    if (run)
      for (const schema of [run.schema, ...this.extraSchemas])
        await withPg(run.baseUrl, (c) => c.query(`drop schema if exists "${schema}" cascade`));
  }

  /** For signal handlers, which cannot wait: kills every child at once and removes the directory. */
  abortSync(): void {
    for (const c of this.children) if (c.process.exitCode === null) c.process.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async start(
    label: string,
    port: number,
    args: string[],
    env: NodeJS.ProcessEnv,
    readyText: string,
  ): Promise<Child> {
    const logFile = join(this.dir, `${label}.log`);
    const fd = openSync(logFile, 'a');
    const child: Child = {
      label,
      port,
      logFile,
      process: spawn(process.execPath, args, { cwd: this.dir, env, stdio: ['ignore', fd, fd] }),
    };
    closeSync(fd);
    this.children.push(child);

    // Waiting for the ready line (rather than an open port) proves that it is our process
    // that listens, not whatever took the port between freePort() and the child's listen().
    const ready = `${readyText} http://127.0.0.1:${port}`;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!readFileSync(logFile, 'utf8').includes(ready)) {
      if (child.process.exitCode !== null || child.process.signalCode !== null)
        throw new Error(`${label} exited during start-up:\n${this.logTail(child)}`);
      if (Date.now() > deadline)
        throw new Error(`${label} not ready after ${READY_TIMEOUT_MS} ms:\n${this.logTail(child)}`);
      await sleep(50);
    }
    return child;
  }

  /** A loopback port nobody listens on: bind port 0, read the port, close. */
  freePort(): Promise<number> {
    return new Promise((resolvePromise, reject) => {
      const probe = createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() =>
          typeof address === 'object' && address !== null
            ? resolvePromise(address.port)
            : reject(new Error('no port assigned')),
        );
      });
    });
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolvePromise) => child.once('exit', () => resolvePromise()));
  child.kill('SIGTERM');
  if (await settlesWithin(exited, TERM_GRACE_MS)) return;
  child.kill('SIGKILL');
  await settlesWithin(exited, KILL_GRACE_MS);
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  const timedOut = sleep(ms, false, { signal: timer.signal }).catch(() => false);
  const result = await Promise.race([promise.then(() => true), timedOut]);
  timer.abort();
  return result;
}

/** Resident memory of a running child in bytes (VmRSS of /proc/<pid>/status; Linux only). */
export function residentBytes(child: Child): number {
  const pid = child.process.pid;
  const file = `/proc/${pid}/status`;
  if (pid === undefined || !existsSync(file))
    throw new Error(`cannot read the memory of ${child.label}: ${file} is missing (Linux only)`);
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(file, 'utf8'));
  if (!match) throw new Error(`no VmRSS line in ${file}`);
  return Number(match[1]) * 1024;
}

/** CPU time a running child has used so far, in ms: all its threads, and its main thread alone. */
export interface CpuTime {
  allMs: number;
  mainMs: number;
}

/** Clock ticks per second of `/proc/<pid>/stat`'s times (`getconf CLK_TCK`: 100 on Linux). */
const CLOCK_TICKS = 100;

/**
 * The child's CPU time (user + system) from `/proc/<pid>/stat` (every thread) and
 * `/proc/<pid>/task/<pid>/stat` (the main thread, where the event loop runs); undefined where
 * there is no `/proc` (not Linux) or the child is gone.
 */
export function cpuTime(child: Child): CpuTime | undefined {
  const pid = child.process.pid;
  if (pid === undefined) return undefined;
  const ms = (file: string): number | undefined => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    // Fields after the command (which may hold spaces), from field 3 on: utime is 14, stime 15.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  };
  const allMs = ms(`/proc/${pid}/stat`);
  const mainMs = ms(`/proc/${pid}/task/${pid}/stat`);
  return allMs === undefined || mainMs === undefined ? undefined : { allMs, mainMs };
}

/** The PostgreSQL URL of this process's run (`--db postgres`), for {@link readRunDatabase}. */
let runPgUrl: string | undefined;

/** A read of the run's database: `?` placeholders; counts come back as numbers on both. */
export type RunQuery = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * Reads what a (stopped) server wrote: its SQLite file under `dataDir`, or with `--db postgres`
 * the run's own schema. For the after-run checks of the benches.
 */
export async function readRunDatabase<T>(dataDir: string, fn: (all: RunQuery) => Promise<T>): Promise<T> {
  if (runPgUrl === undefined) {
    const db = new SQLite(join(dataDir, 'algodesk.db'), { readonly: true, fileMustExist: true });
    try {
      return await fn(
        async (sql, params = []) => db.prepare(sql).all(...params) as Record<string, unknown>[],
      );
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: runPgUrl });
  await client.connect();
  try {
    return await fn(async (sql, params = []) => {
      let n = 0;
      const res = await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      );
      // count(*) is a bigint, which node-postgres hands over as text.
      return res.rows.map((r: Record<string, unknown>) =>
        Object.fromEntries(
          Object.entries(r).map(([k, v]) => [
            k,
            typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v,
          ]),
        ),
      );
    });
  } finally {
    await client.end();
  }
}

/** `baseUrl` with `schema` as its search path (the URL's `options`). */
function pgUrlOf(baseUrl: string, schema: string): string {
  const options = encodeURIComponent(`-c search_path=${schema}`);
  return `${baseUrl}${baseUrl.includes('?') ? '&' : '?'}options=${options}`;
}

/** Runs `fn` on a short-lived PostgreSQL connection. */
export async function withPg(url: string, fn: (c: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}
