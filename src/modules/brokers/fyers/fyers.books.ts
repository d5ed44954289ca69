/**
 * Fyers API v3 books → the broker contract's neutral rows (myapi.fyers.in/docsv3: "Orders",
 * "Trades", "Positions", "Holdings", "Funds"), as OpenAlgo's broker/fyers/mapping/order_data.py
 * and broker/fyers/api/funds.py read them. Every answer is `{"s":"ok","code":200,"message":"",…}`
 * with its rows under its own key:
 *
 * - `GET /orders` → `orderBook[]`: `id`, `symbol` (`NSE:IDEA-EQ`), `fyToken`, `segment`, `qty`,
 *   `filledQty`, `remainingQuantity`, `limitPrice`, `stopPrice`, `tradedPrice`, `type` (1 LIMIT,
 *   2 MARKET, 3 SL-M, 4 SL), `side` (1/-1), `productType`, `status`, `message`, `orderDateTime`
 *   (`09-Mar-2023 09:34:38`, written here `2023-03-09 09:34:38`), `orderTag` (`1:<tag>`).
 *   Statuses: 1 cancelled, 2 traded → complete, 5 rejected, 7 expired → cancelled; 4 transit and
 *   6 pending → open (OpenAlgo reads 4 as trigger pending; the docs call it transit);
 * - `GET /tradebook` → `tradeBook[]`: `tradeNumber`, `orderNumber`, `tradedQty`, `tradePrice`,
 *   `orderDateTime`, `orderTag`;
 * - `GET /positions` → `netPositions[]`: `netQty`, `netAvg`, `ltp`, `pl`, `realized_profit`,
 *   `unrealized_profit` (in the docs' sample, not its table: read when present, else pl less
 *   realised);
 * - `GET /holdings` → `holdings[]`: `quantity`, `costPrice`, `ltp`, `pl` (T1 holdings are rows of
 *   their own, `holdingType` `T1`);
 * - `GET /funds` → `fund_limit[]` ledger lines by `title`, each `equityAmount` +
 *   `commodityAmount`: available cash is "Clear Balance" (OpenAlgo's choice: "Available Balance"
 *   adds the collateral back), collateral "Collaterals", used "Utilized Amount"; M2M is summed
 *   from the positions, as OpenAlgo does.
 */
import type {
  BookFunds,
  BookHolding,
  BookOrder,
  BookOrderStatus,
  BookPosition,
  BookTrade,
} from '../broker-adapter.js';
import { isRec, num, type Rec, records, sharedOrderRecord, str } from '../http/book-fields.js';
import { hasLimitPrice, hasTriggerPrice } from '../../../domain/orders.js';
import { actionOf, bookTag, fyersInstrument, priceTypeOf, productOf } from './fyers.mapping.js';

/** The rows of a Fyers answer under `key` (the answer itself may be the list). */
const rows = (data: unknown, key: string): Rec[] =>
  Array.isArray(data) ? records(data) : isRec(data) ? records(data[key]) : [];

const instrument = (r: Rec) => fyersInstrument(str(r.symbol), r.segment, r.fyToken ?? r.fytoken);

/** Fyers' order status codes in OpenAlgo's words (unknown ones are `open`: still working). */
const STATUS: Readonly<Record<string, BookOrderStatus>> = {
  '1': 'cancelled',
  '2': 'complete',
  '5': 'rejected',
  '7': 'cancelled',
};

