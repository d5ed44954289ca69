/**
 * What the Noren (Shoonya, Flattrade) tests share: both variants pointed at the loopback stub
 * (test/helpers/broker-order-stub-noren.ts), credentials for each, instruments from the Noren
 * symbol-file cuts through the real importer (test/fixtures/market/shoonya), and the answers the
 * NorenApi-Py README prints as examples (get_quotes' ACC-EQ, get_time_price_series' rows,
 * get_daily_price_series' JSON strings, holdings' ABB-EQ), with their numbers as documented.
 */
import { createReadStream } from 'node:fs';
import type { QuoteInstrument } from '../../src/modules/brokers/quotes/quote-client.js';
import { FLATTRADE, SHOONYA, type NorenVariant } from '../../src/modules/brokers/noren/noren.mapping.js';
import { NorenAdapter } from '../../src/modules/brokers/noren/noren.adapter.js';
import type { NorenOptions } from '../../src/modules/brokers/noren/noren.auth.js';
import { parseNoren } from '../../src/modules/market/importers/noren.js';
import { named, rows, closeLater } from './broker-quote-fixtures.js';
import { captureLogs } from './broker-order-stubs.js';
import { marketFixture } from './market-fixtures.js';
import { startNorenStub, type NorenStub, type NorenStubCredentials } from './broker-order-stub-noren.js';

/** Shoonya: the vendor code as `apiKey`, the API key (hashed into `appkey`) as `apiSecret`. */
export const SHOONYA_CREDS: NorenStubCredentials = {
  apiKey: 'FA12345_U',
  apiSecret: 'shoonyaAPIKEYq8Zt4Wm',
  userId: 'FA12345',
  password: 'Pa55w0rd!shoonya',
  totp: '482913',
  token: '3b97f4c67762259a9ded6dbd7bfafe2787e662b3870422ddd343a59895f423a0',
  requestCode: 'unused-by-shoonya',
};

/** Flattrade: the API key and secret of the app; the request code the portal returned. */
export const FLATTRADE_CREDS: NorenStubCredentials = {
  apiKey: 'xcvvwegfhgh4454646',
  apiSecret: 'flattradeSECRETk2Lp9',
  userId: 'CCODE123',
  password: 'unused-by-flattrade',
  totp: '000000',
  token: 'dsfdsf84okkdlfelfdfdfd3454545454ssdfsf',
  requestCode: 'xxdfddfdfdsfdsf84okkdlfelfdfdfd345fsf',
};

/** The two variants with their credentials and the stub path of their REST base. */
export const VARIANTS: readonly { variant: NorenVariant; creds: NorenStubCredentials; base: string }[] = [
  { variant: SHOONYA, creds: SHOONYA_CREDS, base: new URL(SHOONYA.baseUrl).pathname },
  { variant: FLATTRADE, creds: FLATTRADE_CREDS, base: new URL(FLATTRADE.baseUrl).pathname },
];

/** A started stub and an adapter of `variant` pointed at it (both closed after the test). */
export async function setupNoren(
  v: (typeof VARIANTS)[number],
  opts: Partial<NorenOptions> = {},
): Promise<{ stub: NorenStub; adapter: NorenAdapter; logs: () => string; options: NorenOptions }> {
  const stub = await startNorenStub(v.creds, v.base);
  const { logger, logs } = captureLogs();
  const options: NorenOptions = {
    apiKey: v.creds.apiKey,
    apiSecret: v.creds.apiSecret,
    redirectUrl: 'https://algodesk.example/broker/callback',
    baseUrl: `${stub.url}${v.base}`,
    loginBaseUrl: `${stub.url}/login/`,
    tokenUrl: `${stub.url}/trade/apitoken`,
    logger,
    ...opts,
  };
  const adapter = new NorenAdapter(v.variant, options);
  closeLater(() => stub.close());
  closeLater(() => adapter.close());
  return { stub, adapter, logs, options };
}

/** The session the stub starts with. */
export const sessionOf = (creds: NorenStubCredentials) => ({
  accessToken: creds.token,
  brokerUserId: creds.userId,
});

export type NorenSet = Record<'sbin' | 'mm' | 'nifty' | 'ce' | 'fut' | 'sensexCe', QuoteInstrument>;

