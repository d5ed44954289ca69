/**
 * The live contract suite's rigs (see live-rigs.ts) of Fyers (API v3: its order stub, which also
 * serves the data API of broker-history-stub-fyers.ts, and the real symbol masters NSE_CM and
 * BSE_FO concatenated, as the importer reads them: the fixtures have no NSE_FO file, so the
 * derivative is a SENSEX option on BFO) and of Shoonya and Flattrade (one Noren OMS stub under each
 * variant's REST path; GetQuotes and EODChartData served by it). Noren's symbol files have one
 * header per exchange and an import replaces the whole contract, so the Noren rigs' contract is the
 * NFO cut with the NSE cut's equity row written under the NFO header by column name (the importer
 * reads columns by name; the equity's Expiry, OptionType and StrikePrice are empty). The stubs'
 * rate limits are lifted, as the suite is not about pacing.
 */
import { readFileSync } from 'node:fs';
import { fyersError } from '../helpers/broker-history-stub-fyers.js';
import { FYERS_CODES, startFyersStub } from '../helpers/broker-order-stub-fyers.js';
import { NorenStub, norenFail, startNorenStub } from '../helpers/broker-order-stub-noren.js';
import { FYERS, FYERS_CLIENT_ID } from '../helpers/fyers-fixtures.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { FLATTRADE_CREDS, SHOONYA_CREDS } from '../helpers/noren-fixtures.js';
import type { NorenStubCredentials } from '../helpers/broker-order-stub-noren.js';
import { FLATTRADE, SHOONYA, type NorenVariant } from '../../src/modules/brokers/noren/noren.mapping.js';
import { neutral, type Body, type LiveRig, type RigStub } from './live-rig-world.js';

/** Fyers' order `type` codes and product types in OpenAlgo's words (docs "Order Placement Guide"). */
const FYERS_TYPE: Record<string, string> = { '1': 'LIMIT', '2': 'MARKET', '3': 'SL-M', '4': 'SL' };
const FYERS_PRODUCT: Record<string, string> = { CNC: 'CNC', INTRADAY: 'MIS', MARGIN: 'NRML' };
/** Fyers' order status codes as words (docs "Orders": 1 cancelled, 2 traded, 4 transit, 5 rejected, 6 pending, 7 expired). */
const FYERS_STATUS: Record<string, string> = {
  '1': 'cancelled',
  '2': 'traded',
  '4': 'transit',
  '5': 'rejected',
  '6': 'pending',
  '7': 'expired',
};

const fyersMaster = () =>
  Buffer.concat(['NSE_CM', 'BSE_FO'].map((f) => readFileSync(marketFixture('fyers', `${f}.csv`))));

