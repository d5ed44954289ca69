import { createReadStream } from 'node:fs';
import { Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createQuoteClient,
  QuoteError,
  type QuoteClient,
  type QuoteClientOptions,
  type QuoteInstrument,
} from '../src/modules/brokers/quotes/quote-client.js';
import { UpstoxQuoteClient } from '../src/modules/brokers/quotes/upstox-quotes.js';
import { ZerodhaQuoteClient } from '../src/modules/brokers/quotes/zerodha-quotes.js';
import type { Instrument, ParsedItem } from '../src/modules/market/instrument.js';
import { parseUpstox } from '../src/modules/market/importers/upstox.js';
import { parseZerodha } from '../src/modules/market/importers/zerodha.js';
import { FakeClock } from '../src/platform/clock.js';
import { createLogger } from '../src/platform/logger.js';
import { quoteKey } from '../src/modules/sandbox/types.js';
import {
  depth,
  KiteQuoteStub,
  kiteError,
  kiteQuote,
  startKiteQuoteStub,
  startUpstoxQuoteStub,
  upstoxError,
  upstoxQuote,
  UpstoxQuoteStub,
  type BrokerStub,
} from './helpers/broker-quote-stubs.js';
import { sharedData } from './helpers/shared-data.js';

// Credentials the stubs accept; distinctive so any leak into a message or a log is caught.
const KITE = { apiKey: 'kiteKEY7w3q9', accessToken: 'kiteTOKENx81Lm2Pz' };
const UPSTOX_TOKEN = 'eyJ0eXAiOiJKV1QupstoxTOKEN4Qz';

// ---- real instruments, through the real master-contract parsers (shared/data README) -------------

async function rows(items: AsyncIterable<ParsedItem>): Promise<QuoteInstrument[]> {
  const out: QuoteInstrument[] = [];
  for await (const item of items)
    if (item.kind === 'row') {
      const { symbol, exchange, brsymbol, brexchange, token }: Instrument = item.row;
      out.push({ symbol, exchange, brsymbol, brexchange, token });
    }
  return out;
}

function named(list: QuoteInstrument[], names: Record<string, string>): Record<string, QuoteInstrument> {
  return Object.fromEntries(
    Object.entries(names).map(([k, key]) => {
      const row = list.find((r) => `${r.exchange}:${r.symbol}` === key);
      if (!row) throw new Error(`no ${key} in the master`);
      return [k, row];
    }),
  );
}

/** Kite: NSE 2025-10-06 and NFO/BFO 2026-08-18 masters; Upstox: complete.csv of 2026-02-05. */
let K: Record<'sbin' | 'infy' | 'nifty' | 'ce' | 'fut', QuoteInstrument> & { nfo: QuoteInstrument[] };
let U: Record<'sbin' | 'nhpc' | 'nifty' | 'ce' | 'fut', QuoteInstrument> & { nseFo: QuoteInstrument[] };
beforeAll(async () => {
  const kite = [
    ...(await rows(
      parseZerodha(createReadStream(sharedData('zerodha', 'kite_instruments_NSE_2025-10-06.csv'))),
    )),
    ...(await rows(
      parseZerodha(createReadStream(sharedData('zerodha', 'kite_instruments_NFO_BFO_2026-08-18.csv'))),
    )),
  ];
  const upstox = await rows(
    parseUpstox(
      createReadStream(sharedData('upstox', 'upstox_complete_2026-02-05.csv.gz')).pipe(createGunzip()),
    ),
  );
  K = {
    ...(named(kite, {
      sbin: 'NSE:SBIN',
      infy: 'NSE:INFY',
      nifty: 'NSE_INDEX:NIFTY',
      ce: 'NFO:NIFTY18AUG2626000CE',
      fut: 'NFO:BANKNIFTY25AUG26FUT',
    }) as typeof K),
    nfo: kite.filter((r) => r.exchange === 'NFO'),
  };
  U = {
    ...(named(upstox, {
      sbin: 'NSE:SBIN',
      nhpc: 'NSE:NHPC',
      nifty: 'NSE_INDEX:NIFTY',
      ce: 'NFO:NIFTY10FEB2626000CE',
      fut: 'NFO:BANKNIFTY24FEB26FUT',
    }) as typeof U),
    nseFo: upstox.filter((r) => r.brexchange === 'NSE_FO'),
  };
});

