import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import {
  formatFunds,
  formatHoldings,
  formatOrderbook,
  formatOrderStatus,
  formatPositionbook,
  formatTradebook,
  istTimestamp,
} from './book-format.js';
import {
  CancelAllOrderResponse,
  FundsResponse,
  HoldingsResponse,
  ModifyOrderBody,
  OrderbookResponse,
  OrderIdBody,
  orderIdString,
  OrderStatusResponse,
  PositionbookResponse,
  TradebookResponse,
} from '../../orders/book.schema.js';
import { rupeesToMoney as r } from './money.js';
import type { AccountRecord, HoldingRecord, OrderRecord, PositionRecord, TradeRecord } from './records.js';

// Real contracts as in test/helpers/sandbox-instruments.ts: NSE SBIN (tick 0.05), NFO NIFTY 26000 CE
// (lot 65) and BANKNIFTY future (lot 30), CDS USDINR future (tick 0.0025).
const CE = 'NIFTY18AUG2626000CE';
const FUT = 'BANKNIFTY25AUG26FUT';
const USDINR = 'USDINR28NOV25FUT';

/** An instant written in UTC (IST is 05:30 ahead). */
const utc = (iso: string) => Date.parse(`${iso}Z`);
/** `HH:MM:SS` UTC on 2025-10-06, the trading day of the fixtures (IST = UTC + 05:30). */
const day = (hms: string) => utc(`2025-10-06T${hms}`);

// prettier-ignore
function order(orderId: string, symbol: string, exchange: string, at: string, o: Partial<OrderRecord>) {
  const record: OrderRecord = { orderId, userId: 1, symbol, exchange, side: 'BUY', priceType: 'MARKET',
    product: 'MIS', quantity: 1, price: 0, triggerPrice: 0, status: 'open', filledQuantity: 0,
    averagePrice: 0, reason: null, strategy: null, createdAt: day(at), updatedAt: day(at) };
  return { ...record, ...o };
}

// prettier-ignore
const BOOK: OrderRecord[] = [
  order('101', 'SBIN', 'NSE', '03:50:05', { priceType: 'LIMIT', product: 'CNC', quantity: 10,
    price: r('812.35'), strategy: 'momentum' }),
  order('102', CE, 'NFO', '03:46:00', { side: 'SELL', product: 'NRML', quantity: 65, status: 'complete',
    filledQuantity: 65, averagePrice: r('152.45') }),
  order('103', USDINR, 'CDS', '04:30:00', { priceType: 'SL-M', product: 'NRML', triggerPrice: r('88.4525'),
    status: 'trigger pending' }),
  order('104', 'SBIN', 'NSE', '04:30:00', { side: 'SELL', product: 'CNC', quantity: 5, status: 'rejected',
    reason: 'no holdings to sell' }),
  order('99', FUT, 'NFO', '03:45:00', { priceType: 'LIMIT', quantity: 30, price: r('56000.20'),
    status: 'cancelled' }),
];

describe('orderbook', () => {
  const book = formatOrderbook(BOOK);

  it('lists orders newest first; equal times put the higher order id first', () => {
    expect(book.orders.map((o) => o.orderid)).toEqual(['104', '103', '101', '102', '99']);
    const tie = [order('9', 'SBIN', 'NSE', '04:00:00', {}), order('10', 'SBIN', 'NSE', '04:00:00', {})];
    expect(formatOrderbook(tie).orders.map((o) => o.orderid)).toEqual(['10', '9']);
  });

  it('writes every field of a resting LIMIT order', () => {
    // prettier-ignore
    expect(book.orders[2]).toStrictEqual({
      orderid: '101', symbol: 'SBIN', exchange: 'NSE', action: 'BUY', quantity: 10, price: 812.35,
      trigger_price: 0, pricetype: 'LIMIT', product: 'CNC', order_status: 'open', average_price: 0,
      filled_quantity: 0, pending_quantity: 10, rejection_reason: '', timestamp: '2025-10-06 09:20:05',
      strategy: 'momentum',
    });
  });

  it('a filled MARKET order has price 0, its fill price as average and nothing pending', () => {
    // prettier-ignore
    expect(book.orders[3]).toMatchObject({ action: 'SELL', order_status: 'complete', price: 0,
      average_price: 152.45, filled_quantity: 65, pending_quantity: 0, strategy: '',
      timestamp: '2025-10-06 09:16:00' });
  });

  it('keeps 4 decimals on CDS (tick ₹0.0025)', () => {
    // prettier-ignore
    expect(book.orders[1]).toMatchObject({ exchange: 'CDS', trigger_price: 88.4525,
      order_status: 'trigger pending', pending_quantity: 1 });
  });

  it('final orders have nothing pending; a rejection carries its reason', () => {
    // prettier-ignore
    expect(book.orders[0]).toMatchObject({ order_status: 'rejected', pending_quantity: 0,
      rejection_reason: 'no holdings to sell' });
    expect(book.orders[4]).toMatchObject({ order_status: 'cancelled', pending_quantity: 0, price: 56000.2 });
  });

  it('counts sides and states; open counts open and trigger pending, cancelled only by side', () => {
    // prettier-ignore
    expect(book.statistics).toStrictEqual({ total_buy_orders: 3, total_sell_orders: 2,
      total_completed_orders: 1, total_open_orders: 2, total_rejected_orders: 1 });
  });

  it('an empty book has zero counts', () => {
    // prettier-ignore
    expect(formatOrderbook([])).toStrictEqual({ orders: [], statistics: { total_buy_orders: 0,
      total_sell_orders: 0, total_completed_orders: 0, total_open_orders: 0, total_rejected_orders: 0 } });
  });
});

