/**
 * The baseline of the feed benches: a bare `ws` server doing the least a live feed must do, so that
 * the ratio against it shows what algodesk's feed costs. It takes its ticks from the same loopback
 * Kite Ticker as the server (its own connection), reads each quote packet, builds the message the
 * server sends for it (the same bytes: OpenAlgo's Quote `market_data`, serialized once per tick)
 * and writes it to every socket subscribed to the instrument. Nothing else: the authenticate and
 * subscribe messages are answered without checks, there is no rate limit, no ban check, no
 * back-pressure and no conflation. Plain JavaScript, started with `node` (no tsx).
 *
 * Usage: node baseline-ws.mjs <spec.json>, where the spec is {"port", "upstreamUrl", "apiKey",
 * "accessToken", "instruments": [{"token", "symbol", "exchange"}]}. Listens on 127.0.0.1 only and
 * prints "baseline is running at http://127.0.0.1:<port>" on stderr once it listens.
 */
import { readFileSync } from 'node:fs';
import { setImmediate } from 'node:timers';
import { URL } from 'node:url';
import WebSocket, { WebSocketServer } from 'ws';

const specFile = process.argv[2];
if (specFile === undefined) {
  process.stderr.write('usage: node baseline-ws.mjs <spec.json>\n');
  process.exit(1);
}
const spec = JSON.parse(readFileSync(specFile, 'utf8'));
/** instrument_token → {symbol, exchange, subscribers} */
const byToken = new Map();
/** EXCHANGE:SYMBOL → the same entry */
const byKey = new Map();
for (const i of spec.instruments) {
  const entry = { token: i.token, symbol: i.symbol, exchange: i.exchange, subscribers: new Set() };
  byToken.set(i.token, entry);
  byKey.set(`${i.exchange}:${i.symbol}`, entry);
}

// ---- upstream: the Kite Ticker stub ----

const upstreamUrl = new URL(spec.upstreamUrl);
upstreamUrl.searchParams.set('api_key', spec.apiKey);
upstreamUrl.searchParams.set('access_token', spec.accessToken);
const upstream = new WebSocket(upstreamUrl, { perMessageDeflate: false });
let upstreamOpen = false;
/** Tokens to subscribe upstream, sent once per event-loop turn. */
let wanted = [];
const flushWanted = () => {
  if (!upstreamOpen || wanted.length === 0) return;
  upstream.send(JSON.stringify({ a: 'subscribe', v: wanted }));
  upstream.send(JSON.stringify({ a: 'mode', v: ['quote', wanted] }));
  wanted = [];
};
upstream.on('open', () => {
  upstreamOpen = true;
  flushWanted();
});
upstream.on('error', (err) => process.stderr.write(`baseline upstream error: ${err.message}\n`));
upstream.on('close', () => {
  upstreamOpen = false;
});

const round2 = (n) => Math.round(n * 100) / 100;

upstream.on('message', (buf, isBinary) => {
  if (!isBinary || buf.length < 2) return;
  const count = buf.readUInt16BE(0);
  let at = 2;
  for (let i = 0; i < count && at + 2 <= buf.length; i++) {
    const length = buf.readUInt16BE(at);
    const p = at + 2;
    at = p + length;
    if (length !== 44 || at > buf.length) continue;
    const entry = byToken.get(buf.readUInt32BE(p));
    if (!entry || entry.subscribers.size === 0) continue;
    const price = (o) => buf.readInt32BE(p + o) / 100;
    const ltp = price(4);
    const close = price(40);
    const change = close > 0 ? round2(ltp - close) : null;
    const averagePrice = price(12);
    const lastQuantity = buf.readUInt32BE(p + 8);
    const message = JSON.stringify({
      type: 'market_data',
      symbol: entry.symbol,
      exchange: entry.exchange,
      mode: 2,
      data: {
        ltp,
        ltt: null,
        timestamp: Date.now(),
        open: price(28),
        high: price(32),
        low: price(36),
        close,
        volume: buf.readUInt32BE(p + 16),
        average_price: averagePrice,
        avg_trade_price: averagePrice,
        last_quantity: lastQuantity,
        last_trade_quantity: lastQuantity,
        total_buy_quantity: buf.readUInt32BE(p + 20),
        total_sell_quantity: buf.readUInt32BE(p + 24),
        oi: null,
        change,
        change_percent: change !== null && close ? round2((change / close) * 100) : null,
      },
      broker: 'zerodha',
    });
    for (const ws of entry.subscribers) ws.send(message);
  }
});

// ---- clients ----

const wss = new WebSocketServer({ host: '127.0.0.1', port: spec.port, perMessageDeflate: false });
wss.on('connection', (ws) => {
  const mine = new Set();
  ws.on('message', (data) => {
    let msg;
    try {
      msg = JSON.parse(data.toString('utf8'));
    } catch {
      return;
    }
    if (msg.action === 'authenticate') {
      ws.send(
        JSON.stringify({
          type: 'auth',
          status: 'success',
          message: 'Authentication successful',
          broker: 'zerodha',
        }),
      );
    } else if (msg.action === 'subscribe') {
      const subscriptions = [];
      for (const s of msg.symbols ?? []) {
        const entry = byKey.get(`${s.exchange}:${s.symbol}`);
        if (!entry) {
          subscriptions.push({ ...s, status: 'error', message: 'unknown', broker: 'zerodha' });
          continue;
        }
        if (entry.subscribers.size === 0) {
          wanted.push(entry.token);
          setImmediate(flushWanted);
        }
        entry.subscribers.add(ws);
        mine.add(entry);
        subscriptions.push({ ...s, status: 'success', mode: 'Quote', depth: 5, broker: 'zerodha' });
      }
      ws.send(JSON.stringify({ type: 'subscribe', status: 'success', subscriptions, broker: 'zerodha' }));
    }
  });
  ws.on('close', () => {
    for (const entry of mine) entry.subscribers.delete(ws);
  });
  ws.on('error', () => undefined);
});
wss.on('listening', () => {
  process.stderr.write(`baseline is running at http://127.0.0.1:${spec.port}\n`);
});
process.once('SIGTERM', () => {
  upstream.terminate();
  for (const ws of wss.clients) ws.terminate();
  wss.close(() => process.exit(0));
});
