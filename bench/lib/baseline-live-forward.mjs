/**
 * The floor of `placeorder-live`: the least a service can do between a client's live order and
 * the broker, and still keep the promise of an answer (docs/architecture.md, "An answer is a
 * promise"). A bare `node:http` server that, per `POST /api/v1/placeorder`, parses the JSON body,
 * sends the broker the form the Zerodha adapter sends for that side (`forms.BUY` / `forms.SELL`,
 * the bytes the bench captured) with the adapter's headers, over a keep-alive undici pool of the
 * adapter's size, reads the broker's answer, commits the order's log row (`order_logs`, the
 * request without its API key and the answer, as algodesk's log writer stores them) and its
 * latency row (`order_latency`) in one transaction on a copy of the server's database (the app's
 * schema and pragmas), then answers algodesk's bytes. No validation, no API key, no rate limit, no
 * instrument lookup, no session: what is left is HTTP in, HTTP out and one commit.
 *
 * Plain JavaScript, started with `node` (no tsx). Usage: node baseline-live-forward.mjs <spec.json>,
 * the spec being {"port", "brokerUrl", "headers", "forms": {"BUY", "SELL"}, "connections",
 * "dbFile"}. Listens on 127.0.0.1 only and prints "forwarder is running at
 * http://127.0.0.1:<port>" on stderr once it listens.
 */
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';
import SQLite from 'better-sqlite3';
import { Pool } from 'undici';

const specFile = process.argv[2];
if (specFile === undefined) {
  process.stderr.write('usage: node baseline-live-forward.mjs <spec.json>\n');
  process.exit(1);
}
const spec = JSON.parse(readFileSync(specFile, 'utf8'));

const db = new SQLite(spec.dbFile);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
// No checkpoint on this connection: the WAL only grows for the bench's minute, and a floor must
// not pay the fsyncs that algodesk moves off its event loop (a third connection checkpoints).
db.pragma('wal_autocheckpoint = 0');
const insertLog = db.prepare(
  `insert into order_logs (user_id, event, api_type, broker, order_id, status_code, request, response, created_at, dispatched_at)
   values (?, 'order', 'placeorder', 'zerodha', ?, 200, ?, ?, ?, ?)`,
);
const insertLatency = db.prepare(
  `insert into order_latency (label, user_id, broker, symbol, order_id, status, total_ms, broker_ms, validation_ms, overhead_ms, created_at)
   values ('placeorder', 1, 'zerodha', ?, ?, 'success', ?, ?, 0, ?, ?)`,
);
const commit = db.transaction((row) => {
  insertLog.run(1, row.orderId, row.request, row.response, row.at, row.at);
  insertLatency.run(row.symbol, row.orderId, row.totalMs, row.brokerMs, row.totalMs - row.brokerMs, row.at);
});

const url = new URL(spec.brokerUrl);
const pool = new Pool(url.origin, { connections: spec.connections, pipelining: 1 });

async function place(body) {
  const form = spec.forms[String(body.action).toUpperCase()];
  if (form === undefined) return undefined;
  const sent = performance.now();
  const res = await pool.request({
    path: '/orders/regular',
    method: 'POST',
    headers: spec.headers,
    body: form,
  });
  const answer = await res.body.json();
  const brokerMs = performance.now() - sent;
  if (res.statusCode !== 200 || answer?.status !== 'success') return undefined;
  return { orderId: String(answer.data.order_id), brokerMs };
}

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/api/v1/placeorder') {
    res.writeHead(404).end();
    return;
  }
  const started = performance.now();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    let placed;
    try {
      placed = await place(body);
    } catch (err) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(err?.message ?? err));
      return;
    }
    if (placed === undefined) {
      res.writeHead(400).end();
      return;
    }
    const text = `{"status":"success","orderid":"${placed.orderId}"}`;
    const { apikey: _apikey, ...request } = body;
    commit({
      orderId: placed.orderId,
      request: JSON.stringify(request),
      response: text,
      symbol: String(body.symbol),
      at: Date.now(),
      totalMs: performance.now() - started,
      brokerMs: placed.brokerMs,
    });
    const bytes = Buffer.from(text, 'utf8');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length }).end(bytes);
  });
});

server.listen(spec.port, '127.0.0.1', () => {
  process.stderr.write(`forwarder is running at http://127.0.0.1:${server.address().port}\n`);
});
process.once('SIGTERM', () =>
  server.close(async () => {
    await pool.close();
    db.close();
    process.exit(0);
  }),
);
