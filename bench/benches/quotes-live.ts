/**
 * `quotes-live`: `POST /api/v1/quotes` through algodesk to a loopback Kite Connect v3 `GET /quote`
 * stub, against the same stub called directly with the request the market-data client sends, in
 * the same run. The difference of their p50 latencies is what algodesk adds to a quote (schema,
 * API key, rate limit, instrument lookup, broker session, the pooled broker call, OpenAlgo's shape).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { emptyStats, runLoad, type SideStats } from '../lib/load.js';
import { Workspace, type Child } from '../lib/processes.js';
import { BrokerStub } from '../lib/kite-order-stub.js';
import { computeFigures, describeNon2xx, writeJson } from '../lib/report.js';
import type { BenchRequest } from '../lib/types.js';
import { createApiKey, importContract, waitForIndex } from './market-data.js';
import { BENCH_USER, kiteNseSnapshot } from './order-bench.js';

export interface QuotesLiveOptions {
  durationS: number;
  connections: number;
  jsonFile: string | undefined;
}

/** Connections when `--connections` is not given: the stub shares the bench's one thread. */
export const QUOTES_DEFAULT_CONNECTIONS = 10;
const WARMUP_S = 2;
const ROUNDS = 2;
const DEADLINE_MS = 90_000;
const BROKER = {
  apiKey: 'benchkiteapikey',
  apiSecret: 'benchkiteapisecret',
  token: 'benchkitequotetoken0123',
};

/** Kite's documented full quote of INFY (market-quotes page), served as SBIN's. */
const SBIN_QUOTE = {
  status: 'success',
  data: {
    'NSE:SBIN': {
      instrument_token: 779521,
      timestamp: '2021-06-08 15:45:56',
      last_trade_time: '2021-06-08 15:45:52',
      last_price: 1412.95,
      last_quantity: 5,
      buy_quantity: 0,
      sell_quantity: 5191,
      volume: 7360198,
      average_price: 1412.47,
      oi: 0,
      oi_day_high: 0,
      oi_day_low: 0,
      net_change: 0,
      lower_circuit_limit: 1250.7,
      upper_circuit_limit: 1528.6,
      ohlc: { open: 1396, high: 1421.75, low: 1395.55, close: 1389.65 },
      depth: {
        buy: Array.from({ length: 5 }, () => ({ price: 0, quantity: 0, orders: 0 })),
        sell: [
          { price: 1412.95, quantity: 5191, orders: 13 },
          ...Array.from({ length: 4 }, () => ({ price: 0, quantity: 0, orders: 0 })),
        ],
      },
    },
  },
};
const QUOTE_BYTES = Buffer.from(JSON.stringify(SBIN_QUOTE));

const progress = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

/** `GET /quote?i=NSE:SBIN` with Kite's headers answers {@link SBIN_QUOTE}; counts connections. */
class KiteQuoteStub extends BrokerStub {
  quotes = 0;
  lastUrl = '';

  protected handle(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const send = (status: number, body: Buffer) =>
        res
          .writeHead(status, { 'content-type': 'application/json', 'content-length': body.length })
          .end(body);
      if (req.method !== 'GET' || url.pathname !== '/quote')
        return send(
          404,
          Buffer.from('{"status":"error","message":"Route not found","error_type":"GeneralException"}'),
        );
      if (
        req.headers.authorization !== `token ${BROKER.apiKey}:${BROKER.token}` ||
        req.headers['x-kite-version'] !== '3'
      )
        return send(
          403,
          Buffer.from(
            '{"status":"error","message":"Incorrect `api_key` or `access_token`.","error_type":"TokenException"}',
          ),
        );
      this.quotes++;
      this.lastUrl = req.url ?? '';
      send(200, QUOTE_BYTES);
    });
  }
}

class BenchFailure extends Error {}

function problemsOf(label: string, stats: SideStats): string[] {
  const problems: string[] = [];
  if (stats.non2xx > 0) problems.push(`${stats.non2xx} non-2xx (${describeNon2xx(stats)})`);
  if (stats.errors > 0) problems.push(`${stats.errors} errors (${stats.timeouts} timeouts)`);
  if (stats.responses === 0) problems.push('no response at all');
  return problems.length > 0 ? [`${label}: ${problems.join(', ')}`] : [];
}

