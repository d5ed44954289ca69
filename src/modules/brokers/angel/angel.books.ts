/**
 * SmartAPI books → the broker contract's neutral rows, as OpenAlgo's
 * broker/angel/mapping/order_data.py and broker/angel/api/funds.py read them
 * (smartapi.angelone.in/docs/Orders, /Portfolio, /User):
 *
 * - `GET …/order/v1/getOrderBook`: each order's current record. Numbers come as strings or
 *   numbers (`"quantity":"1"`, `"price":194.0`); `status` is lower case (`open`, `complete`,
 *   `cancelled`, `rejected`, `trigger pending`, and in-flight states such as `open pending`,
 *   `validation pending`, `modify pending`, all read as `open`); `filledshares`,
 *   `unfilledshares`, `averageprice`; `text` is the rejection reason; `updatetime` is
 *   `20-Oct-2020 13:10:59` (written here as `2020-10-20 13:10:59`); `ordertag` the tag;
 * - `GET …/order/v1/getTradeBook`: `fillid`, `orderid`, `fillprice`, `fillsize`, and `filltime`
 *   as a time of day only (`13:27:53`), dated here with today's IST date; no `symboltoken`;
 * - `GET …/order/v1/getPosition`: `netqty`, `avgnetprice`, `ltp`, `pnl`, `realised`,
 *   `unrealised`, `symboltoken` (the last four as the live API adds them to the documented
 *   fields; OpenAlgo reads `ltp` and `pnl`);
 * - `GET …/portfolio/v1/getAllHolding`: `data.holdings[]` with `quantity`, `averageprice`, `ltp`,
 *   `profitandloss`, `symboltoken` (and `data.totalholding`); `getHolding`'s bare array is read too.
 *   A holding's `quantity` is taken as it is (OpenAlgo does; `t1quantity` is a part of it);
 * - `GET …/user/v1/getRMS`: `availablecash`, `collateral`, `m2mrealized`, `m2munrealized`,
 *   `utiliseddebits` (strings), the five OpenAlgo's funds answer with.
 *
 * Angel's `exchange` is already the exchange algodesk uses (NSE, BSE, NFO, BFO, MCX, CDS).
 */
import type { BookFunds, BookHolding, BookOrder, BookPosition, BookTrade } from '../broker-adapter.js';
import {
  action,
  isRec,
  num,
  orderStatus,
  type Rec,
  records,
  sharedOrderRecord,
  str,
} from '../http/book-fields.js';
import { istStamp } from '../http/broker-gtt.js';
import { hasLimitPrice, hasTriggerPrice } from '../../../domain/orders.js';
import { angelPriceType, angelProduct } from './angel.mapping.js';

const instrument = (r: Rec) => ({
  brsymbol: str(r.tradingsymbol),
  exchange: str(r.exchange),
  brexchange: str(r.exchange),
  token: str(r.symboltoken),
});

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const ANGEL_TIME = /^(\d{1,2})-([A-Za-z]{3})-(\d{4}) (\d{2}:\d{2}:\d{2})$/;

/** Angel's `20-Oct-2020 13:10:59` as `2020-10-20 13:10:59`; anything else as it came. */
export function angelTime(v: unknown): string {
  const s = str(v).trim();
  const m = ANGEL_TIME.exec(s);
  const month = m ? MONTHS.indexOf(m[2]!.toUpperCase()) : -1;
  if (!m || month < 0) return s;
  return `${m[3]}-${String(month + 1).padStart(2, '0')}-${m[1]!.padStart(2, '0')} ${m[4]}`;
}

export function angelOrders(data: unknown): BookOrder[] {
  return records(data).map((r) => {
    const i = instrument(r);
    const pricetype = angelPriceType(r.ordertype);
    const status = orderStatus(str(r.status, r.orderstatus));
    const quantity = num(r.quantity);
    const filled = num(r.filledshares);
    return {
      ...i,
      orderid: str(r.orderid),
      action: action(r.transactiontype),
      quantity,
      price: hasLimitPrice(pricetype) ? num(r.price) : 0,
      trigger_price: hasTriggerPrice(pricetype) ? num(r.triggerprice) : 0,
      pricetype,
      product: angelProduct(r.producttype, i.exchange),
      order_status: status,
      average_price: num(r.averageprice),
      filled_quantity: filled,
      pending_quantity:
        status === 'open' || status === 'trigger pending'
          ? r.unfilledshares === undefined
            ? Math.max(0, quantity - filled)
            : num(r.unfilledshares)
          : 0,
      rejection_reason: status === 'rejected' || status === 'cancelled' ? str(r.text) : '',
      timestamp: angelTime(str(r.updatetime, r.exchorderupdatetime, r.exchtime)),
      strategy: str(r.ordertag),
    };
  });
}

/**
 * An Angel order record with the field names the Kite and Upstox records share (`order_id`,
 * `transaction_type`, `order_type`, `product` and `status` in OpenAlgo's words, `tag`, …), which
 * the orders module's orderstatus reader (orders/live-order-status.ts) and the strategies'
 * reconciliation take; Angel's own fields stay beside them. `orderStatus` and `ordersByTag`
 * answer with these.
 */
export function angelOrderRecord(r: Rec): Rec {
  const [o] = angelOrders([r]);
  if (!o) return r;
  return { ...r, ...sharedOrderRecord(o) };
}

/** The day's fills; `now` (epoch ms) dates Angel's time-only `filltime`. */
export function angelTrades(data: unknown, now: number): BookTrade[] {
  const today = istStamp(now).slice(0, 10);
  return records(data).map((r) => {
    const i = instrument(r);
    const time = str(r.filltime);
    return {
      ...i,
      tradeid: str(r.fillid),
      orderid: str(r.orderid),
      action: action(r.transactiontype),
      quantity: num(r.fillsize),
      average_price: num(r.fillprice),
      product: angelProduct(r.producttype, i.exchange),
      timestamp: /^\d{2}:\d{2}:\d{2}$/.test(time) ? `${today} ${time}` : angelTime(time),
      strategy: '',
    };
  });
}

export function angelPositions(data: unknown): BookPosition[] {
  return records(data).map((r) => {
    const i = instrument(r);
    return {
      ...i,
      product: angelProduct(r.producttype, i.exchange),
      quantity: num(r.netqty),
      average_price: num(r.avgnetprice),
      ltp: num(r.ltp),
      pnl: num(r.pnl),
      realized_pnl: num(r.realised),
      unrealized_pnl: num(r.unrealised),
    };
  });
}

export function angelHoldings(data: unknown): BookHolding[] {
  const rows = isRec(data) ? records(data.holdings) : records(data);
  return rows.map((r) => ({
    ...instrument(r),
    quantity: num(r.quantity),
    average_price: num(r.averageprice),
    ltp: num(r.ltp),
    pnl: num(r.profitandloss),
  }));
}

export function angelFunds(data: unknown): BookFunds {
  const r = isRec(data) ? data : {};
  return {
    availablecash: num(r.availablecash),
    collateral: num(r.collateral),
    m2mrealized: num(r.m2mrealized),
    m2munrealized: num(r.m2munrealized),
    utiliseddebits: num(r.utiliseddebits),
  };
}