/** Instruments of the Noren cuts, as the master contract stores them. */
export async function loadNorenInstruments(): Promise<NorenSet> {
  const file = (name: string) => createReadStream(marketFixture('shoonya', name));
  const all = [
    ...(await rows(parseNoren(file('shoonya_NSE_symbols_2026-08-19_cut.txt')))),
    ...(await rows(parseNoren(file('NFO_symbols_cut.txt')))),
    ...(await rows(parseNoren(file('BFO_symbols_cut.txt')))),
  ];
  return named(all, {
    sbin: 'NSE:SBIN',
    mm: 'NSE:M&M',
    nifty: 'NSE_INDEX:NIFTY',
    ce: 'NFO:NIFTY09JAN2523500CE',
    fut: 'NFO:BANKNIFTY30JAN25FUT',
    sensexCe: 'BFO:SENSEX07JAN2578500CE',
  }) as NorenSet;
}

/** Tells the stub the instruments' tokens (its order book states them). */
export function teachTokens(stub: NorenStub, set: NorenSet): void {
  for (const i of Object.values(set)) stub.tokens.set(`${i.brexchange}|${i.brsymbol}`, i.token);
}

/** get_quotes' sample answer (ACC-EQ), fields as the README prints them, less `request_time`/`stat`. */
export const DOC_QUOTE = {
  exch: 'NSE',
  tsym: 'ACC-EQ',
  cname: 'ACC LIMITED',
  symname: 'ACC',
  seg: 'EQT',
  instname: 'EQ',
  isin: 'INE012A01025',
  pp: '2',
  ls: '1',
  ti: '0.05',
  mult: '1',
  uc: '2093.95',
  lc: '1713.25',
  prcftr_d: '(1 / 1 ) * (1 / 1)',
  token: '22',
  lp: '0.00',
  h: '0.00',
  l: '0.00',
  v: '0',
  ltq: '0',
  ltt: '05:30:00',
  bp1: '2000.00',
  sp1: '0.00',
  bp2: '0.00',
  sp2: '0.00',
  bp3: '0.00',
  sp3: '0.00',
  bp4: '0.00',
  sp4: '0.00',
  bp5: '0.00',
  sp5: '0.00',
  bq1: '2',
  sq1: '0',
  bq2: '0',
  sq2: '0',
  bq3: '0',
  sq3: '0',
  bq4: '0',
  sq4: '0',
  bq5: '0',
  sq5: '0',
  bo1: '2',
  so1: '0',
  bo2: '0',
  so2: '0',
  bo3: '0',
  so3: '0',
  bo4: '0',
  so4: '0',
  bo5: '0',
  So5: '0',
};

/** get_time_price_series' sample rows (newest first; the zero rows are minutes without trades). */
export const DOC_TPSERIES = [
  {
    stat: 'Ok',
    time: '02-06-2020 15:46:23',
    into: '0.00',
    inth: '0.00',
    intl: '0.00',
    intc: '0.00',
    intvwap: '0.00',
    intv: '0',
    intoi: '0',
    v: '980515',
    oi: '128702',
  },
  {
    stat: 'Ok',
    time: '02-06-2020 15:43:23',
    into: '1287.00',
    inth: '1287.00',
    intl: '0.00',
    intc: '1287.00',
    intvwap: '128702.00',
    intv: '4',
    intoi: '128702',
    v: '980515',
    oi: '128702',
  },
  {
    stat: 'Ok',
    time: '02-06-2020 15:42:23',
    into: '0.00',
    inth: '0.00',
    intl: '0.00',
    intc: '0.00',
    intvwap: '0.00',
    intv: '0',
    intoi: '0',
    v: '980511',
    oi: '128702',
  },
];

/** get_daily_price_series' sample answer: an array of JSON strings. */
export const DOC_EOD = [
  '{"time":"21-SEP-2022","into":"2496.75","inth":"2533.00","intl":"2495.00","intc":"2509.75","ssboe":"1663718400","intv":"4249172.00"}',
  '{"time":"15-SEP-2022","into":"2583.00","inth":"2603.55","intl":"2556.75","intc":"2562.70","ssboe":"1663200000","intv":"4783723.00"}',
];

/** get_holdings' sample record (ABB-EQ). */
export const DOC_HOLDING = {
  stat: 'Ok',
  exch_tsym: [{ exch: 'NSE', token: '13', tsym: 'ABB-EQ' }],
  holdqty: '2000000',
  colqty: '200',
  btstqty: '0',
  btstcolqty: '0',
  usedqty: '0',
  upldprc: '1800.00',
};
