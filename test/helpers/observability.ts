import net from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import type { NewTrafficRow } from '../../src/modules/observability/traffic.repository.js';
import { asBrowser, type Browser, type TestApp } from './test-app.js';

/** A stored traffic row at `ts`: a 200 GET of `/x` from 203.0.113.7, with `over` on top. */
export const trafficRow = (ts: number, over: Partial<NewTrafficRow> = {}): NewTrafficRow => ({
  ts,
  ip: '203.0.113.7',
  method: 'GET',
  path: '/x',
  endpoint_group: '/x',
  status: 200,
  duration_ms: 1,
  host: 'example.com',
  user_id: null,
  ...over,
});

/** A loopback TCP server that accepts every connection and never sends a byte. */
export async function hangingServer(): Promise<{
  port: number;
  connections(): Promise<number>;
  close(): Promise<void>;
}> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
    s.resume(); // reads (and ignores) what arrives, so it notices when the client hangs up
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    connections: () =>
      new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const adminGet = (t: TestApp, b: Browser, url: string): Promise<LightMyRequestResponse> =>
  t.app.inject({ method: 'GET', url, headers: { cookie: b.cookie } });

export const adminPost = (
  t: TestApp,
  b: Browser,
  url: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> =>
  t.app.inject({
    method: 'POST',
    url,
    headers: asBrowser(b),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

/** Entries of `GET /admin/api/errors` with the query `qs`. */
export async function errorEntries(t: TestApp, b: Browser, qs = ''): Promise<Record<string, unknown>[]> {
  const res = await adminGet(t, b, `/admin/api/errors${qs}`);
  if (res.statusCode !== 200) throw new Error(`errors list: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: { entries: Record<string, unknown>[] } }).data.entries;
}
