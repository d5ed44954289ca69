/**
 * What the Kite order stub answers for the day's trades (`GET /trades`), net positions
 * (`GET /portfolio/positions`) and funds (`GET /user/margins`), in Kite Connect v3's documented
 * shapes, from the stub's fills and cash.
 */
import { positionFigures, type Body, type StubFill, type StubPosition } from './broker-order-stub-base.js';

/** `GET /trades` (kite.trade/docs/connect/v3/orders#trades). */
export function kiteTrades(fills: readonly StubFill[]): Body[] {
  return fills.map((f) => ({
    trade_id: f.tradeId,
    order_id: f.orderId,
    exchange: f.exchange,
    tradingsymbol: f.tradingsymbol,
    instrument_token: f.token,
    product: f.product,
    average_price: f.price,
    quantity: f.quantity,
    exchange_order_id: `13000000${f.orderId.slice(-6)}`,
    transaction_type: f.side,
    fill_timestamp: f.at,
    order_timestamp: f.at.slice(11),
    exchange_timestamp: f.at,
  }));
}

/** `GET /portfolio/positions`: `net` and `day` (the same here: nothing carried overnight). */
export function kitePositions(
  positions: readonly StubPosition[],
  priceOf: (tradingsymbol: string) => number,
): Body {
  const net = positions.map((p) => {
    const ltp = priceOf(p.tradingsymbol);
    const n = positionFigures(p, ltp);
    return {
      tradingsymbol: p.tradingsymbol,
      exchange: p.exchange,
      instrument_token: p.token,
      product: p.product,
      quantity: n.quantity,
      overnight_quantity: 0,
      multiplier: 1,
      average_price: n.average,
      close_price: 0,
      last_price: ltp,
      value: p.sellValue - p.buyValue,
      pnl: n.pnl,
      m2m: n.pnl,
      unrealised: n.unrealised,
      realised: n.realised,
      buy_quantity: p.buyQty,
      buy_price: n.buyAvg,
      buy_value: p.buyValue,
      sell_quantity: p.sellQty,
      sell_price: n.sellAvg,
      sell_value: p.sellValue,
    };
  });
  return { net, day: net };
}

/** `GET /user/margins` (kite.trade/docs/connect/v3/user#funds-and-margins). */
export function kiteMargins(positions: readonly StubPosition[], available: number): Body {
  const used = positions.reduce((a, p) => a + Math.abs(p.buyValue - p.sellValue), 0);
  const segment = (cash: number, debits: number) => ({
    enabled: true,
    net: cash - debits,
    available: {
      adhoc_margin: 0,
      cash,
      opening_balance: cash,
      live_balance: cash - debits,
      collateral: 0,
      intraday_payin: 0,
    },
    utilised: {
      debits,
      exposure: 0,
      m2m_realised: 0,
      m2m_unrealised: 0,
      option_premium: 0,
      payout: 0,
      span: 0,
      holding_sales: 0,
      turnover: 0,
      liquid_collateral: 0,
      stock_collateral: 0,
      delivery: 0,
    },
  });
  return { equity: segment(available, used), commodity: segment(0, 0) };
}