describe('IST timestamps', () => {
  it('are UTC+05:30 written YYYY-MM-DD HH:MM:SS, changing date at 18:30 UTC', () => {
    expect(istTimestamp(utc('2025-10-06T18:29:59'))).toBe('2025-10-06 23:59:59');
    expect(istTimestamp(utc('2025-10-06T18:30:00'))).toBe('2025-10-07 00:00:00');
    expect(istTimestamp(utc('2025-10-05T23:59:59'))).toBe('2025-10-06 05:29:59');
    expect(istTimestamp(utc('2025-12-31T18:30:00'))).toBe('2026-01-01 00:00:00');
    expect(istTimestamp(utc('2025-10-06T03:45:00.999'))).toBe('2025-10-06 09:15:00');
  });

  it('orders after IST midnight sort as newer and carry the next date', () => {
    const late = formatOrderbook([
      order('7', 'SBIN', 'NSE', '18:29:59', {}),
      order('8', 'SBIN', 'NSE', '18:30:00', {}),
    ]);
    expect(late.orders.map((o) => [o.orderid, o.timestamp])).toEqual([
      ['8', '2025-10-07 00:00:00'],
      ['7', '2025-10-06 23:59:59'],
    ]);
  });
});

describe('orderstatus', () => {
  it('is the order’s orderbook row', () => {
    expect(formatOrderStatus(BOOK[1]!)).toStrictEqual(formatOrderbook([BOOK[1]!]).orders[0]);
    expect(formatOrderStatus(BOOK[2]!)).toMatchObject({ orderid: '103', trigger_price: 88.4525 });
  });
});

// prettier-ignore
function trade(tradeId: string, symbol: string, exchange: string, price: string, t: Partial<TradeRecord>) {
  const record: TradeRecord = { tradeId, orderId: '1', userId: 1, symbol, exchange, side: 'BUY',
    product: 'MIS', quantity: 1, price: r(price), strategy: null, createdAt: day('03:46:00'), charges: 0 };
  return { ...record, ...t };
}

describe('tradebook', () => {
  // prettier-ignore
  const trades = formatTradebook([
    trade('501', CE, 'NFO', '152.45', { orderId: '102', side: 'SELL', product: 'NRML', quantity: 65,
      charges: r('38.605') }),
    trade('502', USDINR, 'CDS', '88.4525', { orderId: '103', product: 'NRML', createdAt: day('04:35:00') }),
    trade('503', 'SBIN', 'NSE', '812.35', { orderId: '105', quantity: 3, strategy: 'momentum',
      createdAt: day('04:35:00') }),
  ]);

  it('lists fills newest first, equal times by trade id', () => {
    expect(trades.map((t) => t.tradeid)).toEqual(['503', '502', '501']);
  });

  it('writes every field; trade_value is price × quantity', () => {
    // prettier-ignore
    expect(trades[2]).toStrictEqual({
      tradeid: '501', orderid: '102', symbol: CE, exchange: 'NFO', action: 'SELL', quantity: 65,
      average_price: 152.45, price: 152.45, trade_value: 9909.25, product: 'NRML', strategy: '',
      timestamp: '2025-10-06 09:16:00', charges: 38.61,
    });
    // prettier-ignore
    expect(trades[0]).toMatchObject({ trade_value: 2437.05, strategy: 'momentum',
      timestamp: '2025-10-06 10:05:00' });
  });

  it('keeps 4 decimals on CDS', () => {
    expect(trades[1]).toMatchObject({ price: 88.4525, average_price: 88.4525, trade_value: 88.4525 });
  });

  it('an empty tradebook is an empty list', () => {
    expect(formatTradebook([])).toEqual([]);
  });
});