export const fyers: LiveRig = {
  broker: 'fyers',
  symbols: { eq: 'SBIN', fno: 'SENSEX27NOV2591700CE' },
  fnoExchange: 'BFO',
  env: {
    BROKER_API_KEY: FYERS.appId,
    BROKER_API_SECRET: FYERS.appSecret,
    BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/fyers/callback',
  },
  contract: fyersMaster,
  session: () => ({
    accessToken: FYERS.accessToken,
    brokerUserId: FYERS_CLIENT_ID,
    refreshToken: FYERS.refreshToken,
  }),
  wrongSession: {
    session: { accessToken: 'eyJ0eXAiOiJKV1QifyersWRONG.e30.fySIGwrong5x', brokerUserId: FYERS_CLIENT_ID },
    status: 401,
  },
  refusal: {
    status: 400,
    body: fyersError(400, -99, 'RMS:Margin Shortfall').body,
    message: 'RMS:Margin Shortfall',
  },
  intervals: { days: ['D'], hours: ['1h'], minutes: ['1m', '3m', '5m', '10m', '15m', '30m'] },
  unservedInterval: 'W',
  positionLtp: true,
  async startStub(): Promise<RigStub> {
    const stub = await startFyersStub(FYERS);
    stub.data.perSecond = 1_000;
    return {
      stub,
      url: stub.url,
      teach: (i) => {
        const [exchange, segment] = FYERS_CODES[i.brexchange]!;
        stub.instruments.set(i.brsymbol, { fyToken: i.token, exchange, segment });
      },
      nameOf: (i) => i.brsymbol,
      sent: () =>
        stub.bodies('/api/v3/orders/sync', 'POST').map((b) =>
          neutral({
            instrument: b.symbol,
            side: b.side === -1 ? 'SELL' : 'BUY',
            quantity: b.qty,
            priceType: FYERS_TYPE[String(b.type)],
            product: FYERS_PRODUCT[String(b.productType)],
            price: b.limitPrice,
            trigger: b.stopPrice,
          }),
        ),
      booked: () =>
        [...stub.orders.values()].map((h) => ({
          id: String(h[0]!.id),
          side: h[0]!.side === -1 ? 'SELL' : 'BUY',
          quantity: Number(h[0]!.qty),
          tag: String(h[0]!.orderTag).replace(/^1:/, ''),
          status: FYERS_STATUS[String(h.at(-1)!.status)] ?? String(h.at(-1)!.status),
        })),
      fill: (id) => stub.settle(id, 2),
      holding: (i, h) => {
        // Docs "Holdings": a row per holding type; the T1 share is counted in `qty_t1`.
        stub.holdingRows = [
          {
            holdingType: 'HLD',
            quantity: h.quantity,
            costPrice: h.average,
            marketVal: h.ltp * h.quantity,
            remainingQuantity: h.quantity,
            pl: (h.ltp - h.average) * h.quantity,
            ltp: h.ltp,
            id: 1,
            fyToken: i.token,
            exchange: FYERS_CODES[i.brexchange]![0],
            segment: FYERS_CODES[i.brexchange]![1],
            symbol: i.brsymbol,
            isin: 'INE062A01020',
            qty_t1: 1,
            remainingPledgeQuantity: h.quantity,
            collateralQuantity: 0,
          },
        ];
      },
      seedQuote: (i, q) => {
        const level = ([price, volume]: [number, number]) => ({ price, volume, ord: 1 });
        stub.data.quotes.set(i.brsymbol, {
          lp: q.ltp,
          open_price: q.open,
          high_price: q.high,
          low_price: q.low,
          prev_close_price: q.prevClose,
          bid: q.bids[0]?.[0] ?? 0,
          ask: q.asks[0]?.[0] ?? 0,
          ch: Math.round((q.ltp - q.prevClose) * 100) / 100,
          volume: 0,
          symbol: i.brsymbol,
          fyToken: i.token,
        });
        stub.data.depths.set(i.brsymbol, {
          totalbuyqty: q.bids.reduce((a, [, v]) => a + v, 0),
          totalsellqty: q.asks.reduce((a, [, v]) => a + v, 0),
          bids: q.bids.map(level),
          ask: q.asks.map(level),
          o: q.open,
          h: q.high,
          l: q.low,
          c: q.prevClose,
          ltp: q.ltp,
          v: 0,
          oi: 0,
        });
      },
      seedDaily: (i, rows) =>
        // The docs' sample stamps a day at 00:00 UTC.
        void stub.data.candles.set(
          `${i.brsymbol}|D`,
          rows.map((c) => [
            Date.parse(`${c.date}T00:00:00Z`) / 1000,
            c.open,
            c.high,
            c.low,
            c.close,
            c.volume,
          ]),
        ),
      close: () => stub.close(),
    };
  },
};

