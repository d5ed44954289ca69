import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { emptyStats, runLoad, type SideStats } from '../lib/load.js';
import { Workspace } from '../lib/processes.js';
import { computeFigures, printTable, summaryLine, writeJson } from '../lib/report.js';
import type { BenchRequest } from '../lib/types.js';

const FLOODER = '203.0.113.66';
const CLIENT = '198.51.100.1';
const THRESHOLD = 100;
const FLOOD_REQUESTS = 10_000;

export interface FloodOptions {
  durationS: number;
  connections: number;
  jsonFile: string | undefined;
}

const ping = (ip: string, apikey: string): BenchRequest => ({
  method: 'POST',
  path: '/api/v1/ping',
  headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
  body: JSON.stringify({ apikey }),
});

/**
 * Shield issue: a flood of 10,000 invalid-key requests from one address is banned at the
 * threshold while the service keeps answering others. One algodesk server (behind a "proxy":
 * TRUST_PROXY_HEADERS, so each load generator has its own client address) with automatic bans
 * on and an invalid-key threshold of 100. First a legitimate client alone (the baseline), then
 * the same client while the flooder sends its 10,000 requests; the ratio is the legitimate
 * client's requests/s during the flood over before it.
 */
export async function runFlood(opts: FloodOptions): Promise<number> {
  const ws = await Workspace.create();
  try {
    await ws.cli(['user', 'create', '--username', 'bench', '--password', 'bench-password-1']);
    const key = await ws.cli(['apikey', 'create', '--username', 'bench']);
    const file = join(ws.dataDir, 'algodesk.db');
    const db = new SQLite(file);
    db.prepare(
      'update settings set security_auto_ban_enabled = 1, security_api_threshold = ?, security_api_ban_duration = 1 where id = 1',
    ).run(THRESHOLD);
    db.close();
    const server = await ws.startServer('server', { TRUST_PROXY_HEADERS: 'true' });
    const load = (request: BenchRequest, connections: number) => ({
      port: server.port,
      request,
      connections,
    });

    const warm = emptyStats();
    await runLoad({ ...load(ping(CLIENT, key), opts.connections), durationS: 2 }, warm);
    const before = emptyStats();
    await runLoad({ ...load(ping(CLIENT, key), opts.connections), durationS: opts.durationS }, before);

    const during = emptyStats();
    const flood = emptyStats();
    const started = Date.now();
    await Promise.all([
      runLoad({ ...load(ping(CLIENT, key), opts.connections), durationS: opts.durationS }, during),
      runFloodRequests(server.port, ping(FLOODER, 'f'.repeat(64)), flood),
    ]);
    const floodSeconds = flood.elapsedMs / 1000;

    const check = new SQLite(file, { readonly: true });
    const ban = check.prepare('select ban_count, expires_at from ip_bans where ip = ?').get(FLOODER) as
      { ban_count: number; expires_at: number | null } | undefined;
    const tracked = check.prepare('select count from invalid_api_key_tracker where ip = ?').get(FLOODER) as
      { count: number } | undefined;
    check.close();

    const figures = computeFigures(during, before);
    console.log(
      `flood: ${FLOOD_REQUESTS} invalid-key requests from ${FLOODER} (threshold ${THRESHOLD}) while ${CLIENT} ` +
        `pings with a valid key, ${opts.connections} connections, ${opts.durationS} s`,
    );
    printTable(figures, during, before);
    console.log(
      `flooder: ${flood.responses} answered in ${floodSeconds.toFixed(2)} s (${Math.round(flood.responses / floodSeconds)} req/s); ` +
        `banned: ${ban ? 'yes' : 'NO'}; invalid keys that reached the API before the ban: ${tracked?.count ?? 0}; ` +
        `legitimate non-2xx during the flood: ${during.non2xx}; elapsed ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    if (opts.jsonFile !== undefined) {
      writeJson(opts.jsonFile, {
        name: 'flood',
        request: ping(CLIENT, '[redacted]'),
        figures,
        server: during,
        baseline: before,
        durationS: opts.durationS,
        warmupS: 2,
        rounds: 1,
        connections: opts.connections,
        targets: [
          {
            label: 'flooder banned',
            met: ban !== undefined,
            actual: `${tracked?.count ?? 0} invalid keys reached the API`,
          },
          {
            label: 'legitimate client never refused',
            met: during.non2xx === 0,
            actual: `${during.non2xx} non-2xx`,
          },
        ],
      });
    }
    console.log(summaryLine('flood', figures));
    const ok = ban !== undefined && during.non2xx === 0 && during.errors === 0;
    if (!ok) console.error('bench flood: FAILED: the flooder was not banned or legitimate requests failed');
    return ok ? 0 : 1;
  } finally {
    await ws.dispose();
  }
}

/** Sends exactly {@link FLOOD_REQUESTS} requests as fast as 50 connections allow. */
async function runFloodRequests(port: number, request: BenchRequest, stats: SideStats): Promise<void> {
  const { default: autocannon } = await import('autocannon');
  const t0 = Date.now();
  await new Promise<void>((resolvePromise, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}${request.path}`,
        method: request.method,
        headers: request.headers ?? {},
        body: request.body,
        connections: 50,
        amount: FLOOD_REQUESTS,
        timeout: 5,
      },
      (err: unknown) =>
        err ? reject(err instanceof Error ? err : new Error(String(err))) : resolvePromise(),
    );
    instance.on('response', () => stats.responses++);
  });
  stats.elapsedMs = Date.now() - t0;
}