type PositionPatch = Partial<PositionRecord>;

/** A position of `quantity` (signed) with entry value `cost` (₹). */
// prettier-ignore
function position(symbol: string, exchange: string, quantity: number, cost: string, p: PositionPatch) {
  const record: PositionRecord = { symbol, exchange, product: 'MIS', quantity, cost: r(cost), margin: 0,
    realisedPnl: 0, userId: 1, ltp: undefined, updatedAt: 0 };
  return { ...record, ...p };
}
/** The three P&L fields of a positionbook row. */
const pnl = (realized: number, unrealized: number, total: number) => ({
  realized_pnl: realized,
  unrealized_pnl: unrealized,
  pnl: total,
});

describe('positionbook', () => {
  it('rounds the average of three fills to 2 decimals and marks a long at the LTP', () => {
    // 812.35 + 812.40 + 812.40 = 2437.15; ÷ 3 = 812.3833…; at 815.00: 2445.00 − 2437.15 = +7.85.
    // Its fills paid ₹1.735 of charges: net P&L 7.85 − 1.735 = 6.115 → 6.12.
    const [row] = formatPositionbook([
      position('SBIN', 'NSE', 3, '2437.15', { ltp: r('815.00'), charges: r('1.735') }),
    ]);
    // prettier-ignore
    expect(row).toStrictEqual({ symbol: 'SBIN', exchange: 'NSE', product: 'MIS', quantity: 3,
      average_price: 812.38, ltp: 815, pnl: 7.85, realized_pnl: 0, unrealized_pnl: 7.85,
      charges: 1.74, net_pnl: 6.12 });
  });

  it('a short gains when the price falls; an exact half rounds away from zero', () => {
    // Sold 65 @ 152.45 and 65 @ 152.50: cost 19821.75, average 152.475 → 152.48 (Python's
    // round(152.475, 2) says 152.47: the double is just under). At 150.00: 19821.75 − 19500 = +321.75.
    const short = { product: 'NRML' as const, realisedPnl: r('-12.35'), ltp: r('150') };
    const [row] = formatPositionbook([position(CE, 'NFO', -130, '19821.75', short)]);
    expect(row).toMatchObject({ product: 'NRML', quantity: -130, average_price: 152.48, ltp: 150 });
    expect(row).toMatchObject(pnl(-12.35, 321.75, 309.4));
  });

  it('a short loses when the price rises', () => {
    // 30 @ 56000.20 = 1,680,006.00; at 56100.00 the buy-back costs 1,683,000.00: −2994.
    const [row] = formatPositionbook([position(FUT, 'NFO', -30, '1680006', { ltp: r('56100') })]);
    expect(row).toMatchObject({ quantity: -30, average_price: 56000.2, ltp: 56100, ...pnl(0, -2994, -2994) });
  });

  it('keeps 4 decimals on CDS: the average of 88.4525 and 88.4550 is 88.45375 → 88.4538', () => {
    const [row] = formatPositionbook([position(USDINR, 'CDS', 2, '176.9075', { ltp: r('88.4600') })]);
    expect(row).toMatchObject({ average_price: 88.4538, ltp: 88.46, ...pnl(0, 0.0125, 0.0125) });
  });

  it('a closed position shows average 0 and its realised P&L', () => {
    const closed = { realisedPnl: r('45.50'), ltp: r('820') };
    const [row] = formatPositionbook([position('SBIN', 'NSE', 0, '0', closed)]);
    expect(row).toMatchObject({ quantity: 0, average_price: 0, ltp: 820, ...pnl(45.5, 0, 45.5) });
  });

  it('without an LTP the open quantity is not marked (ltp 0, unrealised 0)', () => {
    const [row] = formatPositionbook([position(CE, 'NFO', 65, '9909.25', { realisedPnl: r('-0.005') })]);
    expect(row).toMatchObject({ average_price: 152.45, ltp: 0, ...pnl(-0.01, 0, -0.01) });
  });

  it('keeps the order given; an empty book is an empty list', () => {
    const rows = formatPositionbook([
      position('SBIN', 'NSE', 1, '800', {}),
      position(CE, 'NFO', 65, '9909', {}),
    ]);
    expect(rows.map((p) => p.symbol)).toEqual(['SBIN', CE]);
    expect(formatPositionbook([])).toEqual([]);
  });
});