// ---- fixtures and plumbing -----------------------------------------------------------------------

/** Kite's documented `/quote` example (market-quotes page), verbatim: INFY, no bids, one ask. */
const KITE_DOC_INFY: Record<string, unknown> =
  JSON.parse(`{"instrument_token":408065,"timestamp":"2021-06-08 15:45:56",
  "last_trade_time":"2021-06-08 15:45:52","last_price":1412.95,"last_quantity":5,"buy_quantity":0,
  "sell_quantity":5191,"volume":7360198,"average_price":1412.47,"oi":0,"oi_day_high":0,"oi_day_low":0,
  "net_change":0,"lower_circuit_limit":1250.7,"upper_circuit_limit":1528.6,
  "ohlc":{"open":1396,"high":1421.75,"low":1395.55,"close":1389.65},
  "depth":{"buy":${JSON.stringify(depth([]))},"sell":${JSON.stringify(depth([[1412.95, 5191, 13]]))}}}`);

/** Upstox's documented full-quote example (get-full-market-quote), verbatim: NHPC, one bid. */
const UPSTOX_DOC_NHPC: Record<string, unknown> =
  JSON.parse(`{"ohlc":{"open":53.4,"high":53.8,"low":51.75,"close":52.05},
  "depth":{"buy":${JSON.stringify(depth([[52.05, 6917, 20]]))},"sell":${JSON.stringify(depth([]))}},
  "timestamp":"2023-10-19T05:21:51.099+05:30","instrument_token":"NSE_EQ|INE848E01016","symbol":"NHPC",
  "last_price":52.04999923706055,"volume":24123697,"average_price":52.56,"oi":0,"net_change":-1.0500000000000043,
  "total_buy_quantity":6917,"total_sell_quantity":0,"lower_circuit_limit":42.5,"upper_circuit_limit":63.7,
  "last_trade_time":"1697624972130","oi_day_high":0,"oi_day_low":0}`);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A stub of `broker`, its client (logging at debug into `logs()`), closed after the test. */
async function setup(broker: 'zerodha' | 'upstox', opts: Partial<QuoteClientOptions> = {}) {
  const stub =
    broker === 'zerodha' ? await startKiteQuoteStub(KITE) : await startUpstoxQuoteStub(UPSTOX_TOKEN);
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const client = createQuoteClient(broker, {
    baseUrl: stub.url,
    apiKey: KITE.apiKey,
    accessToken: broker === 'zerodha' ? KITE.accessToken : UPSTOX_TOKEN,
    logger: createLogger('debug', sink),
    ...opts,
  });
  cleanups.push(
    () => stub.close(),
    () => client.close(),
  );
  return { stub, client, logs: () => lines.join('') };
}

/** Puts a documented-shape quote for each instrument in the stub, ltp `price + position`. */
function fill(stub: BrokerStub, list: readonly QuoteInstrument[], price = 100): void {
  list.forEach((i, n) => {
    if (stub instanceof KiteQuoteStub)
      stub.quotes.set(
        `${i.brexchange}:${i.brsymbol}`,
        kiteQuote({ instrumentToken: Number(i.token), lastPrice: price + n }),
      );
    else if (stub instanceof UpstoxQuoteStub)
      stub.quotes.set(
        i.token,
        upstoxQuote({ instrumentKey: i.token, symbol: i.brsymbol, lastPrice: price + n }),
      );
  });
}

/** The QuoteError `promise` rejects with (fails the test when it resolves or rejects otherwise). */
async function quoteError(promise: Promise<unknown>): Promise<QuoteError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(QuoteError);
  return err as QuoteError;
}

const kiteKeysAsked = (stub: BrokerStub) => stub.requests.map((r) => r.query.getAll('i'));
const upstoxKeysAsked = (stub: BrokerStub) =>
  stub.requests.map((r) => (r.query.get('instrument_key') ?? '').split(','));

// ---- Kite Connect --------------------------------------------------------------------------------

