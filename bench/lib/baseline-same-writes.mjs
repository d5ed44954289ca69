/**
 * The `--baseline same-writes` baseline of `placeorder-analyze` and `webhook-signal`: a bare
 * `node:http` server that does the durable work of the bench's request and nothing else: no
 * validation, no API key, no rules, no price. Per request it parses the body and writes, in one
 * transaction, the rows algodesk writes for that request (same tables, same columns, so the same
 * indexes), then answers algodesk's bytes. The spec's `kind` says which request:
 *
 * - `placeorder` (`POST /api/v1/placeorder`, an analyzer-mode MARKET order filled at once):
 *   `sandbox_orders` (the order, inserted in its final state), `sandbox_order_events` (its two
 *   events, one statement), `sandbox_positions` (upserted), `sandbox_trades`, `sandbox_accounts`
 *   (updated; created at start-up when missing, as algodesk does on the user's first order),
 *   `analyzer_logs` (inserted undispatched, then marked dispatched, the outbox mark algodesk's log
 *   writer makes once the event's fan-out ran), `order_latency`, `traffic_log`;
 * - `webhook` (`POST /strategy/webhook/<token>`, `long_entry`/`long_exit` to a one-leg signal
 *   strategy whose run is open in sandbox mode): the strategy's lease taken and released
 *   (`strategies`, two updates); for an exit, the exit's mark (`strategy_positions`); the order's
 *   intent (`strategy_orders`, inserted, then updated once the order filled as it was placed); the
 *   order's rows, as for `placeorder`; the leg's filled net (`strategy_positions`); the trail
 *   event (`strategy_events`); the audit row (`webhook_deliveries`); `traffic_log`. A signal that
 *   would not change the position (an entry while long, an exit while flat) writes, as algodesk
 *   does, the lease, a `signal_noop` event, the audit and the traffic rows, and no order. (An
 *   order the server left working, `placed`, when the baseline starts is recorded filled by the
 *   first delivery, as algodesk's next decision would.)
 *
 * The database is given by the spec: SQLite (`dbFile`, a copy of the server's database,
 * baseline-same-writes-sqlite.mjs) or PostgreSQL (`pgUrl`, a schema of its own migrated by the app,
 * into which the server's rows are copied at start-up, baseline-same-writes-pg.mjs).
 * test/bench/same-writes-baseline.test.ts checks that one request here writes what one request
 * through the real app writes, table by table, on both databases.
 *
 * The values are the body's (symbol, exchange, action, quantity, product, strategy), the database's
 * (the strategy, its leg, its run and position as the server left them) and the spec's (user, fill
 * prices); the sandbox position and account carry running sums kept in memory, which is
 * arithmetic, not algodesk's margin rules.
 *
 * Plain JavaScript, started with `node` (no tsx). Usage: node baseline-same-writes.mjs <spec.json>,
 * the spec being {"port", "method", "path" (or "paths", several served alike: one strategy's
 * webhook each), "status", "contentType", "kind", "userId",
 * "fill": {"BUY": <rupees>, "SELL": <rupees>}} and either {"dbFile"} or {"pgUrl", "copyFrom",
 * "poolSize"}. Listens on 127.0.0.1 only and prints "baseline is running at
 * http://127.0.0.1:<port>" on stderr once it listens.
 */
import { Buffer } from 'node:buffer';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

const specFile = process.argv[2];
if (specFile === undefined) {
  process.stderr.write('usage: node baseline-same-writes.mjs <spec.json>\n');
  process.exit(1);
}
const spec = JSON.parse(readFileSync(specFile, 'utf8'));
const userId = spec.userId;
/** The sandbox's money unit: 1/10,000 of a rupee (₹800.05 is stored as 8000500). */
const money = (rupees) => Math.round(rupees * 10_000);
const fill = { BUY: money(spec.fill.BUY), SELL: money(spec.fill.SELL) };
/** The account algodesk creates on the user's first order (its default starting funds, ₹1 crore). */
const STARTING_FUNDS = money(10_000_000);