// prettier-ignore
function holding(symbol: string, quantity: number, cost: string, ltp?: string): HoldingRecord {
  return { userId: 1, updatedAt: 0, symbol, exchange: 'NSE', quantity, cost: r(cost),
    ltp: ltp ? r(ltp) : undefined };
}

describe('holdings', () => {
  const sbin = holding('SBIN', 10, '8000', '812.35');
  const tata = holding('TATASTEEL', 7, '1157.10', '160.05');

  it('writes every field; pnlpercent is P&L over invested value', () => {
    // SBIN: 8123.50 − 8000 = +123.50, 1.54375 % → 1.54.
    // TATASTEEL: 1120.35 − 1157.10 = −36.75, −3.176… % → −3.18.
    const { holdings } = formatHoldings([sbin, tata]);
    // prettier-ignore
    expect(holdings).toStrictEqual([
      { symbol: 'SBIN', exchange: 'NSE', product: 'CNC', quantity: 10, average_price: 800, ltp: 812.35,
        pnl: 123.5, pnlpercent: 1.54 },
      { symbol: 'TATASTEEL', exchange: 'NSE', product: 'CNC', quantity: 7, average_price: 165.3, ltp: 160.05,
        pnl: -36.75, pnlpercent: -3.18 },
    ]);
  });

  it('statistics sum value, investment and P&L; the percentage is of the total investment', () => {
    // 9243.85 − 9157.10 = 86.75; 86.75 ÷ 9157.10 = 0.9473… %.
    // prettier-ignore
    expect(formatHoldings([sbin, tata]).statistics).toStrictEqual({ totalholdingvalue: 9243.85,
      totalinvvalue: 9157.1, totalprofitandloss: 86.75, totalpnlpercentage: 0.95 });
  });

  it('an unpriced holding is valued at cost: no fabricated loss', () => {
    // 8123.50 + 6002.20 = 14125.70 against 14002.20: +123.50 = 0.882 %.
    const out = formatHoldings([sbin, holding('INFY', 4, '6002.20')]);
    expect(out.holdings[1]).toMatchObject({ average_price: 1500.55, ltp: 0, pnl: 0, pnlpercent: 0 });
    // prettier-ignore
    expect(out.statistics).toStrictEqual({ totalholdingvalue: 14125.7, totalinvvalue: 14002.2,
      totalprofitandloss: 123.5, totalpnlpercentage: 0.88 });
  });

  it('empty holdings have zero statistics', () => {
    const zero = { totalholdingvalue: 0, totalinvvalue: 0, totalprofitandloss: 0, totalpnlpercentage: 0 };
    expect(formatHoldings([])).toStrictEqual({ holdings: [], statistics: zero });
  });
});

// prettier-ignore
const ACCOUNT: AccountRecord = { userId: 1, startingFunds: r('10000000'), available: r('9987654.3210'),
  usedMargin: r('12345.675'), realisedPnl: r('-12.345'), unrealisedPnl: r('-0.0049'), resetAt: 0,
  charges: r('20.005') };

describe('funds', () => {
  it('rounds each amount to 2 decimals, halves away from zero, never -0', () => {
    const funds = formatFunds(ACCOUNT);
    // prettier-ignore
    expect(funds).toStrictEqual({ availablecash: 9987654.32, collateral: 0, m2mrealized: -12.35,
      m2munrealized: 0, utiliseddebits: 12345.68, charges: 20.01, netrealized: -32.35 });
    expect(Object.is(funds.m2munrealized, 0)).toBe(true);
  });

  it('a fresh account is all cash', () => {
    const fresh = {
      ...ACCOUNT,
      available: r('10000000'),
      usedMargin: 0,
      realisedPnl: 0,
      unrealisedPnl: 0,
      charges: 0,
    };
    const zero = {
      collateral: 0,
      m2mrealized: 0,
      m2munrealized: 0,
      utiliseddebits: 0,
      charges: 0,
      netrealized: 0,
    };
    expect(formatFunds(fresh)).toStrictEqual({ availablecash: 10000000, ...zero });
  });
});