describe('Kite quotes: GET /quote with i=EXCHANGE:TRADINGSYMBOL, answers mapped back to algodesk symbols', () => {
  it('asks with the documented headers and the broker symbols, and keys answers by EXCHANGE:SYMBOL', async () => {
    const { stub, client } = await setup('zerodha');
    const list = [K.sbin, K.nifty, K.ce, K.fut];
    fill(stub, list);

    const quotes = await client.quotes(list);

    expect(stub.requests).toHaveLength(1);
    const req = stub.requests[0]!;
    expect(req).toMatchObject({ method: 'GET', path: '/quote', authOk: true });
    expect(req.headers['x-kite-version']).toBe('3');
    expect(req.headers.authorization).toBeUndefined(); // the stub keeps no credential
    expect(kiteKeysAsked(stub)).toEqual([
      ['NSE:SBIN', 'NSE:NIFTY 50', 'NFO:NIFTY2681826000CE', 'NFO:BANKNIFTY26AUGFUT'],
    ]);
    expect([...quotes.keys()]).toEqual([
      quoteKey('NSE', 'SBIN'),
      quoteKey('NSE_INDEX', 'NIFTY'),
      quoteKey('NFO', 'NIFTY18AUG2626000CE'),
      quoteKey('NFO', 'BANKNIFTY25AUG26FUT'),
    ]);
    expect(quotes.get('NSE_INDEX:NIFTY')?.ltp).toBe(101);
  });

  it("reads Kite's documented example: ltp, best bid/ask, day high/low, IST timestamp to epoch ms", async () => {
    const { stub, client } = await setup('zerodha');
    (stub as KiteQuoteStub).quotes.set('NSE:INFY', KITE_DOC_INFY);

    const quotes = await client.quotes([K.infy]);

    expect(quotes.get('NSE:INFY')).toEqual({
      ltp: 1412.95,
      bid: 0, // the buy side is five rows of zeros
      ask: 1412.95,
      high: 1421.75,
      low: 1395.55,
      timestamp: Date.UTC(2021, 5, 8, 10, 15, 56), // 15:45:56 IST
    });
  });

  it('gives bid and ask 0 for an empty book: zero-padded, empty or missing depth', async () => {
    const { stub, client } = await setup('zerodha');
    const table = (stub as KiteQuoteStub).quotes;
    fill(stub, [K.sbin]);
    table.set('NSE:INFY', { ...KITE_DOC_INFY, depth: { buy: [], sell: [] } });
    const { depth: _none, ...index } = kiteQuote({ instrumentToken: 256265, lastPrice: 24850.15 });
    table.set('NSE:NIFTY 50', index);

    const quotes = await client.quotes([K.sbin, K.infy, K.nifty]);

    for (const key of ['NSE:SBIN', 'NSE:INFY', 'NSE_INDEX:NIFTY'])
      expect(quotes.get(key)).toMatchObject({ bid: 0, ask: 0 });
  });

  it('leaves out instruments Kite does not answer, and asks once for one listed twice', async () => {
    const { stub, client } = await setup('zerodha');
    fill(stub, [K.sbin]);

    const quotes = await client.quotes([K.sbin, K.ce, { ...K.sbin }]);

    expect(kiteKeysAsked(stub)).toEqual([['NSE:SBIN', 'NFO:NIFTY2681826000CE']]);
    expect([...quotes.keys()]).toEqual(['NSE:SBIN']);
  });

  it('uses the receive time when the timestamp is absent, null or the 1970 placeholder', async () => {
    const clock = new FakeClock(Date.UTC(2026, 7, 18, 5, 0, 0));
    const { stub, client } = await setup('zerodha', { clock });
    const table = (stub as KiteQuoteStub).quotes;
    table.set('NSE:SBIN', kiteQuote({ instrumentToken: 779521, lastPrice: 1, timestamp: null }));
    const { timestamp: _t, ...noTimestamp } = KITE_DOC_INFY;
    table.set('NSE:INFY', noTimestamp);
    table.set(
      'NSE:NIFTY 50',
      kiteQuote({ instrumentToken: 256265, lastPrice: 1, timestamp: '1970-01-01 05:30:00' }),
    );

    const quotes = await client.quotes([K.sbin, K.infy, K.nifty]);

    expect([...quotes.values()].map((q) => q.timestamp)).toEqual([clock.now(), clock.now(), clock.now()]);
  });

  it('splits 1,201 instruments into 500 + 500 + 201 in order, on one keep-alive connection', async () => {
    const { stub, client } = await setup('zerodha');
    const list = K.nfo.slice(0, 1201);
    fill(stub, list);

    const quotes = await client.quotes(list);

    expect(client.maxBatch).toBe(500);
    expect(kiteKeysAsked(stub).map((k) => k.length)).toEqual([500, 500, 201]);
    expect(kiteKeysAsked(stub).flat()).toEqual(list.map((i) => `${i.brexchange}:${i.brsymbol}`));
    expect(quotes.size).toBe(1201);
    expect(quotes.get(quoteKey(list[1200]!.exchange, list[1200]!.symbol))?.ltp).toBe(1300);
    expect(stub.connections).toBe(1);
  });
});