/** algodesk's answer to a placement is `${head}<order id>${tail}`, also stored in its analyzer-log row. */
const answer = { head: '{"status":"success","orderid":"', tail: '","mode":"analyze"}' };
const store = spec.pgUrl
  ? await (await import('./baseline-same-writes-pg.mjs')).openPgStore(spec, answer)
  : (await import('./baseline-same-writes-sqlite.mjs')).openSqliteStore(spec, answer);

await store.ensureAccount(userId, STARTING_FUNDS, Date.now());
let account = await store.account(userId);
/** Net quantity and cost of each position written, by `symbol exchange product`. */
const positions = new Map();

/** `YYYY-MM-DD` of `now` in IST, the sandbox's trading day. */
const istDay = (now) => new Date(now + 19_800_000).toISOString().slice(0, 10);

/**
 * The values of one filled order's rows (order, events, trade, position, account, analyzer log,
 * latency): `o` holds the order's symbol, exchange, side, quantity, product, strategy and tag, and
 * the log's `apiType` and `request`.
 */
function orderRows(o, at) {
  const price = fill[o.side] ?? fill.BUY;
  const key = `${o.symbol} ${o.exchange} ${o.product}`;
  const held = positions.get(key) ?? { quantity: 0, cost: 0 };
  const signed = o.side === 'SELL' ? -o.quantity : o.quantity;
  const position = { quantity: held.quantity + signed, cost: held.cost + signed * price };
  positions.set(key, position);
  const margin = Math.round(Math.abs(position.cost) / 5);
  account = { ...account, used_margin: margin, available: account.starting_funds - margin };
  return { ...o, userId, price, day: istDay(at), at, position: { ...position, margin }, account };
}

/** `placeorder`: the request's body is the order. */
async function placeOrder(body, _raw, http) {
  // The logged request, as algodesk's log writer stores it: the body without its API key.
  const { apikey: _apikey, ...request } = body;
  const order = orderRows(
    {
      symbol: body.symbol,
      exchange: body.exchange,
      side: String(body.action).toUpperCase(),
      priceType: body.pricetype ?? 'MARKET',
      product: body.product ?? 'MIS',
      quantity: Number(body.quantity),
      strategy: body.strategy ?? null,
      tag: null,
      apiType: 'placeorder',
      request: JSON.stringify(request),
    },
    http.at,
  );
  const { orderId } = await store.placeOrder(order, http);
  return `${answer.head}${orderId}${answer.tail}`;
}

// How many deliveries placed an order, written to the log at exit (BENCH_KEEP_LOGS keeps it).
const counts = { deliveries: 0, orders: 0 };
if (spec.kind === 'webhook')
  process.once('exit', () =>
    process.stderr.write(
      `baseline: ${counts.deliveries} deliveries, ${counts.orders} of them placed an order\n`,
    ),
  );

/**
 * `webhook`: the signal strategy the token at the end of `path` names, its first leg, its open run
 * and the leg's position as the server left them (the bench's `ready` opened the run with a test
 * entry and exit). A strategy's deliveries are handled one after another, as algodesk's lock on a
 * strategy does; different strategies' deliveries interleave.
 */
