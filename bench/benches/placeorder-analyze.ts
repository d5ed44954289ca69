import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { p99AtMostMs, ratioAtLeast, sameWritesRatioAtLeast } from '../lib/targets.js';
import type { SameWritesPlan } from '../lib/runner.js';
import type { Bench, ServerHandle } from '../lib/types.js';
import { createApiKey, importContract, waitForIndex } from './market-data.js';
import {
  BENCH_USER,
  countLogLines,
  describeCounts,
  DROPPED_MSG,
  kiteNseSnapshot,
  LATENCY_WRITE_FAILED_MSG,
  readOrderRows,
  sbinOrder,
  sum,
} from './order-bench.js';

const note = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

/** SBIN's scripted quote (₹): a MIS BUY of 1 blocks about ₹160 at the default 5x leverage. */
const SBIN_QUOTE = { ltp: 800, bid: 799.95, ask: 800.05, high: 810, low: 790 };
const ORDER_ID = /"orderid":"[^"]*"/g;

/**
 * Orders issue, "Performance": `POST /api/v1/placeorder` in analyzer mode (the sandbox fills it),
 * against the bare baseline answering the same success bytes. Each connection alternates a BUY
 * and a SELL MARKET order of 1 SBIN MIS, so funds never run out and the position stays within
 * ±1 per connection; every order fills at the scripted quote (a full sandbox transaction: margin,
 * order, event, trade, position). After the run the server's log is searched for dropped order
 * events and its database for the analyzer-log rows those events write.
 */
export const placeorderAnalyze: Bench = {
  description: 'POST /api/v1/placeorder in analyzer mode: BUY/SELL 1 SBIN MIS MARKET, sandbox fills',
  deadlineS: 90,
  async setup({ cli, dataDir }) {
    const snapshot = kiteNseSnapshot(); // fails at once when the shared data is missing
    const apikey = await createApiKey(cli);
    const imported = await importContract(cli, 'zerodha', snapshot);
    note(`imported ${imported.rows} Kite NSE instruments in ${imported.duration_ms} ms`);

    // The sandbox's price: one scripted tick, due now, that the engine plays when it starts (and
    // keeps, the quote being allowed a day's age). Without a quote a MARKET order is rejected.
    const now = Date.now();
    const script = join(dataDir, 'sandbox-script.json');
    writeFileSync(
      script,
      JSON.stringify([{ at: now, quotes: { 'NSE:SBIN': { ...SBIN_QUOTE, timestamp: now } } }]),
    );

    const plan: SameWritesPlan = {
      request: {
        method: 'POST',
        path: '/api/v1/placeorder',
        headers: { 'content-type': 'application/json' },
        bodies: [sbinOrder(apikey, 'BUY'), sbinOrder(apikey, 'SELL')],
      },
      baseline: {
        status: 200,
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify({ status: 'success', orderid: '10000', mode: 'analyze' }),
      },
      // Each answer carries a new order id.
      normalize: (body) => body.replace(ORDER_ID, '"orderid":"…"'),
      serverEnv: {
        // Far above what the machine can send: the bench measures the pipeline, not the limiter.
        ORDER_RATE_LIMIT: '1000000 per second',
        SANDBOX_PRICE_SOURCE: 'scripted',
        SANDBOX_SCRIPT_FILE: script,
        SANDBOX_MAX_QUOTE_AGE_SECONDS: '86400',
        // MIS orders that open a position are refused after the square-off time (15:15 IST by
        // default): moved to the end of the day so the bench does not depend on the clock.
        SANDBOX_SQUARE_OFF: 'NSE=23:59',
        // Benches run at any hour: the exchange's sessions would refuse their orders at night.
        SANDBOX_SESSIONS: 'ignore',
        SANDBOX_RESET_DAY: 'never',
      },
      async ready(server) {
        const index = await waitForIndex(server);
        note(`${server.label}: index of ${index.instruments} instruments built in ${index.ms} ms`);
        await switchToAnalyzeMode(server.url);
        // One round trip proves the quote is there: both orders fill (else 400 "No price …").
        for (const body of [sbinOrder(apikey, 'BUY'), sbinOrder(apikey, 'SELL')]) {
          const res = await fetch(`${server.url}/api/v1/placeorder`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          });
          const text = await res.text();
          if (res.status !== 200 || !text.includes('"mode":"analyze"'))
            throw new Error(`a test order in analyzer mode answered ${res.status}: ${text}`);
        }
        note(`${server.label}: analyzer mode on, test BUY and SELL filled`);
      },
      afterRun: async (server) => afterRun(server, dataDir),
      // `--baseline same-writes`: the rows of each order for the bench user (the first user, id
      // 1), filled where the server fills a MARKET order, at the ask (BUY) or the bid (SELL).
      sameWrites: { kind: 'placeorder', userId: 1, fill: { BUY: SBIN_QUOTE.ask, SELL: SBIN_QUOTE.bid } },
    };
    return plan;
  },
  targets: [ratioAtLeast(0.25), sameWritesRatioAtLeast({ sqlite: 0.8, postgres: 0.6 }), p99AtMostMs(25, 50)],
};