// ---- Upstox --------------------------------------------------------------------------------------

describe('Upstox quotes: GET /v2/market-quote/quotes by instrument key, answers matched by instrument_token', () => {
  it('asks with the documented headers and comma-separated keys; SEGMENT:SYMBOL answers map back', async () => {
    const { stub, client } = await setup('upstox');
    const list = [U.sbin, U.nifty, U.ce, U.fut];
    fill(stub, list);
    // Upstox keys an index answer by its name (`NSE_INDEX:Nifty 50`), not the master's `NIFTY`.
    (stub as UpstoxQuoteStub).quotes.set(
      'NSE_INDEX|Nifty 50',
      upstoxQuote({ instrumentKey: 'NSE_INDEX|Nifty 50', symbol: 'Nifty 50', lastPrice: 25727.55 }),
    );

    const quotes = await client.quotes(list);

    expect(stub.requests).toHaveLength(1);
    const req = stub.requests[0]!;
    expect(req).toMatchObject({ method: 'GET', path: '/v2/market-quote/quotes', authOk: true });
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers.authorization).toBeUndefined();
    expect(upstoxKeysAsked(stub)).toEqual([
      ['NSE_EQ|INE062A01020', 'NSE_INDEX|Nifty 50', 'NSE_FO|42546', 'NSE_FO|59175'],
    ]);
    expect(Object.fromEntries([...quotes].map(([k, q]) => [k, q.ltp]))).toEqual({
      'NSE:SBIN': 100,
      'NSE_INDEX:NIFTY': 25727.55,
      'NFO:NIFTY10FEB2626000CE': 102,
      'NFO:BANKNIFTY24FEB26FUT': 103,
    });
  });

  it("reads Upstox's documented example, float32 prices and the +05:30 timestamp included", async () => {
    const { stub, client } = await setup('upstox');
    (stub as UpstoxQuoteStub).quotes.set('NSE_EQ|INE848E01016', UPSTOX_DOC_NHPC);

    const quotes = await client.quotes([U.nhpc]);

    expect(quotes.get('NSE:NHPC')).toEqual({
      ltp: 52.05, // sent as 52.04999923706055, the float32 of 52.05
      bid: 52.05,
      ask: 0,
      high: 53.8,
      low: 51.75,
      timestamp: Date.UTC(2023, 9, 18, 23, 51, 51, 99),
    });
  });

  it('gives bid and ask 0 for an empty book and the receive time without a timestamp', async () => {
    const clock = new FakeClock();
    const { stub, client } = await setup('upstox', { clock });
    const q = upstoxQuote({
      instrumentKey: U.nifty.token,
      symbol: 'Nifty 50',
      lastPrice: 25727.55,
      timestamp: null,
    });
    (stub as UpstoxQuoteStub).quotes.set(U.nifty.token, q);

    const quotes = await client.quotes([U.nifty]);

    expect(quotes.get('NSE_INDEX:NIFTY')).toMatchObject({ bid: 0, ask: 0, timestamp: clock.now() });
  });

  it('leaves out unanswered instruments and never sends a token that is not an instrument key', async () => {
    const { stub, client } = await setup('upstox');
    fill(stub, [U.sbin]);

    const quotes = await client.quotes([U.sbin, U.ce, K.infy /* Kite token 408065 */]);

    expect(upstoxKeysAsked(stub)).toEqual([['NSE_EQ|INE062A01020', 'NSE_FO|42546']]);
    expect([...quotes.keys()]).toEqual(['NSE:SBIN']);
  });

  it('splits 501 instruments into 500 + 1 on one keep-alive connection', async () => {
    const { stub, client } = await setup('upstox');
    const list = U.nseFo.slice(0, 501);
    fill(stub, list);

    const quotes = await client.quotes(list);

    expect(upstoxKeysAsked(stub).map((k) => k.length)).toEqual([500, 1]);
    expect(quotes.size).toBe(501);
    expect(stub.connections).toBe(1);
  });
});

