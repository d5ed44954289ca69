/**
 * What the Upstox order stub answers for the day's trades (`GET
 * /v2/order/trades/get-trades-for-day`), net positions (`GET /v2/portfolio/short-term-positions`)
 * and funds (`GET /v2/user/get-funds-and-margin`), in Upstox v2's documented shapes, from the
 * stub's fills and cash; and the exchange each Upstox segment names.
 */
import { positionFigures, type Body, type StubFill, type StubPosition } from './broker-order-stub-base.js';

/** Upstox segments → the `exchange` its records name. */
export const UPSTOX_EXCHANGES: Record<string, string> = {
  NSE_EQ: 'NSE',
  BSE_EQ: 'BSE',
  NSE_FO: 'NFO',
  BSE_FO: 'BFO',
  NCD_FO: 'CDS',
  BCD_FO: 'BCD',
  MCX_FO: 'MCX',
};

/** `GET /v2/order/trades/get-trades-for-day`. */
export function upTrades(fills: readonly StubFill[]): Body[] {
  return fills.map((f) => ({
    exchange: UPSTOX_EXCHANGES[f.exchange.slice(0, f.exchange.indexOf('|'))],
    product: f.product,
    trading_symbol: f.tradingsymbol,
    tradingsymbol: f.tradingsymbol,
    instrument_token: f.token,
    order_type: 'MARKET',
    transaction_type: f.side,
    quantity: f.quantity,
    exchange_order_id: `11000000${f.orderId.slice(-6)}`,
    order_id: f.orderId,
    exchange_timestamp: f.at,
    average_price: f.price,
    trade_id: f.tradeId,
    order_ref_id: f.tag,
    order_timestamp: f.at,
  }));
}

/** `GET /v2/portfolio/short-term-positions`. */
export function upPositions(
  positions: readonly StubPosition[],
  priceOf: (tradingsymbol: string) => number,
): Body[] {
  return positions.map((p) => {
    const ltp = priceOf(p.tradingsymbol);
    const n = positionFigures(p, ltp);
    return {
      exchange: UPSTOX_EXCHANGES[p.exchange.slice(0, p.exchange.indexOf('|'))],
      multiplier: 1,
      value: p.sellValue - p.buyValue,
      pnl: n.pnl,
      product: p.product,
      instrument_token: p.token,
      average_price: n.average,
      buy_value: p.buyValue,
      overnight_quantity: 0,
      day_buy_value: p.buyValue,
      day_buy_price: n.buyAvg,
      day_buy_quantity: p.buyQty,
      day_sell_value: p.sellValue,
      day_sell_price: n.sellAvg,
      day_sell_quantity: p.sellQty,
      quantity: n.quantity,
      last_price: ltp,
      unrealised: n.unrealised,
      realised: n.realised,
      sell_value: p.sellValue,
      trading_symbol: p.tradingsymbol,
      tradingsymbol: p.tradingsymbol,
      close_price: 0,
      buy_price: n.buyAvg,
      sell_price: n.sellAvg,
    };
  });
}

/** `GET /v2/user/get-funds-and-margin`. */
export function upFunds(positions: readonly StubPosition[], cash: number): Body {
  const used = positions.reduce((a, p) => a + Math.abs(p.buyValue - p.sellValue), 0);
  const segment = (available: number, usedMargin: number) => ({
    used_margin: usedMargin,
    payin_amount: 0,
    span_margin: 0,
    adhoc_margin: 0,
    notional_cash: 0,
    available_margin: available,
    exposure_margin: 0,
  });
  return { equity: segment(cash - used, used), commodity: segment(0, 0) };
}
