import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { ratioAtLeast, sameWritesRatioAtLeast } from '../lib/targets.js';
import type { SameWritesPlan } from '../lib/runner.js';
import type { Bench, ServerHandle } from '../lib/types.js';
import { readRunDatabase } from '../lib/processes.js';
import { createApiKey, importContract, waitForIndex } from './market-data.js';
import { BENCH_USER, kiteNseSnapshot } from './order-bench.js';
import { switchToAnalyzeMode } from './placeorder-analyze.js';

const note = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);
const SBIN_QUOTE = { ltp: 800, bid: 799.95, ask: 800.05, high: 810, low: 790 };
/** What differs from one answer to the next: the message, and the strategy (one per connection). */
const VARYING = /"message":"[^"]*","strategy_id":\d+,"run_id":\d+/;
const NORMALIZED = '"message":"…","strategy_id":0,"run_id":0';

/**
 * Strategies issue, "Performance": `POST /strategy/webhook/<token>` to signal strategies in
 * analyzer mode (the sandbox fills), one strategy per connection, each connection alternating
 * `long_entry` and `long_exit` on its strategy's one SBIN leg, so every delivery places an order
 * (an entry or the exit) and is audited. (With one strategy for every connection, how many
 * deliveries found the position already where the signal wanted it, and placed no order, depended
 * on how the connections interleaved: 5-15 % traded, from run to run, and the figures with them.)
 * After the run the database is checked: one `webhook_deliveries` row per webhook request seen
 * by the traffic log.
 */
export const webhookSignal: Bench = {
  description:
    'POST /strategy/webhook/<token>: long_entry/long_exit signals, sandbox fills, every delivery audited',
  deadlineS: 90,
  async setup({ cli, dataDir, connections }) {
    const snapshot = kiteNseSnapshot();
    await createApiKey(cli);
    const imported = await importContract(cli, 'zerodha', snapshot);
    note(`imported ${imported.rows} Kite NSE instruments in ${imported.duration_ms} ms`);
    const now = Date.now();
    const script = join(dataDir, 'sandbox-script.json');
    writeFileSync(
      script,
      JSON.stringify([{ at: now, quotes: { 'NSE:SBIN': { ...SBIN_QUOTE, timestamp: now } } }]),
    );
    const request = {
      method: 'POST' as const,
      // Replaced by `ready` with the tokens the strategies get.
      path: '/strategy/webhook/pending',
      paths: [] as string[],
      headers: { 'content-type': 'application/json' },
      bodies: [JSON.stringify({ action: 'long_entry' }), JSON.stringify({ action: 'long_exit' })],
    };
    const plan: SameWritesPlan = {
      request,
      baseline: {
        status: 200,
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify({ status: 'success', result: 'ok', message: '…', strategy_id: 0, run_id: 0 }),
      },
      normalize: (body) => body.replace(VARYING, NORMALIZED),
      serverEnv: {
        SANDBOX_PRICE_SOURCE: 'scripted',
        SANDBOX_SCRIPT_FILE: script,
        SANDBOX_MAX_QUOTE_AGE_SECONDS: '86400',
        SANDBOX_SQUARE_OFF: 'NSE=23:59',
        // Benches run at any hour: the exchange's sessions would refuse their orders at night.
        SANDBOX_SESSIONS: 'ignore',
        SANDBOX_RESET_DAY: 'never',
      },
      async ready(server) {
        await waitForIndex(server);
        await switchToAnalyzeMode(server.url);
        await startBurst(server.url);
        const session = await logIn(server.url);
        for (let i = 1; i <= connections; i++) {
          const path = new URL(await createStrategy(server.url, { ...SIGNAL, name: `bench ${i}` }, session))
            .pathname;
          for (const body of request.bodies) {
            const res = await fetch(`${server.url}${path}`, {
              method: 'POST',
              headers: request.headers,
              body,
            });
            const text = await res.text();
            if (res.status !== 200 || !text.includes('"result":"ok"'))
              throw new Error(`test signal answered ${res.status}: ${text}`);
          }
          request.paths.push(path);
        }
        request.path = request.paths[0]!;
        note(
          `${server.label}: ${connections} signal strategies created, a test entry and exit filled on each`,
        );
      },
      afterRun: async (server) => afterRun(server, dataDir),
      // `--baseline same-writes`: the rows of each delivery to the signal strategy its path names
      // (the bench user's, id 1), its orders filled where the server fills a MARKET order.
      sameWrites: { kind: 'webhook', userId: 1, fill: { BUY: SBIN_QUOTE.ask, SELL: SBIN_QUOTE.bid } },
    };
    return plan;
  },
  targets: [ratioAtLeast(0.15), sameWritesRatioAtLeast({ sqlite: 0.8, postgres: 0.6 })],
};

