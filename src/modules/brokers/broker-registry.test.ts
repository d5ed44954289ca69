/**
 * What both live adapters share: the registry that builds them, the keep-warm of their pools,
 * the quote client they hand the sandbox, and the rule that no credential leaves in a result,
 * a raw body or a log line over a whole session.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrokerAdapter, BrokerResult } from './broker-adapter.js';
import { BrokerRegistry, type BrokerAdapterOptions } from './broker-registry.js';
import { QuoteError } from './quotes/quote-client.js';
import { UpstoxAdapter } from './upstox/upstox.adapter.js';
import { ZerodhaAdapter } from './zerodha/zerodha.adapter.js';
import {
  closeAfterEach,
  closeLater,
  fill,
  loadQuoteInstruments,
  type KiteSet,
  type UpstoxSet,
} from '../../../test/helpers/broker-quote-fixtures.js';
import {
  kiteError,
  startKiteQuoteStub,
  startUpstoxQuoteStub,
  upstoxError,
} from '../../../test/helpers/broker-quote-stubs.js';
import {
  captureLogs,
  orderFor as order,
  startKiteOrderStub,
  startUpstoxOrderStub,
} from '../../../test/helpers/broker-order-stubs.js';

const KITE = { apiKey: 'kiteKEYr3g7', apiSecret: 'kiteSECRETw8Nc2', accessToken: 'kiteTOKENb6Vt0' };
const UPSTOX = {
  clientId: 'upstoxCLIENTr3g7',
  clientSecret: 'upstoxSECRETw8Nc2',
  redirectUri: 'http://127.0.0.1:5000/upstox/callback',
  accessToken: 'eyJupstoxTOKENb6Vt0',
};

let K: KiteSet;
let U: UpstoxSet;
beforeAll(async () => {
  ({ K, U } = await loadQuoteInstruments());
});
closeAfterEach();

/** A registry with the given options, closed after the test. */
function registry(opts: Partial<BrokerAdapterOptions> = {}): BrokerRegistry {
  const r = new BrokerRegistry({ apiKey: KITE.apiKey, apiSecret: KITE.apiSecret, redirectUrl: '', ...opts });
  closeLater(() => r.closeAll());
  return r;
}

describe('BrokerRegistry: one adapter per broker name, per registry instance', () => {
  it('builds each adapter once and answers the same instance after', () => {
    const r = registry();

    const zerodha = r.load('zerodha');

    expect(zerodha).toBeInstanceOf(ZerodhaAdapter);
    expect(r.load('zerodha')).toBe(zerodha);
    expect(r.load('upstox')).toBeInstanceOf(UpstoxAdapter);
    expect(r.load('upstox')!.name).toBe('upstox');
    expect(registry().load('zerodha')).not.toBe(zerodha); // no module-level singleton
  });

  it('an unknown name is undefined (the pipeline answers 404 "Broker-specific module not found")', () => {
    const r = registry();

    for (const name of ['nuvama', '', 'Zerodha', '__proto__', 'constructor', 'toString'])
      expect(r.load(name)).toBeUndefined();
    expect(r.names()).toEqual(['angel', 'dhan', 'flattrade', 'fyers', 'shoonya', 'upstox', 'zerodha']);
  });

  it('closeAll closes the pools of every adapter built; a later load builds a fresh one', async () => {
    const stub = await startKiteOrderStub(KITE);
    closeLater(() => stub.close());
    const r = registry({ baseUrl: stub.url });
    const before = r.load('zerodha')!;

    await r.closeAll();
    const closed = await before.placeOrder(order(K.sbin), { accessToken: KITE.accessToken });
    const after = r.load('zerodha')!;

    expect(closed).toMatchObject({ ok: false, httpStatus: 502, message: 'Zerodha: the adapter is closed' });
    expect(after).not.toBe(before);
    expect((await after.placeOrder(order(K.sbin), { accessToken: KITE.accessToken })).ok).toBe(true);
  });
});

describe('keep-warm: an idle pool sends a credential-free GET / so the next order skips the handshake', () => {
  it('after keepWarmMs of quiet, GET / without credentials keeps the one connection open', async () => {
    const stub = await startKiteOrderStub(KITE);
    closeLater(() => stub.close());
    const adapter = registry({ baseUrl: stub.url, keepWarmMs: 60 }).load('zerodha')!;
    const session = { accessToken: KITE.accessToken };

    await adapter.placeOrder(order(K.sbin), session);
    await sleep(400);
    const result = await adapter.placeOrder(order(K.sbin), session);

    const warm = stub.requests.filter((r) => r.path === '/');
    expect(warm.length).toBeGreaterThanOrEqual(2);
    expect(warm.every((r) => r.method === 'GET' && stub.credentialOf(r) === 'absent')).toBe(true);
    expect(result.ok).toBe(true);
    expect(stub.connections).toBe(1);
  });

  it('turns itself off when the broker answers a ping with Connection: close', async () => {
    const stub = await startKiteOrderStub(KITE);
    closeLater(() => stub.close());
    const { logger, logs } = captureLogs();
    const adapter = registry({ baseUrl: stub.url, keepWarmMs: 50, logger }).load('zerodha')!;

    await adapter.placeOrder(order(K.sbin), { accessToken: KITE.accessToken });
    stub.failNext(404, 'not here', 1, { connection: 'close' });
    await sleep(400);

    expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /orders/regular', 'GET /']);
    expect(logs()).toContain('keep-warm off');
  });

  it('sends nothing before the first call, nor when turned off with keepWarmMs 0', async () => {
    const stub = await startUpstoxOrderStub(UPSTOX);
    closeLater(() => stub.close());
    const idle = registry({ baseUrl: stub.url, keepWarmMs: 50 }).load('upstox')!;
    const off = registry({ baseUrl: stub.url, keepWarmMs: 0 }).load('upstox')!;

    await off.placeOrder(order(U.sbin), { accessToken: UPSTOX.accessToken });
    await sleep(300);

    expect(idle).toBeDefined();
    expect(stub.requests.map((r) => r.method)).toEqual(['POST']);
  });
});