/** Logs in as the administrator and switches the trading mode to Analyze (no CLI exists for it). */
export function switchToAnalyzeMode(url: string): Promise<void> {
  return setAnalyzeMode(url, true);
}

/**
 * Logs in as the administrator and sets the trading mode: Analyze (`true`, the sandbox) or live
 * (`false`, the broker; a new install starts in Analyze).
 */
export async function setAnalyzeMode(url: string, analyze: boolean): Promise<void> {
  const login = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BENCH_USER),
  });
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${await login.text()}`);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('algodesk_session='));
  if (!cookie) throw new Error('login set no algodesk_session cookie');
  const csrf = await fetch(`${url}/auth/csrf-token`, { headers: { cookie } });
  const { csrf_token: token } = (await csrf.json()) as { csrf_token?: string };
  if (csrf.status !== 200 || !token) throw new Error(`csrf-token answered ${csrf.status}`);
  const mode = analyze ? 1 : 0;
  const set = await fetch(`${url}/settings/analyze-mode/${mode}`, {
    method: 'POST',
    headers: { cookie, 'x-csrf-token': token },
  });
  const text = await set.text();
  if (set.status !== 200 || !text.includes(`"analyze_mode":${analyze}`))
    throw new Error(`analyze-mode/${mode} answered ${set.status}: ${text}`);
}

/**
 * Events dropped (the bus's warning lines: the server is a child process, so its `dropped`
 * counter is read from its log) and what the delivered events wrote: one analyzer-log row per
 * sandbox order. The server has been stopped, so its log is flushed and its queue drained.
 */
async function afterRun(server: ServerHandle, dataDir: string) {
  const log = server.log();
  const dropped = countLogLines(log, DROPPED_MSG);
  const latencyFailures = countLogLines(log, LATENCY_WRITE_FAILED_MSG);
  const rows = await readOrderRows(dataDir);
  const orders = sum(rows.sandboxOrders);
  const logged = sum(rows.analyzerLogs);
  const lines = [
    `sandbox orders: ${orders} (${describeCounts(rows.sandboxOrders)}); analyzer-log rows: ${logged} ` +
      `(${describeCounts(rows.analyzerLogs)}); order events dropped: ${dropped}`,
    `latency rows: ${rows.latencyRows}${latencyFailures ? ` (${latencyFailures} "${LATENCY_WRITE_FAILED_MSG}" warnings)` : ''}` +
      (rows.overheadMs
        ? `; algodesk's own overhead_ms per placement p50 ${rows.overheadMs.p50} p99 ${rows.overheadMs.p99}`
        : ''),
  ];
  return {
    lines,
    targets: [
      {
        label: 'no order event dropped',
        met: dropped === 0 && logged === orders,
        actual: `${dropped} "${DROPPED_MSG}" lines; ${logged} analyzer-log rows for ${orders} orders`,
      },
    ],
    json: {
      events_dropped: dropped,
      sandbox_orders: rows.sandboxOrders,
      analyzer_logs: rows.analyzerLogs,
      latency_rows: rows.latencyRows,
      latency_write_failures: latencyFailures,
      overhead_ms: rows.overheadMs,
    },
  };
}