const SIGNAL = {
  name: 'bench',
  kind: 'signal',
  product: 'MIS',
  legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 1 }],
};
const BATCH = {
  name: 'bench burst',
  kind: 'batch',
  product: 'MIS',
  legs: [
    { symbol: 'SBIN', exchange: 'NSE', quantity: 1, side: 'BUY' },
    { symbol: 'SBIN', exchange: 'NSE', quantity: 1, side: 'SELL' },
  ],
};
const BURST = 1_000;

interface Session {
  cookie: string;
  csrf: string;
}

/** Logs in as the bench administrator. */
async function logIn(url: string): Promise<Session> {
  const login = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BENCH_USER),
  });
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('algodesk_session='));
  if (!cookie) throw new Error(`login answered ${login.status}`);
  const csrf = (
    (await (await fetch(`${url}/auth/csrf-token`, { headers: { cookie } })).json()) as { csrf_token: string }
  ).csrf_token;
  return { cookie, csrf };
}

/** Creates a strategy (logged in as the bench administrator); returns its webhook URL. */
async function createStrategy(url: string, strategy: object, session?: Session): Promise<string> {
  const { cookie, csrf } = session ?? (await logIn(url));
  const res = await fetch(`${url}/strategy/api/strategies`, {
    method: 'POST',
    headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
    body: JSON.stringify(strategy),
  });
  const body = (await res.json()) as { data?: { webhook_url?: string } };
  if (res.status !== 201 || !body.data?.webhook_url)
    throw new Error(`create strategy answered ${res.status}`);
  return body.data.webhook_url;
}

/**
 * Strategies issue, "Performance": 1,000 concurrent identical batch `start` deliveries must open
 * exactly one run with one set of entry orders (checked after the run, from the database).
 */
async function startBurst(url: string): Promise<void> {
  const path = new URL(await createStrategy(url, BATCH)).pathname;
  const body = JSON.stringify({ action: 'start', mode: 'sandbox' });
  const answers = await Promise.all(
    Array.from({ length: BURST }, () =>
      fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        async (r) => ((await r.json()) as { result?: string }).result ?? String(r.status),
      ),
    ),
  );
  const counts: Record<string, number> = {};
  for (const a of answers) counts[a] = (counts[a] ?? 0) + 1;
  note(`${BURST} concurrent identical batch starts answered ${JSON.stringify(counts)}`);
}

async function afterRun(_server: ServerHandle, dataDir: string) {
  return readRunDatabase(dataDir, async (all) => {
    const count = async (sql: string) => Number((await all(sql))[0]!.n);
    const deliveries = await count('SELECT count(*) AS n FROM webhook_deliveries');
    const ok = await count("SELECT count(*) AS n FROM webhook_deliveries WHERE result = 'ok'");
    const requests = await count(
      "SELECT count(*) AS n FROM traffic_log WHERE path = '/strategy/webhook/[redacted]'",
    );
    const orders = await count('SELECT count(*) AS n FROM strategy_orders');
    const burstRuns = await count(
      "SELECT count(*) AS n FROM strategy_runs r JOIN strategies s ON s.id = r.strategy_id WHERE s.name = 'bench burst'",
    );
    const burstOrders = await count(
      "SELECT count(*) AS n FROM strategy_orders o JOIN strategies s ON s.id = o.strategy_id WHERE s.name = 'bench burst'",
    );
    const [p99] = (await all(
      'SELECT duration_ms AS d FROM webhook_deliveries ORDER BY duration_ms LIMIT 1 OFFSET ?',
      [Math.max(0, Math.ceil(deliveries * 0.99) - 1)],
    )) as { d: number }[];
    return {
      lines: [
        `webhook requests (traffic log): ${requests}; audited deliveries: ${deliveries} (ok ${ok}); strategy orders: ${orders} (${((100 * orders) / Math.max(1, deliveries)).toFixed(1)} % of the deliveries); ` +
          `pipeline time per delivery p99 ${p99 ? p99.d.toFixed(2) : '?'} ms`,
      ],
      targets: [
        {
          label: `${BURST} concurrent identical starts → one run, one set of entries`,
          met: burstRuns === 1 && burstOrders === BATCH.legs.length,
          actual: `${burstRuns} run(s), ${burstOrders} entry order(s)`,
        },
        {
          label: 'every delivery audited',
          met: deliveries === requests && deliveries > 0,
          actual: `${deliveries} audit rows for ${requests} webhook requests`,
        },
      ],
      json: {
        deliveries,
        ok,
        requests,
        orders,
        pipeline_p99_ms: p99?.d ?? null,
        burst_runs: burstRuns,
        burst_orders: burstOrders,
      },
    };
  });
}