/** The Noren rigs' master: the NFO cut with the NSE cut's `SBIN-EQ` row under its header (file comment). */
function norenMaster(): Buffer {
  const lines = (name: string) =>
    readFileSync(marketFixture('shoonya', name), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
  const [nfoHeader, ...nfo] = lines('NFO_symbols_cut.txt');
  const [nseHeader, ...nse] = lines('shoonya_NSE_symbols_2026-08-19_cut.txt');
  const columns = nfoHeader!.split(',');
  const nseColumns = nseHeader!.split(',');
  const eq = nse.find((l) => l.split(',')[4] === 'SBIN-EQ')!.split(',');
  const row = columns.map((c) => (c === '' ? '' : (eq[nseColumns.indexOf(c)] ?? '')));
  return Buffer.from([nfoHeader, ...nfo, row.join(',')].join('\n') + '\n');
}

/** Noren's `prctyp` and `prd` in OpenAlgo's words (`C` is CNC on the cash exchange). */
const NOREN_TYPE: Record<string, string> = { MKT: 'MARKET', LMT: 'LIMIT', 'SL-LMT': 'SL', 'SL-MKT': 'SL-M' };
const norenProduct = (b: Body) =>
  b.prd === 'I' ? 'MIS' : b.prd === 'C' && b.exch === 'NSE' ? 'CNC' : 'NRML';
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
/** `2026-01-05` as EODChartData writes a day (`05-JAN-2026`). */
const eodDay = (d: string) => `${d.slice(8)}-${MONTHS[Number(d.slice(5, 7)) - 1]!}-${d.slice(0, 4)}`;

/** A Noren broker's rig: `variant` and the stub's credentials for it. */
function norenRig(variant: NorenVariant, creds: NorenStubCredentials): LiveRig {
  const base = new URL(variant.baseUrl).pathname;
  return {
    broker: variant.name as LiveRig['broker'],
    symbols: { eq: 'SBIN', fno: 'NIFTY09JAN2523500CE' },
    env: {
      BROKER_API_KEY: creds.apiKey,
      BROKER_API_SECRET: creds.apiSecret,
      BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/flattrade/callback',
    },
    contract: norenMaster,
    session: () => ({ accessToken: creds.token, brokerUserId: creds.userId }),
    wrongSession: {
      session: { accessToken: 'a1b2c3WRONGnorenSESSION0000ffff', brokerUserId: creds.userId },
      status: 401,
    },
    refusal: {
      status: 200,
      body: norenFail('RED:Margin Shortfall:INR 40,012.50 Available:INR 0.00').body,
      message: 'RED:Margin Shortfall',
      answered: 400,
    },
    intervals: { days: ['D'], hours: ['1h'], minutes: ['1m', '3m', '5m', '10m', '15m', '30m'] },
    unservedInterval: 'W',
    positionLtp: true,
    holdingLtp: false,
    async startStub(): Promise<RigStub> {
      const stub = await startNorenStub(creds, base);
      const placed = () =>
        stub.requests.filter((r) => r.path === `${base}/PlaceOrder`).map((r) => NorenStub.jData(r));
      return {
        stub,
        url: `${stub.url}${base}`,
        teach: (i) => void stub.tokens.set(`${i.brexchange}|${i.brsymbol}`, i.token),
        nameOf: (i) => `${i.brexchange}:${i.brsymbol}`,
        sent: () =>
          placed().map((b) =>
            neutral({
              instrument: `${String(b.exch)}:${String(b.tsym)}`,
              side: b.trantype === 'S' ? 'SELL' : 'BUY',
              quantity: b.qty,
              priceType: NOREN_TYPE[String(b.prctyp)],
              product: norenProduct(b),
              price: b.prc,
              trigger: b.trgprc,
            }),
          ),
        booked: () =>
          [...stub.orders.values()].map((h) => ({
            id: String(h[0]!.norenordno),
            side: h[0]!.trantype === 'S' ? 'SELL' : 'BUY',
            quantity: Number(h[0]!.qty),
            tag: String(h[0]!.remarks ?? ''),
            // Noren spells it CANCELED.
            status: String(h.at(-1)!.status)
              .toLowerCase()
              .replace(/^canceled$/, 'cancelled'),
          })),
        fill: (id) => {
          const h = stub.orders.get(id)!;
          const last = h.at(-1)!;
          const avgprc = stub.priceOf(String(last.tsym)).toFixed(2);
          h.push({ ...last, status: 'COMPLETE', fillshares: last.qty, avgprc });
        },
        holding: (i, h) => {
          // get_holdings: the listings, the quantities and the upload price; no last price.
          stub.holdingRows = [
            {
              stat: 'Ok',
              exch_tsym: [
                { exch: i.brexchange, token: i.token, tsym: i.brsymbol, pp: '2', ti: '0.05', ls: '1' },
              ],
              holdqty: String(h.quantity - 1),
              npoadt1qty: '1',
              dpqty: '0',
              colqty: '0',
              btstqty: '0',
              btstcolqty: '0',
              usedqty: '0',
              upldprc: h.average.toFixed(2),
            },
          ];
        },
        seedQuote: (i, q) => {
          const depth: Record<string, string> = {};
          for (let n = 1; n <= 5; n++) {
            const [bp, bq] = q.bids[n - 1] ?? [0, 0];
            const [sp, sq] = q.asks[n - 1] ?? [0, 0];
            Object.assign(depth, {
              [`bp${n}`]: bp.toFixed(2),
              [`bq${n}`]: String(bq),
              [`bo${n}`]: bq ? '1' : '0',
              [`sp${n}`]: sp.toFixed(2),
              [`sq${n}`]: String(sq),
              [`so${n}`]: sq ? '1' : '0',
            });
          }
          stub.quotes.set(`${i.brexchange}|${i.token}`, {
            exch: i.brexchange,
            tsym: i.brsymbol,
            token: i.token,
            lp: q.ltp.toFixed(2),
            o: q.open.toFixed(2),
            h: q.high.toFixed(2),
            l: q.low.toFixed(2),
            c: q.prevClose.toFixed(2),
            v: '0',
            ...depth,
          });
        },
        seedDaily: (i, rows) =>
          // get_daily_price_series: JSON strings, `ssboe` the day at 00:00 UTC (the README's sample).
          void stub.series.set(
            `${i.brexchange}:${i.brsymbol}`,
            rows.map((c) =>
              JSON.stringify({
                time: eodDay(c.date),
                into: c.open.toFixed(2),
                inth: c.high.toFixed(2),
                intl: c.low.toFixed(2),
                intc: c.close.toFixed(2),
                ssboe: String(Date.parse(`${c.date}T00:00:00Z`) / 1000),
                intv: c.volume.toFixed(2),
              }),
            ),
          ),
        close: () => stub.close(),
      };
    },
  };
}

export const shoonya = norenRig(SHOONYA, SHOONYA_CREDS);
export const flattrade = norenRig(FLATTRADE, FLATTRADE_CREDS);