export function fyersOrderStatus(v: unknown): BookOrderStatus {
  return STATUS[str(v)] ?? 'open';
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const FYERS_TIME = /^(\d{1,2})-([A-Za-z]{3}|\d{2})-(\d{4}) (\d{2}:\d{2}:\d{2})$/;

/** `09-Mar-2023 09:34:38` (or `09-03-2023 …`) as `2023-03-09 09:34:38`; else as it came. */
export function fyersTime(v: unknown): string {
  const s = str(v).trim();
  const m = FYERS_TIME.exec(s);
  if (!m) return s;
  const month = /^\d+$/.test(m[2]!) ? Number(m[2]) - 1 : MONTHS.indexOf(m[2]!.toUpperCase());
  if (month < 0 || month > 11) return s;
  return `${m[3]}-${String(month + 1).padStart(2, '0')}-${m[1]!.padStart(2, '0')} ${m[4]}`;
}

export function fyersOrders(data: unknown): BookOrder[] {
  return rows(data, 'orderBook').map((r) => {
    const pricetype = priceTypeOf(r.type);
    const status = fyersOrderStatus(r.status);
    const quantity = num(r.qty);
    const filled = num(r.filledQty);
    const working = status === 'open' || status === 'trigger pending';
    return {
      ...instrument(r),
      orderid: str(r.id),
      action: actionOf(r.side),
      quantity,
      price: hasLimitPrice(pricetype) ? num(r.limitPrice) : 0,
      trigger_price: hasTriggerPrice(pricetype) ? num(r.stopPrice) : 0,
      pricetype,
      product: productOf(r.productType),
      order_status: status,
      average_price: num(r.tradedPrice),
      filled_quantity: filled,
      pending_quantity: working
        ? r.remainingQuantity === undefined
          ? Math.max(0, quantity - filled)
          : num(r.remainingQuantity)
        : 0,
      rejection_reason: status === 'rejected' || status === 'cancelled' ? str(r.message) : '',
      timestamp: fyersTime(r.orderDateTime),
      strategy: bookTag(r.orderTag),
    };
  });
}

export function fyersTrades(data: unknown): BookTrade[] {
  return rows(data, 'tradeBook').map((r) => ({
    ...instrument(r),
    tradeid: str(r.tradeNumber),
    orderid: str(r.orderNumber),
    action: actionOf(r.side),
    quantity: num(r.tradedQty),
    average_price: num(r.tradePrice),
    product: productOf(r.productType),
    timestamp: fyersTime(r.orderDateTime),
    strategy: bookTag(r.orderTag),
  }));
}

export function fyersPositions(data: unknown): BookPosition[] {
  return rows(data, 'netPositions').map((r) => {
    const pnl = num(r.pl);
    const realized = num(r.realized_profit);
    return {
      ...instrument(r),
      product: productOf(r.productType),
      quantity: num(r.netQty),
      average_price: num(r.netAvg),
      ltp: num(r.ltp),
      pnl,
      realized_pnl: realized,
      unrealized_pnl: r.unrealized_profit === undefined ? pnl - realized : num(r.unrealized_profit),
    };
  });
}

export function fyersHoldings(data: unknown): BookHolding[] {
  return rows(data, 'holdings').map((r) => ({
    ...instrument(r),
    quantity: num(r.quantity),
    average_price: num(r.costPrice),
    ltp: num(r.ltp),
    pnl: num(r.pl),
  }));
}

/** A `fund_limit` line's equity and commodity amounts added, by its title in lower case. */
function ledger(data: unknown): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows(data, 'fund_limit'))
    out.set(str(r.title).trim().toLowerCase(), num(r.equityAmount) + num(r.commodityAmount));
  return out;
}

export function fyersFunds(data: unknown, positions: readonly BookPosition[]): BookFunds {
  const l = ledger(data);
  return {
    availablecash: l.get('clear balance') ?? l.get('available balance') ?? 0,
    collateral: l.get('collaterals') ?? 0,
    m2mrealized: positions.reduce((a, p) => a + p.realized_pnl, 0),
    m2munrealized: positions.reduce((a, p) => a + p.unrealized_pnl, 0),
    utiliseddebits: l.get('utilized amount') ?? 0,
  };
}

/**
 * A Fyers order record in the field names the Kite and Upstox records share (`order_id`,
 * `tradingsymbol`, `exchange`, `transaction_type`, `status` in Kite's words, `tag`, …), which
 * the orders module's orderstatus reader (orders/live-order-status.ts) takes; Fyers' own record
 * rides along as `fyers`. `orderStatus` and `ordersByTag` answer with these.
 */
export function fyersOrderRecord(r: Rec): Rec {
  const [o] = fyersOrders([r]);
  if (!o) return { fyers: r };
  return { ...sharedOrderRecord(o), fyers: r };
}