// The app's body validator: no type coercion (platform/http/validation.plugin.ts).
const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: false, coerceTypes: false });
const valid = (schema: object, body: unknown) => ajv.validate(schema, body);

describe('schemas match the formatted books', () => {
  const ok = (data: unknown) => ({ status: 'success', data, mode: 'analyze' });

  it('every response body validates against its schema', () => {
    const long = position('SBIN', 'NSE', 3, '2437.15', { ltp: r('815') });
    // prettier-ignore
    const cases: [object, unknown][] = [
      [OrderbookResponse, ok(formatOrderbook(BOOK))],
      [OrderStatusResponse, ok(formatOrderStatus(BOOK[0]!))],
      [TradebookResponse, ok(formatTradebook([trade('1', 'SBIN', 'NSE', '800', {})]))],
      [PositionbookResponse, ok(formatPositionbook([long]))],
      [HoldingsResponse, ok(formatHoldings([holding('SBIN', 10, '8000', '812.35')]))],
      [FundsResponse, ok(formatFunds(ACCOUNT))],
      [CancelAllOrderResponse, { status: 'success', message: 'Canceled 0 orders. Failed to cancel 0 orders.',
        canceled_orders: [], failed_cancellations: [] }],
    ];
    for (const [schema, body] of cases) expect(valid(schema, body), ajv.errorsText()).toBe(true);
  });
});

describe('request bodies', () => {
  // prettier-ignore
  const modify = { apikey: 'k'.repeat(64), strategy: 'Python', orderid: '250408001002736', symbol: 'SBIN',
    action: 'BUY', exchange: 'NSE', pricetype: 'LIMIT', product: 'CNC', quantity: '1', price: '16.5' };

  it('orderid is a string of digits or a safe integer', () => {
    expect(valid(OrderIdBody, { apikey: 'k', orderid: '250408001002736' })).toBe(true);
    expect(valid(OrderIdBody, { apikey: 'k', orderid: 101 })).toBe(true);
    expect(orderIdString(101)).toBe('101');
    for (const orderid of ['abc', '', '12a', 1.5, -1, 2 ** 53, true, null])
      expect(valid(OrderIdBody, { apikey: 'k', orderid }), String(orderid)).toBe(false);
    expect(valid(OrderIdBody, { apikey: '', orderid: '1' })).toBe(false);
    expect(valid(OrderIdBody, { orderid: '1' })).toBe(false);
  });

  it('modifyorder takes prices and quantities as numbers or decimal strings, and allows extra fields', () => {
    expect(valid(ModifyOrderBody, modify)).toBe(true);
    const numeric = { price: 16.5, quantity: 1, trigger_price: '0', disclosed_quantity: 0, action: 'buy' };
    expect(valid(ModifyOrderBody, { ...modify, ...numeric, validity: 'DAY' })).toBe(true);
    expect(valid(ModifyOrderBody, { ...modify, strategy: undefined })).toBe(true);
  });

  it('modifyorder refuses malformed values', () => {
    // prettier-ignore
    const bad: Record<string, unknown>[] = [
      { price: 'abc' }, { price: '-1' }, { price: '1e3' }, { price: -0.05 }, { price: true }, { price: null },
      { quantity: '0' }, { quantity: 0 }, { quantity: '1.5' }, { quantity: 1.5 }, { trigger_price: 'x' },
      { disclosed_quantity: -1 }, { action: 'HOLD' }, { pricetype: 'STOP' }, { product: 'BO' },
      { exchange: 'NASDAQ' }, { symbol: '' }, { orderid: 'abc' }, { strategy: 's'.repeat(101) },
    ];
    for (const change of bad)
      expect(valid(ModifyOrderBody, { ...modify, ...change }), JSON.stringify(change)).toBe(false);
    const { price: _price, ...noPrice } = modify;
    expect(valid(ModifyOrderBody, noPrice)).toBe(false);
  });
});
