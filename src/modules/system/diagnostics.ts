/**
 * `POST /admin/api/system/diagnostics`: the fixed probes — database round trip, the service's own
 * HTTP loopback, `HOST_SERVER`, Redis when configured, a TCP (http) or TLS (https) connect to
 * the active broker's API host, and the sandbox's ledger check over every account. All run in parallel; each is cut at {@link PROBE_TIMEOUT_MS}, so
 * the call returns within that bound whatever a target does (accepts and never answers included).
 * Details name hosts and error codes only, never credentials of a URL.
 */
import { noAnswerWithin, withDeadline } from '../../platform/deadline.js';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { Redis } from 'ioredis';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { safeUrl } from '../../platform/safe-url.js';

/** Longest wait for one probe; the call as a whole returns a little after it. */
export const PROBE_TIMEOUT_MS = 2_500;

export interface ProbeResult {
  name: string;
  /** What was probed (scheme, host, port), null when nothing was. */
  target: string | null;
  ok: boolean;
  /** True when the probe does not apply (no Redis, no broker); `ok` is then false. */
  skipped: boolean;
  ms: number;
  detail: string;
}

type ProbeFn = (signal: AbortSignal) => Promise<string>;

export interface DiagnosticsSources {
  db: Kysely<DB>;
  hostServer: string;
  redisUrl: string | undefined;
  /** The service's own listening address, undefined when it is not listening (tests with inject). */
  loopback(): { host: string; port: number } | undefined;
  /** The active broker and its API origin, undefined when no broker is configured or logged in. */
  brokerTarget(): { broker: string; origin: string } | undefined;
  /**
   * The sandbox's ledger check over every account (docs/rules/sandbox.md#ledger-check): resolves
   * to what it found, rejects (the probe fails) naming the first differences.
   */
  ledger(): Promise<string>;
  timeoutMs?: number;
}

/** Short, credential-free text of a failure. */
function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  const message = (e.cause?.message || e.message || '').replace(/\/\/[^@/\s]*@/g, '//');
  if (!message) return code ?? 'failed';
  return (code && !message.includes(code) ? `${code}: ${message}` : message).slice(0, 300);
}

/** Runs `fn` under a deadline: the signal aborts the probe's own resources at the bound. */
async function timed(
  name: string,
  target: string | null,
  fn: ProbeFn,
  timeoutMs: number,
): Promise<ProbeResult> {
  const started = performance.now();
  const ctl = new AbortController();
  try {
    // The deadline settles before the abort, so it is what is reported, not the probe's own abort.
    const detail = await withDeadline(fn(ctl.signal), timeoutMs, noAnswerWithin(timeoutMs), () =>
      ctl.abort(),
    );
    return { name, target, ok: true, skipped: false, ms: elapsed(started), detail };
  } catch (err) {
    ctl.abort();
    return { name, target, ok: false, skipped: false, ms: elapsed(started), detail: describe(err) };
  }
}

const elapsed = (started: number) => Math.round((performance.now() - started) * 10) / 10;
const skipped = (name: string, detail: string): ProbeResult => ({
  name,
  target: null,
  ok: false,
  skipped: true,
  ms: 0,
  detail,
});

/**
 * Any HTTP answer proves the server is reachable; its status is reported. A connection of its
 * own (no keep-alive pool), destroyed on abort, so a hanging server keeps nothing of ours.
 */
function httpProbe(url: string, signal: AbortSignal): Promise<string> {
  const get = url.startsWith('https:') ? https.get : http.get;
  return new Promise((resolve, reject) => {
    const req = get(
      url,
      { agent: false, signal, headers: { 'user-agent': 'algodesk-diagnostics' } },
      (res) => {
        res.resume();
        req.destroy();
        resolve(`HTTP ${res.statusCode ?? 0}`);
      },
    );
    req.once('error', reject);
  });
}

/** A TCP connect, and for `https:` the TLS handshake (certificate verified). */
function connectProbe(origin: string, signal: AbortSignal): Promise<string> {
  const u = new URL(origin);
  const secure = u.protocol === 'https:';
  const port = Number(u.port || (secure ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = secure
      ? tls.connect({ host, port, ...(net.isIP(host) ? {} : { servername: host }) })
      : net.connect({ host, port });
    const done = (err?: Error) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else
        resolve(
          secure ? `TLS connected (${(socket as tls.TLSSocket).getProtocol() ?? 'tls'})` : 'TCP connected',
        );
    };
    const onAbort = () => done(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once(secure ? 'secureConnect' : 'connect', () => done());
    socket.once('error', (err) => done(err));
  });
}

async function redisProbe(url: string, timeoutMs: number, signal: AbortSignal): Promise<string> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectionName: 'algodesk-diagnostics',
  });
  redis.on('error', () => undefined);
  const onAbort = () => redis.disconnect();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await redis.connect();
    const pong = await redis.ping();
    return `PING answered ${pong}`;
  } finally {
    signal.removeEventListener('abort', onAbort);
    redis.disconnect();
  }
}

export async function runDiagnostics(
  s: DiagnosticsSources,
): Promise<{ ok: boolean; ms: number; probes: ProbeResult[] }> {
  const timeoutMs = s.timeoutMs ?? PROBE_TIMEOUT_MS;
  const started = performance.now();
  const loop = s.loopback();
  const broker = s.brokerTarget();
  const probes = await Promise.all([
    timed(
      'database',
      null,
      async () => {
        await sql`select 1`.execute(s.db);
        return 'select 1 answered';
      },
      timeoutMs,
    ),
    loop
      ? timed(
          'http_loopback',
          `http://${loop.host.includes(':') ? `[${loop.host}]` : loop.host}:${loop.port}`,
          (signal) =>
            httpProbe(
              `http://${loop.host.includes(':') ? `[${loop.host}]` : loop.host}:${loop.port}/auth/session`,
              signal,
            ),
          timeoutMs,
        )
      : Promise.resolve({
          ...skipped('http_loopback', 'the service is not listening on a TCP port'),
          ok: false,
        }),
    timed(
      'host_server',
      safeUrl(s.hostServer, false),
      (signal) => httpProbe(`${s.hostServer}/auth/session`, signal),
      timeoutMs,
    ),
    s.redisUrl
      ? timed(
          'redis',
          safeUrl(s.redisUrl, false),
          (signal) => redisProbe(s.redisUrl!, timeoutMs, signal),
          timeoutMs,
        )
      : Promise.resolve(skipped('redis', 'REDIS_URL is not set')),
    broker
      ? timed(
          `broker_${broker.broker}`,
          safeUrl(broker.origin, false),
          (signal) => connectProbe(broker.origin, signal),
          timeoutMs,
        )
      : Promise.resolve(skipped('broker', 'no broker configured and no broker session')),
    timed('sandbox_ledger', null, () => s.ledger(), timeoutMs),
  ]);
  return {
    ok: probes.every((p) => p.ok || p.skipped),
    ms: elapsed(started),
    probes,
  };
}
