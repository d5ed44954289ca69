/**
 * Noren books → the broker contract's neutral rows (NorenApi-Py README "Order Book", "Trade
 * Book", "single order history", "get_holdings", "get_positions", "get_limits"; OpenAlgo's
 * broker/flattrade/mapping/order_data.py and api/funds.py read them the same way). Every value is a
 * string (`"qty":"100"`); each record carries `"stat":"Ok"`.
 *
 * - `OrderBook`: `norenordno`, `exch`, `tsym`, `token`, `trantype` B/S, `qty`, `prc`, `trgprc`,
 *   `prctyp` (MKT, LMT, SL-LMT, SL-MKT), `prd` (C, M, I, H, B), `status` (OPEN, COMPLETE,
 *   CANCELED, REJECTED, TRIGGER_PENDING, PENDING, and `REJECT`/`Open` in the docs' example),
 *   `fillshares`, `avgprc`, `rejreason`, `remarks` (the tag), `norentm` `19:59:32 13-12-2020`;
 * - `TradeBook`: `flid`, `norenordno`, `flqty`, `flprc`, `fltm` `13-12-2020 19:59:32` (the other
 *   order of date and time), `remarks`;
 * - `PositionBook`: `netqty`, `netavgprc`, `lp`, `rpnl`, `urmtom` (P&L is their sum);
 * - `Holdings`: `exch_tsym[]` (the NSE listing chosen, else the first), `holdqty` plus the larger
 *   of `npoadt1qty` and `dpqty` (OpenAlgo's sum), `upldprc` as the average; no price or P&L;
 * - `Limits`: available cash = `cash` + `payin` − `marginused`; `collateral` (else `brkcollamt`);
 *   `rpnl`, `urmtom`; utilised = `marginused` (OpenAlgo's funds.py, which sums the position book's
 *   P&L instead of the limits').
 *
 * Noren's exchanges are algodesk's (NSE, BSE, NFO, BFO, CDS, MCX).
 */
import type { BookFunds, BookHolding, BookOrder, BookPosition, BookTrade } from '../broker-adapter.js';
import { isRec, num, orderStatus, type Rec, records, sharedOrderRecord, str } from '../http/book-fields.js';
import { hasLimitPrice, hasTriggerPrice } from '../../../domain/orders.js';
import { norenAction, norenPriceType, norenProduct } from './noren.mapping.js';

const instrument = (r: Rec) => ({
  brsymbol: str(r.tsym),
  exchange: str(r.exch),
  brexchange: str(r.exch),
  token: str(r.token),
});

/**
 * A Noren time as `YYYY-MM-DD HH:MM:SS`: `19:59:32 13-12-2020` (order book) and
 * `13-12-2020 19:59:32` (fills) both; anything else as it came.
 */
export function norenTime(v: unknown): string {
  const s = str(v).trim();
  const a = /^(\d{2}:\d{2}:\d{2}) (\d{2})-(\d{2})-(\d{4})$/.exec(s);
  if (a) return `${a[4]}-${a[3]}-${a[2]} ${a[1]}`;
  const b = /^(\d{2})-(\d{2})-(\d{4}) (\d{2}:\d{2}:\d{2})$/.exec(s);
  if (b) return `${b[3]}-${b[2]}-${b[1]} ${b[4]}`;
  return s;
}

/** A Noren order status in OpenAlgo's words (CANCELED and REJECT spelled Noren's way). */
export function norenStatus(v: unknown): BookOrder['order_status'] {
  const s = str(v).toLowerCase().replace(/_/g, ' ');
  if (s === 'canceled') return 'cancelled';
  if (s === 'reject') return 'rejected';
  return orderStatus(s);
}

export function norenOrders(data: unknown): BookOrder[] {
  return records(data).map((r) => {
    const i = instrument(r);
    const pricetype = norenPriceType(r.prctyp);
    const status = norenStatus(r.status);
    const quantity = num(r.qty);
    const filled = num(r.fillshares);
    return {
      ...i,
      orderid: str(r.norenordno),
      action: norenAction(r.trantype),
      quantity,
      price: hasLimitPrice(pricetype) ? num(r.prc) : 0,
      trigger_price: hasTriggerPrice(pricetype) ? num(r.trgprc) : 0,
      pricetype,
      product: norenProduct(r.prd, i.exchange),
      order_status: status,
      average_price: num(r.avgprc),
      filled_quantity: filled,
      pending_quantity:
        status === 'open' || status === 'trigger pending' ? Math.max(0, quantity - filled) : 0,
      rejection_reason: status === 'rejected' || status === 'cancelled' ? str(r.rejreason) : '',
      timestamp: norenTime(str(r.norentm, r.exch_tm)),
      strategy: str(r.remarks),
    };
  });
}

/**
 * A Noren order record with the field names the Kite and Upstox records share (`order_id`,
 * `transaction_type`, `order_type`, `product`, `status` in OpenAlgo's words, `tag`, …), which the
 * orders module's status reader and the strategies' reconciliation take; Noren's own fields stay
 * beside them. `orderStatus` and `ordersByTag` answer with these.
 */
export function norenOrderRecord(r: Rec): Rec {
  const [o] = norenOrders([r]);
  if (!o) return r;
  return { ...r, ...sharedOrderRecord(o) };
}

export function norenTrades(data: unknown): BookTrade[] {
  return records(data).map((r) => {
    const i = instrument(r);
    return {
      ...i,
      tradeid: str(r.flid),
      orderid: str(r.norenordno),
      action: norenAction(r.trantype),
      quantity: num(r.flqty ?? r.fillshares),
      average_price: num(r.flprc ?? r.avgprc),
      product: norenProduct(r.prd, i.exchange),
      timestamp: norenTime(str(r.fltm, r.norentm)),
      strategy: str(r.remarks),
    };
  });
}

export function norenPositions(data: unknown): BookPosition[] {
  return records(data).map((r) => {
    const i = instrument(r);
    const realized = num(r.rpnl);
    const unrealized = num(r.urmtom);
    return {
      ...i,
      product: norenProduct(r.prd, i.exchange),
      quantity: num(r.netqty),
      average_price: num(r.netavgprc),
      ltp: num(r.lp),
      pnl: Math.round((realized + unrealized) * 100) / 100,
      realized_pnl: realized,
      unrealized_pnl: unrealized,
    };
  });
}

export function norenHoldings(data: unknown): BookHolding[] {
  const out: BookHolding[] = [];
  for (const r of records(data)) {
    const listings = records(r.exch_tsym);
    const listing = listings.find((l) => str(l.exch) === 'NSE') ?? listings[0];
    if (!listing) continue;
    out.push({
      ...instrument(listing),
      quantity: num(r.holdqty) + Math.max(num(r.npoadt1qty), num(r.dpqty)),
      average_price: num(r.upldprc),
      ltp: num(listing.lp ?? r.lp),
      pnl: 0,
    });
  }
  return out;
}

export function norenFunds(data: unknown): BookFunds {
  const r = isRec(data) ? data : {};
  const round = (n: number) => Math.round(n * 100) / 100;
  const collateral = num(r.collateral);
  return {
    availablecash: round(num(r.cash) + num(r.payin) - num(r.marginused)),
    collateral: collateral !== 0 ? collateral : num(r.brkcollamt),
    m2mrealized: num(r.rpnl),
    m2munrealized: num(r.urmtom),
    utiliseddebits: num(r.marginused),
  };
}