// ---- errors --------------------------------------------------------------------------------------

describe('failures are QuoteErrors with status, broker code and retryability, and never carry a credential', () => {
  it('Kite 403 TokenException: not retryable; neither token nor API key in the message or the logs', async () => {
    const { stub, client, logs } = await setup('zerodha', { accessToken: 'kiteEXPIREDtok77' });

    const err = await quoteError(client.quotes([K.sbin]));

    expect(stub.requests[0]!.authOk).toBe(false);
    expect(err).toMatchObject({ broker: 'zerodha', status: 403, code: 'TokenException', retryable: false });
    expect(err.message).toContain('Incorrect `api_key` or `access_token`.');
    for (const text of [err.message, logs()])
      for (const secret of ['kiteEXPIREDtok77', KITE.apiKey]) expect(text).not.toContain(secret);
    expect(logs()).toContain('TokenException');
  });

  it('a broker message that echoes the credentials is redacted', async () => {
    const { stub, client, logs } = await setup('zerodha');
    stub.failNext(
      403,
      kiteError(`Session token ${KITE.apiKey}:${KITE.accessToken} expired`, 'TokenException'),
    );

    const err = await quoteError(client.quotes([K.sbin]));

    expect(err.message).toContain('[redacted]');
    for (const text of [err.message, logs()])
      for (const secret of [KITE.accessToken, KITE.apiKey]) expect(text).not.toContain(secret);
  });

  it('Upstox 401 UDAPI100050: not retryable, token absent from message and logs', async () => {
    const { stub, client, logs } = await setup('upstox', { accessToken: 'upstoxSTALEtok55' });

    const err = await quoteError(client.quotes([U.sbin]));

    expect(stub.requests[0]!.authOk).toBe(false);
    expect(err).toMatchObject({ broker: 'upstox', status: 401, code: 'UDAPI100050', retryable: false });
    expect(err.message).toContain('Invalid token used to access API');
    expect(err.message + logs()).not.toContain('upstoxSTALEtok55');
  });

  const upstox500 = upstoxError('UDAPI100500', 'Something went wrong... please contact us');
  it.each([
    // Bodies in each broker's documented error shape; the Kite texts are illustrative.
    ['zerodha', 429, kiteError('Too many requests', 'NetworkException'), 'NetworkException', true],
    ['zerodha', 500, kiteError('Something went wrong', 'GeneralException'), 'GeneralException', true],
    ['zerodha', 502, '<html><body>502 Bad Gateway</body></html>', 'http_502', true],
    ['zerodha', 400, kiteError('Invalid instrument', 'InputException'), 'InputException', false],
    ['zerodha', 200, kiteError('Unable to parse the OMS response', 'DataException'), 'DataException', false],
    ['upstox', 429, upstoxError('UDAPI10005', 'Too Many Request Sent'), 'UDAPI10005', true],
    ['upstox', 500, upstox500, 'UDAPI100500', true],
    ['upstox', 503, '', 'http_503', true],
    ['upstox', 400, upstoxError('UDAPI1011', 'instrument_key is of invalid format'), 'UDAPI1011', false],
  ] as const)('%s HTTP %i → code %s, retryable %s', async (broker, status, body, code, retryable) => {
    const { stub, client } = await setup(broker);
    stub.failNext(status, body);

    const err = await quoteError(client.quotes([broker === 'zerodha' ? K.sbin : U.sbin]));

    expect(err).toMatchObject({ broker, status, code, retryable });
  });

  it('a batch that fails stops the call: later batches are not asked', async () => {
    const { stub, client } = await setup('zerodha');
    fill(stub, K.nfo.slice(0, 1001));
    stub.failNext(500, kiteError('Something went wrong', 'GeneralException'));

    await quoteError(client.quotes(K.nfo.slice(0, 1001)));

    expect(stub.requests).toHaveLength(1);
  });

  it('a broker slower than timeoutMs is a retryable timeout, and the next call succeeds', async () => {
    const { stub, client } = await setup('zerodha', { timeoutMs: 150 });
    fill(stub, [K.sbin]);
    stub.delayNext(2000);

    const err = await quoteError(client.quotes([K.sbin]));

    expect(err).toMatchObject({ code: 'timeout', retryable: true, status: undefined });
    expect((await client.quotes([K.sbin])).has('NSE:SBIN')).toBe(true);
  });

  it('without an access token (or Kite API key) nothing is sent', async () => {
    for (const [broker, opts, inst] of [
      ['zerodha', { accessToken: () => undefined }, K.sbin],
      ['zerodha', { apiKey: undefined }, K.sbin],
      ['upstox', { accessToken: '' }, U.sbin],
    ] as const) {
      const { stub, client } = await setup(broker, opts);
      const err = await quoteError(client.quotes([inst]));
      expect(err).toMatchObject({ code: 'no_token', retryable: false, status: undefined });
      expect(stub.connections).toBe(0);
    }
  });

  it('reads the access token on every call, so a new session is used at once', async () => {
    let token = 'kiteOLDsession01';
    const { stub, client } = await setup('zerodha', { accessToken: () => token });
    fill(stub, [K.sbin]);

    expect((await quoteError(client.quotes([K.sbin]))).code).toBe('TokenException');
    token = KITE.accessToken;
    expect((await client.quotes([K.sbin])).has('NSE:SBIN')).toBe(true);
  });

  it('an aborted signal rejects with its reason and sends nothing', async () => {
    const { stub, client } = await setup('upstox');
    const ac = new AbortController();
    ac.abort();

    await expect(client.quotes([U.sbin], ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(stub.requests).toHaveLength(0);
  });
});

// ---- connections and lifecycle ------------------------------------------------------------------

describe('one keep-alive pool per broker origin', () => {
  it.each(['zerodha', 'upstox'] as const)('%s: five calls share one TCP connection', async (broker) => {
    const { stub, client } = await setup(broker);
    const inst = broker === 'zerodha' ? K.sbin : U.sbin;
    fill(stub, [inst]);

    for (let n = 0; n < 5; n++) expect((await client.quotes([inst])).size).toBe(1);

    expect(stub.requests).toHaveLength(5);
    expect(stub.connections).toBe(1);
  });

  it('close() lets the connection go; later calls are refused as closed; closing twice is fine', async () => {
    const { stub, client } = await setup('upstox');
    await client.quotes([U.sbin]);
    expect(stub.openConnections).toBe(1);

    await client.close();
    await expect.poll(() => stub.openConnections).toBe(0);
    expect(await quoteError(client.quotes([U.sbin]))).toMatchObject({ code: 'closed', retryable: false });
    await client.close();
  });

  it('createQuoteClient builds the broker client with its batch limit', async () => {
    const z: QuoteClient = createQuoteClient('zerodha', { apiKey: 'k', accessToken: 't' });
    const u: QuoteClient = createQuoteClient('upstox', { accessToken: 't' });
    cleanups.push(() => z.close().then(() => u.close()));

    expect(z).toBeInstanceOf(ZerodhaQuoteClient);
    expect(u).toBeInstanceOf(UpstoxQuoteClient);
    expect([z.broker, z.maxBatch, u.broker, u.maxBatch]).toEqual(['zerodha', 500, 'upstox', 500]);
    expect(await z.quotes([])).toEqual(new Map());
  });
});