export async function runQuotesLive(opts: QuotesLiveOptions): Promise<number> {
  const ws = await Workspace.create();
  const stubs = { viaAlgodesk: new KiteQuoteStub(), direct: new KiteQuoteStub() };
  const deadline = setTimeout(() => {
    console.error(`bench quotes-live: FAILED: not finished after ${DEADLINE_MS / 1000} s`);
    ws.abortSync();
    process.exit(1);
  }, DEADLINE_MS);
  let server: Child | undefined;
  try {
    progress(`setup in ${ws.dir}`);
    const snapshot = kiteNseSnapshot();
    const cli = (...args: string[]) => ws.cli(args);
    const apikey = await createApiKey(cli);
    await importContract(cli, 'zerodha', snapshot);
    await ws
      .cli(['broker-session', 'set', '--username', BENCH_USER.username, '--broker', 'zerodha'], BROKER.token)
      .catch((err: unknown) => {
        // The CLI stores the session and may then exit 1 (see placeorder-live); the probe proves it.
        if (!String((err as Error).message).includes('driver has already been destroyed')) throw err;
      });
    const stubPort = await stubs.viaAlgodesk.listen();
    const directPort = await stubs.direct.listen();
    server = await ws.startServer('server', {
      BROKER_NAME: 'zerodha',
      BROKER_API_KEY: BROKER.apiKey,
      BROKER_API_SECRET: BROKER.apiSecret,
      BROKER_REDIRECT_URL: 'http://127.0.0.1/cb',
      BROKER_API_BASE_URL: `http://127.0.0.1:${stubPort}`,
    });
    const srv = server;
    await waitForIndex({
      log: () => ws.log(srv),
      exited: () => srv.process.exitCode !== null || srv.process.signalCode !== null,
    });

    const body = JSON.stringify({ apikey, symbol: 'SBIN', exchange: 'NSE' });
    const probe = await fetch(`http://127.0.0.1:${server.port}/api/v1/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const probeText = await probe.text();
    if (probe.status !== 200)
      throw new BenchFailure(`the probe quote answered ${probe.status}: ${probeText}`);
    progress(`algodesk answered ${probeText}; the client asked ${stubs.viaAlgodesk.lastUrl}`);
    const requests: Record<'stub' | 'algodesk', BenchRequest> = {
      algodesk: {
        method: 'POST',
        path: '/api/v1/quotes',
        headers: { 'content-type': 'application/json' },
        body,
      },
      stub: {
        method: 'GET',
        path: stubs.viaAlgodesk.lastUrl,
        headers: { authorization: `token ${BROKER.apiKey}:${BROKER.token}`, 'x-kite-version': '3' },
      },
    };
    const ports = { stub: directPort, algodesk: server.port };
    const measured = { stub: emptyStats(), algodesk: emptyStats() };
    const roundS = opts.durationS / ROUNDS;
    console.log(
      `quotes-live: POST /api/v1/quotes (zerodha) -> loopback Kite GET /quote, vs the stub directly; ` +
        `${opts.connections} connections, ${ROUNDS} rounds x ${roundS} s per side after ${WARMUP_S} s warm-up, node ${process.version}`,
    );
    for (let round = 1; round <= ROUNDS; round++)
      for (const side of ['stub', 'algodesk'] as const) {
        const load = { port: ports[side], request: requests[side], connections: opts.connections };
        if (round === 1) await runLoad({ ...load, durationS: WARMUP_S }, emptyStats());
        progress(`${side}: round ${round}/${ROUNDS}, ${roundS} s`);
        await runLoad({ ...load, durationS: roundS }, measured[side]);
      }
    const problems = [...problemsOf('algodesk', measured.algodesk), ...problemsOf('stub', measured.stub)];
    if (problems.length > 0) throw new BenchFailure(`invalid run:\n  ${problems.join('\n  ')}`);

    const f = computeFigures(measured.algodesk, measured.stub);
    const addedP50 = Math.round((f.p50Ms - f.baselineP50Ms) * 100) / 100;
    const addedP99 = Math.round((f.p99Ms - f.baselineP99Ms) * 100) / 100;
    const row = (label: string, cells: string[]) =>
      console.log(label.padEnd(20) + cells.map((c) => c.padStart(10)).join(''));
    row('', ['req/s', 'p50 ms', 'p99 ms']);
    row('stub, direct', [String(f.baselineRps), f.baselineP50Ms.toFixed(2), f.baselineP99Ms.toFixed(2)]);
    row('algodesk -> stub', [String(f.rps), f.p50Ms.toFixed(2), f.p99Ms.toFixed(2)]);
    row('added by algodesk', ['', addedP50.toFixed(2), addedP99.toFixed(2)]);
    console.log(
      `stub: TCP connections from algodesk ${stubs.viaAlgodesk.connections} for ${stubs.viaAlgodesk.quotes} quotes`,
    );
    if (opts.jsonFile !== undefined)
      writeJson(opts.jsonFile, {
        name: 'quotes-live',
        request: requests.algodesk,
        figures: f,
        server: measured.algodesk,
        baseline: measured.stub,
        durationS: opts.durationS,
        warmupS: WARMUP_S,
        rounds: ROUNDS,
        connections: opts.connections,
        targets: [],
        extra: {
          baseline_is: 'the Kite quote stub called directly',
          added_p50_ms: addedP50,
          added_p99_ms: addedP99,
        },
      });
    console.log(`bench quotes-live: added_p50_ms ${addedP50.toFixed(2)} added_p99_ms ${addedP99.toFixed(2)}`);
    return 0;
  } catch (err) {
    if (err instanceof BenchFailure && server !== undefined)
      console.error(`last lines of the server log:\n${ws.logTail(server, 10)}`);
    console.error(`bench quotes-live: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    clearTimeout(deadline);
    await ws.dispose();
    await Promise.all([stubs.viaAlgodesk.close(), stubs.direct.close()]);
  }
}
