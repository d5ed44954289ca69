/**
 * `placeorder-live`'s floor (bench/lib/baseline-live-forward.mjs) stands for the least a service
 * does between a live order and the broker while keeping its promise: it must send the broker the
 * adapter's bytes and have committed the order's rows when it answers. Checked against a loopback
 * stub on a copy of the app's migrated database, as the bench runs it. No timing is asserted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/test-database.js';

const FORWARDER = join(import.meta.dirname, '../../bench/lib/baseline-live-forward.mjs');
const HEADERS = {
  authorization: 'token benchkiteapikey:benchkiteaccesstoken',
  'x-kite-version': '3',
  'content-type': 'application/x-www-form-urlencoded',
};
const FORMS = {
  BUY: 'tradingsymbol=SBIN&exchange=NSE&transaction_type=BUY&order_type=MARKET&quantity=1&product=MIS&validity=DAY',
  SELL: 'tradingsymbol=SBIN&exchange=NSE&transaction_type=SELL&order_type=MARKET&quantity=1&product=MIS&validity=DAY',
};

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A Kite order endpoint that keeps what it received and answers an order id. */
async function kiteStub(): Promise<{
  port: number;
  got: { headers: Record<string, unknown>; body: string }[];
}> {
  const got: { headers: Record<string, unknown>; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'success', data: { order_id: `2511220000${got.length}` } }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.address() as AddressInfo).port, got };
}

async function startForwarder(spec: Record<string, unknown>, dir: string): Promise<string> {
  const file = join(dir, 'forwarder.json');
  writeFileSync(file, JSON.stringify({ ...spec, port: 0 }));
  const child: ChildProcess = spawn(process.execPath, [FORWARDER, file], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanup.push(async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  });
  let log = '';
  child.stderr!.setEncoding('utf8');
  return new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: string) => {
      log += chunk;
      const m = /forwarder is running at (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`forwarder exited (${code}) during start-up:\n${log}`)));
  });
}

it("sends the adapter's bytes and answers only once the order's log and latency rows are committed", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'algodesk-live-floor-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const db = await createTestDatabase('sqlite', dir);
  await db.drop();
  const stub = await kiteStub();
  const url = await startForwarder(
    {
      brokerUrl: `http://127.0.0.1:${stub.port}`,
      headers: HEADERS,
      forms: FORMS,
      connections: 2,
      dbFile: join(dir, 'algodesk.db'),
    },
    dir,
  );
  const res = await fetch(`${url}/api/v1/placeorder`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      apikey: 'k'.repeat(64),
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'SELL',
      quantity: 1,
    }),
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: 'success', orderid: '25112200001' });
  expect(stub.got).toHaveLength(1);
  expect(stub.got[0]!.body).toBe(FORMS.SELL);
  expect(stub.got[0]!.headers).toMatchObject(HEADERS);

  // Read as soon as the answer is in: the rows were committed before it.
  const read = new SQLite(join(dir, 'algodesk.db'), { readonly: true });
  cleanup.push(() => void read.close());
  const log = read.prepare('select order_id, api_type, request, response from order_logs').all();
  expect(log).toEqual([
    {
      order_id: '25112200001',
      api_type: 'placeorder',
      request: JSON.stringify({ symbol: 'SBIN', exchange: 'NSE', action: 'SELL', quantity: 1 }),
      response: '{"status":"success","orderid":"25112200001"}',
    },
  ]);
  const latency = read.prepare('select symbol, order_id, broker from order_latency').all();
  expect(latency).toEqual([{ symbol: 'SBIN', order_id: '25112200001', broker: 'zerodha' }]);
});
