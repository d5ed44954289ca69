import { describe, expect, it } from 'vitest';
import { NIFTY_CE, SBIN } from '../../../../test/helpers/sandbox-instruments.js';
import { DEFAULT_LEVERAGE } from '../../../domain/sandbox.js';
import { DEFAULT_BROKERAGE_PLAN } from '../../../domain/charges.js';
import { contextOf } from './fill-plan.js';
import { rupeesToMoney as r } from './money.js';
import { planPlacement, type PlacementMarket, type PlaceRequest } from './placement.js';
import type { AccountRow } from '../store/rows.js';

const NOW = Date.UTC(2026, 10, 27, 5, 0); // Friday 10:30 IST
const account = (available = r(100_000)): AccountRow => ({
  user_id: 7,
  starting_funds: r(100_000),
  available,
  used_margin: 0,
  realised_pnl: 0,
  charges: 0,
  reset_at: 0,
  updated_at: 0,
});
const flat = (symbol: string, exchange: string, product: 'MIS' | 'CNC' | 'NRML' = 'MIS') => ({
  account: account(),
  ctx: contextOf(undefined, 0, [], symbol, exchange, product),
});
const market = (over: Partial<PlacementMarket> = {}): PlacementMarket => ({
  instrument: SBIN,
  prices: { ltp: r(800), bid: r(799.95), ask: r(800.05) },
  now: NOW,
  session: 'regular',
  ...over,
});
const sbin = (over: Partial<PlaceRequest> = {}): PlaceRequest => ({
  symbol: 'SBIN',
  exchange: 'NSE',
  side: 'BUY',
  priceType: 'MARKET',
  product: 'MIS',
  quantity: 10,
  ...over,
});
const plan = (req: PlaceRequest, m = market(), snap = flat(req.symbol, req.exchange, req.product)) =>
  planPlacement(snap, 7, req, m, { leverage: DEFAULT_LEVERAGE, brokerage: DEFAULT_BROKERAGE_PLAN });

describe('placement plan (docs/rules/sandbox.md#order-validation, #margin-at-placement, #fills)', () => {
  it('a MARKET order with a usable quote is planned filled at the ask: final row, two events, the fill', () => {
    const p = plan(sbin());
    if (p.kind !== 'fill') throw new Error(`expected a fill, got ${p.kind}`);
    expect(p.order).toMatchObject({ status: 'complete', filled_quantity: 10, average_price: r(800.05) });
    expect(p.order).toMatchObject({ blocked_margin: 0, blocked_quantity: 0 });
    expect(p.events.map((e) => [e.from, e.to])).toEqual([
      [null, 'open'],
      ['open', 'complete'],
    ]);
    // MIS equity at 5×: the position holds ₹1,600.10 of margin, taken from available funds.
    expect(p.fill.position).toMatchObject({ quantity: 10, cost: r(8000.5), margin: r(1600.1) });
    // Charges on ₹8,000.50 of intraday buys (docs/rules/sandbox.md#charges-booked): brokerage
    // 0.03 % = ₹2.40, NSE's ₹307 per crore = ₹0.25, SEBI ₹0.01, stamp 0.003 % = ₹0.24, no STT on a
    // buy, GST 18 % of ₹2.66 = ₹0.48: ₹3.38, out of available funds as well.
    expect(p.fill.account).toMatchObject({
      available: r(100_000 - 1600.1 - 3.38),
      used_margin: r(1600.1),
      charges: r(3.38),
    });
    expect(p.fill.trade).toMatchObject({ side: 'BUY', quantity: 10, price: r(800.05), charges: r(3.38) });
    expect(p.fill.position).toMatchObject({ charges: r(3.38) });
  });

  it('a LIMIT below the ask rests with its margin blocked; the quote does not fill it', () => {
    const p = plan(sbin({ priceType: 'LIMIT', price: 790 }));
    if (p.kind !== 'rest') throw new Error(`expected a resting order, got ${p.kind}`);
    expect(p.order).toMatchObject({
      status: 'open',
      price: r(790),
      blocked_margin: r(1580),
      blocked_quantity: 10,
    });
    expect(p.events.map((e) => [e.from, e.to])).toEqual([[null, 'open']]);
    expect(p.account).toMatchObject({ available: r(100_000 - 1580), used_margin: r(1580) });
  });

  it('an SL whose trigger the quote reached but whose limit it does not is planned open, through its trigger', () => {
    // BUY SL: trigger 799 (the LTP 800 is above it: triggered), limit 799.5 (below the ask 800.05).
    const p = plan(sbin({ priceType: 'SL', price: 799.5, triggerPrice: 799 }));
    if (p.kind !== 'rest') throw new Error(`expected a resting order, got ${p.kind}`);
    expect(p.order.status).toBe('open');
    expect(p.events.map((e) => [e.from, e.to, e.detail])).toEqual([
      [null, 'trigger pending', null],
      ['trigger pending', 'open', 'triggered'],
    ]);
  });

  it('input errors are invalid (a 400 that writes nothing): an F&O quantity off the lot', () => {
    const p = plan(
      { ...sbin(), symbol: NIFTY_CE.symbol, exchange: 'NFO', product: 'NRML', quantity: 10 },
      market({ instrument: NIFTY_CE }),
    );
    expect(p.kind).toBe('invalid');
  });

  it('account rules reject and keep the order with its reason; the funds are not touched', () => {
    const poor = { ...flat('SBIN', 'NSE'), account: account(r(100)) };
    const p = plan(sbin(), market(), poor);
    if (p.kind !== 'reject') throw new Error(`expected a rejection, got ${p.kind}`);
    expect(p.reason).toMatch(/insufficient funds/i);
    expect(p.order).toMatchObject({ status: 'rejected', reason: p.reason, blocked_margin: 0 });
    expect(p.events.map((e) => [e.from, e.to, e.detail])).toEqual([[null, 'rejected', p.reason]]);
    expect('account' in p).toBe(false);
  });

  it("no price at all rejects a MARKET order, with the price source's own reason when it has one", () => {
    const none = market({ prices: undefined });
    expect(plan(sbin(), none)).toMatchObject({
      kind: 'reject',
      reason: expect.stringMatching(/needs a quote/),
    });
    const said = plan(sbin(), market({ prices: undefined, noPriceReason: () => 'feed is down' }));
    expect(said).toMatchObject({ kind: 'reject', reason: 'feed is down' });
  });

  it('a stale quote prices the margin but does not fill: the MARKET order rests for the next good quote', () => {
    const stale = market({ prices: undefined, fallback: { ltp: r(800), bid: 0, ask: 0 } });
    const p = plan(sbin(), stale);
    expect(p).toMatchObject({ kind: 'rest', order: { status: 'open', blocked_margin: r(1600) } });
  });
});
