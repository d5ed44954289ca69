/** Shared fixtures of the sandbox API tests: field lists of the documented shapes, quotes, orders. */
import { MINI, type SandboxHarness } from './sandbox.js';

export const START = 10_000_000;
export type Row = Record<string, unknown>;
export type Funds = {
  availablecash: number;
  utiliseddebits: number;
  m2mrealized: number;
  m2munrealized: number;
};
export const k = (i: { exchange: string; symbol: string }) => `${i.exchange}:${i.symbol}`;
export const keys = (o: unknown) => Object.keys(o as object);
/** Field names in the documented order (docs/openalgo-book-shapes.md). */
export const ORDER =
  'orderid symbol exchange action quantity price trigger_price pricetype product order_status';
export const ORDER_KEYS = `${ORDER} average_price filled_quantity pending_quantity rejection_reason timestamp strategy`;
export const TRADE_KEYS =
  'tradeid orderid symbol exchange action quantity average_price price trade_value product strategy';
export const POSITION_KEYS =
  'symbol exchange product quantity average_price ltp pnl realized_pnl unrealized_pnl';
export const HOLDING_KEYS = 'symbol exchange product quantity average_price ltp pnl pnlpercent';
export const HOLDING_STATS = [
  'totalholdingvalue',
  'totalinvvalue',
  'totalprofitandloss',
  'totalpnlpercentage',
];
export const STATS =
  'total_buy_orders total_sell_orders total_completed_orders total_open_orders total_rejected_orders';
export const fields = (list: string) => list.split(' ');

/** Quotes for SBIN (tick 0.05), the NIFTY 26000 CE (lot 65) and the BANKNIFTY future (lot 30, tick 0.20). */
export async function marketOpen(h: SandboxHarness): Promise<void> {
  h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30')); // a Monday
  await h.tick({
    [k(MINI.SBIN)]: h.quote(800, { bid: 799.95, ask: 800.05, high: 805, low: 795 }),
    [k(MINI.NIFTY_CE)]: h.quote(120, { bid: 119.95, ask: 120.5, high: 140, low: 95 }),
    [k(MINI.BANKNIFTY_FUT)]: h.quote(52_000, { bid: 51_999.8, ask: 52_000.2, high: 52_500, low: 51_500 }),
  });
}
export const optionLimit = (h: SandboxHarness, price = 100, quantity = 65) =>
  h.place({ ...MINI.NIFTY_CE, side: 'BUY', quantity, priceType: 'LIMIT', product: 'NRML', price });
/** A modifyorder body for the resting option LIMIT of {@link optionLimit}. */
export const modifyBody = (orderid: string, extra: Row = {}): Row => {
  const order = {
    ...MINI.NIFTY_CE,
    action: 'BUY',
    product: 'NRML',
    pricetype: 'LIMIT',
    price: 100,
    quantity: 65,
  };
  return { orderid, ...order, ...extra };
};