describe("quoteClient: the broker's quote client under the current session, on the same API origin", () => {
  it.each(['zerodha', 'upstox'] as const)(
    '%s: quotes with the session token; closing the adapter closes it',
    async (broker) => {
      const stub =
        broker === 'zerodha'
          ? await startKiteQuoteStub(KITE)
          : await startUpstoxQuoteStub(UPSTOX.accessToken);
      closeLater(() => stub.close());
      const sbin = broker === 'zerodha' ? K.sbin : U.sbin;
      fill(stub, [sbin], 812);
      const adapter = registry({ baseUrl: stub.url }).load(broker)!;
      const current: { session?: { accessToken: string } } = {};
      const client = adapter.quoteClient(() => current.session);

      const without: unknown = await client.quotes([sbin]).catch((e: unknown) => e);
      current.session = { accessToken: broker === 'zerodha' ? KITE.accessToken : UPSTOX.accessToken };
      const quotes = await client.quotes([sbin]);
      await adapter.close();
      const closed: unknown = await client.quotes([sbin]).catch((e: unknown) => e);

      expect(client.broker).toBe(broker);
      expect(without).toMatchObject({ code: 'no_token' });
      expect(quotes.get('NSE:SBIN')?.ltp).toBe(812);
      expect(closed).toBeInstanceOf(QuoteError);
      expect(closed).toMatchObject({ code: 'closed' });
    },
  );
});

describe('secrets never leave: no credential in any result, raw body or log line over a session', () => {
  /** Every call an operator's day makes, including failures that echo credentials. */
  async function day(
    adapter: BrokerAdapter,
    code: string,
    fail: (status: number, echo: string) => void,
    delay: () => void,
    stale: string,
  ): Promise<unknown[]> {
    const out: unknown[] = [];
    const login = await adapter.exchangeCode(code);
    const s = login.session;
    const limit = order(adapter.name === 'zerodha' ? K.ce : U.ce, {
      priceType: 'LIMIT',
      quantity: 75,
      price: '98.5',
    });
    const placed: BrokerResult = await adapter.placeOrder(limit, s);
    out.push(
      login.expiresAt,
      placed,
      await adapter.modifyOrder(placed.orderId!, { ...limit, price: '97' }, s),
    );
    out.push(await adapter.orderStatus(placed.orderId!, s), await adapter.cancelOrder(placed.orderId!, s));
    fail(403, `bad session ${s.accessToken} / Bearer ${s.accessToken} / token k:${s.accessToken}`);
    out.push(await adapter.placeOrder(limit, s), await adapter.placeOrder(limit, { accessToken: stale }));
    delay();
    out.push(
      await adapter.placeOrder(limit, s),
      await adapter.exchangeCode(code).catch((e: unknown) => String(e)),
    );
    return [...out, s.accessToken];
  }

  it('zerodha', async () => {
    const stub = await startKiteOrderStub(KITE);
    closeLater(() => stub.close());
    const { logger, logs } = captureLogs();
    const adapter = registry({ baseUrl: stub.url, logger, timeoutMs: 150 }).load('zerodha')!;
    const code = stub.issueRequestToken('reqTOKENf00dBabe');

    const seen = await day(
      adapter,
      code,
      (status, echo) => stub.failNext(status, kiteError(`${echo} ${KITE.apiSecret}`, 'TokenException')),
      () => stub.delayNext(2_000),
      'kiteSTALEtokQ1',
    );

    const session = seen.pop() as string;
    const text = JSON.stringify(seen) + logs();
    expect(text).toContain('[redacted]');
    for (const secret of [KITE.apiKey, KITE.apiSecret, KITE.accessToken, session, code, 'kiteSTALEtokQ1'])
      expect(text).not.toContain(secret);
  });

  it('upstox', async () => {
    const stub = await startUpstoxOrderStub(UPSTOX);
    closeLater(() => stub.close());
    const { logger, logs } = captureLogs();
    const opts = { apiKey: UPSTOX.clientId, apiSecret: UPSTOX.clientSecret, redirectUrl: UPSTOX.redirectUri };
    const adapter = registry({ ...opts, baseUrl: stub.url, logger, timeoutMs: 150 }).load('upstox')!;
    const code = stub.issueCode('codeC0ffee99');

    const seen = await day(
      adapter,
      code,
      (status, echo) => stub.failNext(status, upstoxError('UDAPI100050', `${echo} ${UPSTOX.clientSecret}`)),
      () => stub.delayNext(2_000),
      'upstoxSTALEtokQ1',
    );

    const session = seen.pop() as string;
    const text = JSON.stringify(seen) + logs();
    expect(text).toContain('[redacted]');
    for (const secret of [
      UPSTOX.clientId,
      UPSTOX.clientSecret,
      UPSTOX.accessToken,
      session,
      code,
      'upstoxSTALEtokQ1',
    ])
      expect(text).not.toContain(secret);
  });
});