async function webhookHandler(path) {
  const token = path.split('/').pop();
  const digest = createHash('sha256').update(token).digest('hex');
  const s = await store.strategyState(digest);
  if (!s) throw new Error(`no strategy with the token of ${path} and an open run`);
  const holder = `same-writes:${process.pid}`;
  let queue = Promise.resolve();

  /** One delivery's rows and its answer; `held` is the leg's position once the fill is recorded. */
  const deliver = async (body, raw, http) => {
    const action = body.action;
    if (action !== 'long_entry' && action !== 'long_exit') return undefined;
    const settle = s.pending;
    s.pending = [];
    for (const p of settle) {
      s.net += p.signed;
      s.working -= p.signed;
    }
    const held = s.net + s.working;
    counts.deliveries += 1;
    const target = action === 'long_entry' ? s.leg.quantity : held > 0 ? 0 : held;
    const delivery = {
      s,
      at: http.at,
      lease: { until: http.at + 5_000, holder, started: http.at },
      settle,
      payload: raw,
      action,
    };
    if (target === held || (action === 'long_entry' && held > 0)) {
      const note = `No change: ${s.leg.symbol} ${s.leg.exchange} already ${held === 0 ? 'flat' : `long ${held}`}`;
      await store.deliver(
        {
          ...delivery,
          message: note,
          event: { kind: 'signal_noop', message: note, payload: JSON.stringify({ action }) },
        },
        http,
      );
      return note;
    }
    counts.orders += 1;
    const exit = target === 0;
    const side = exit ? 'SELL' : 'BUY';
    const quantity = Math.abs(target - held);
    if (exit) s.exitGen += 1;
    const tag = `ad${BigInt(`0x${randomBytes(9).toString('hex')}`)
      .toString(36)
      .slice(0, 14)
      .padStart(14, '0')}`;
    const message = exit
      ? `${action}: ${s.leg.symbol} flattened`
      : `${action}: BUY ${quantity} ${s.leg.symbol} placed`;
    const order = orderRows(
      {
        symbol: s.leg.symbol,
        exchange: s.leg.exchange,
        side,
        priceType: 'MARKET',
        product: s.product,
        quantity,
        strategy: s.name,
        tag,
        apiType: 'strategy',
        request: JSON.stringify({
          strategy: s.name,
          symbol: s.leg.symbol,
          exchange: s.leg.exchange,
          action: side,
          quantity,
          pricetype: 'MARKET',
          product: s.product,
          price: '0',
          trigger_price: '0',
          disclosed_quantity: '0',
        }),
      },
      http.at,
    );
    const signed = exit ? -quantity : quantity;
    const intent = {
      side,
      quantity,
      signed,
      purpose: exit ? 'exit' : 'entry',
      exitGen: exit ? s.exitGen : null,
      tag,
    };
    await store.deliver({ ...delivery, message, intent, order }, http);
    // Settled filled from the placement's answer, as algodesk records a fill the sandbox made as
    // it placed the order: nothing left for the next delivery to settle.
    s.net += signed;
    return message;
  };

  return (body, raw, http) => {
    const done = queue.then(() => deliver(body, raw, http));
    queue = done.catch(() => undefined);
    return done.then((message) =>
      message === undefined
        ? undefined
        : JSON.stringify({ status: 'success', result: 'ok', message, strategy_id: s.id, run_id: s.runId }),
    );
  };
}

/** The paths served (a webhook bench gives each connection a strategy of its own), and their handlers. */
const paths = spec.paths ?? [spec.path];
const handlers = new Map();
for (const path of paths)
  handlers.set(path, spec.kind === 'webhook' ? await webhookHandler(path) : placeOrder);
/** The traffic log's path and route: the webhook's token is never logged. */
const traffic =
  spec.kind === 'webhook'
    ? { path: '/strategy/webhook/[redacted]', group: '/strategy/webhook/:token' }
    : { path: paths[0], group: paths[0] };

const server = createServer((req, res) => {
  const handle = req.method === spec.method ? handlers.get(req.url) : undefined;
  if (handle === undefined) {
    res.writeHead(404).end();
    return;
  }
  const started = performance.now();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const http = {
      at: Date.now(),
      started,
      ip: req.socket.remoteAddress ?? '',
      method: req.method,
      host: req.headers.host ?? null,
      status: spec.status,
      ...traffic,
    };
    let text;
    try {
      text = await handle(body, raw, http);
    } catch (err) {
      // A body without the columns' values (no rules here: the schema's NOT NULLs refuse it).
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err?.message ?? err));
      return;
    }
    if (text === undefined) {
      res.writeHead(400).end();
      return;
    }
    const bytes = Buffer.from(text, 'utf8');
    res
      .writeHead(spec.status, { 'content-type': spec.contentType, 'content-length': bytes.length })
      .end(bytes);
  });
});

// Port 0 (a test's spec): the port the system chose is the one printed.
server.listen(spec.port, '127.0.0.1', () => {
  process.stderr.write(`baseline is running at http://127.0.0.1:${server.address().port}\n`);
});
process.once('SIGTERM', () =>
  server.close(async () => {
    await store.close();
    process.exit(0);
  }),
);
