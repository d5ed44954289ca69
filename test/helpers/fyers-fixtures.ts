/**
 * Fixtures of the Fyers adapter tests: real instruments read from the Fyers symbol-master fixture
 * (test/fixtures/market/fyers, cut from the shared data's Fyers CSVs) by the real importer, the
 * credentials the stub accepts (distinctive, so a leak into a message, a raw body or a log line is
 * caught), and a stub + adapter pair per test (closed after it through broker-quote-fixtures.ts
 * `closeLater`).
 */
import { createReadStream } from 'node:fs';
import type { QuoteInstrument } from '../../src/modules/brokers/quotes/quote-client.js';
import type { BrokerAdapterOptions } from '../../src/modules/brokers/http/order-transport.js';
import { FyersAdapter } from '../../src/modules/brokers/fyers/fyers.adapter.js';
import { parseFyers } from '../../src/modules/market/importers/fyers.js';
import { closeLater, named, rows } from './broker-quote-fixtures.js';
import { captureLogs } from './broker-order-stubs.js';
import { FYERS_CODES, startFyersStub, type FyersStub } from './broker-order-stub-fyers.js';
import { marketFixture } from './market-fixtures.js';

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** The Fyers client id inside the access token (its `fy_id` claim). */
export const FYERS_CLIENT_ID = 'XQ71234';
/**
 * When the access token lapses (its `exp`): 06:00 IST (00:30 UTC), as Fyers' tokens do, on the
 * morning after tomorrow. Not a fixed date: the data socket checks the claim against the wall
 * clock, so a date that has passed fails the feed's tests from that day on.
 */
const DAY_MS = 86_400_000;
export const FYERS_TOKEN_EXP_MS = Math.floor(Date.now() / DAY_MS + 2) * DAY_MS + 30 * 60_000;

export const FYERS = {
  appId: 'FYAPPq7Zx2K-100',
  appSecret: 'fySECRETw3Rk9Lm',
  accessToken: `eyJ0eXAiOiJKV1QifyersHDR.${b64({ fy_id: FYERS_CLIENT_ID, exp: FYERS_TOKEN_EXP_MS / 1000 })}.fySIGaccess8Qp`,
  refreshToken: 'eyJFYERSrefreshT6vN2',
  authCode: 'eyJFYERSauthCODEk4Hs',
  pin: '8361',
};

export type FyersSet = Record<'sbin' | 'nifty' | 'fut' | 'ce' | 'usdinr' | 'silver', QuoteInstrument> & {
  all: QuoteInstrument[];
};

/** Reads the Fyers master fixtures through the real importer (call from `beforeAll`). */
export async function loadFyersInstruments(): Promise<FyersSet> {
  const all: QuoteInstrument[] = [];
  for (const f of ['NSE_CM', 'BSE_CM', 'BSE_FO', 'NSE_CD', 'MCX_COM'])
    all.push(...(await rows(parseFyers(createReadStream(marketFixture('fyers', `${f}.csv`))))));
  const silver = all.find((i) => i.exchange === 'MCX' && /^SILVER\d.*FUT$/.test(i.symbol));
  if (!silver) throw new Error('no MCX SILVER future in the Fyers fixture');
  return {
    ...(named(all, {
      sbin: 'NSE:SBIN',
      nifty: 'NSE_INDEX:NIFTY',
      fut: 'BFO:SENSEX27NOV25FUT',
      ce: 'BFO:SENSEX27NOV2591700CE',
      usdinr: 'CDS:USDINR26NOV25FUT',
    }) as Omit<FyersSet, 'silver' | 'all'>),
    silver,
    all,
  };
}

/** Tells the stub each instrument's fyToken and exchange/segment codes (what its books show). */
export function teach(stub: FyersStub, list: readonly QuoteInstrument[]): void {
  for (const i of list) {
    const [exchange, segment] = FYERS_CODES[i.brexchange] ?? [10, 10];
    stub.instruments.set(i.brsymbol, { fyToken: i.token, exchange, segment });
  }
}

/** A Fyers stub and an adapter on it, logging at debug into `logs()`; closed after the test. */
export async function setupFyers(
  opts: Partial<BrokerAdapterOptions> = {},
  instruments: readonly QuoteInstrument[] = [],
) {
  const stub = await startFyersStub(FYERS);
  teach(stub, instruments);
  const { logger, logs } = captureLogs();
  const adapter = new FyersAdapter({
    apiKey: FYERS.appId,
    apiSecret: FYERS.appSecret,
    redirectUrl: 'https://algodesk.example/broker/callback',
    baseUrl: stub.url,
    keepWarmMs: 0,
    logger,
    ...opts,
  });
  closeLater(() => stub.close());
  closeLater(() => adapter.close());
  return { stub, adapter, session: { accessToken: FYERS.accessToken, brokerUserId: FYERS_CLIENT_ID }, logs };
}

/** Every credential of {@link FYERS}: none may appear in a message, a raw body or a log. */
export const FYERS_SECRETS = [FYERS.appSecret, FYERS.accessToken, FYERS.refreshToken, FYERS.authCode];
