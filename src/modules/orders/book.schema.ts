/**
 * The `/api/v1` order and book contract: the request fields every order endpoint shares (API
 * key, strategy, order id, rupees, quantities and {@link quantityOf}), and the wire schemas of
 * OpenAlgo's book and order-management endpoints as both modes answer them
 * (docs/rules/sandbox.md#read-apis): orderbook, tradebook, positionbook, holdings, funds,
 * orderstatus, cancelorder, cancelallorder, modifyorder, closeposition. Field names, types and row
 * order follow OpenAlgo; where OpenAlgo's own code and documentation disagree the choice is
 * recorded in docs/openalgo-book-shapes.md. Bodies allow unknown fields (OpenAlgo clients send
 * extras).
 */
import { Type, type Static } from 'typebox';
import { SEARCH_EXCHANGES } from '../market/search-rules.js';
import { ACTIONS, PRICE_TYPES, PRODUCTS } from '../../domain/orders.js';
import { literalUnion } from '../../platform/http/literal-union.js';

// ---- Request fields ----

/** The OpenAlgo API key (OpenAlgo: 1–256 characters). */
export const ApiKey = Type.String({ minLength: 1, maxLength: 256 });

/** The strategy tag. OpenAlgo's schema requires it on order routes; its docs (and we) make it optional. */
export const Strategy = Type.String({ maxLength: 100 });

/** Decimal digits of a sandbox order id (the ids are decimal strings of a database id). */
export const ORDER_ID_PATTERN = '^[0-9]{1,32}$';

/**
 * An order id: a string of 1–32 digits (what OpenAlgo clients send), or a non-negative safe
 * integer (what a JavaScript client that parsed an id as a number sends). OpenAlgo itself refuses
 * the number; accepting it costs nothing. A number past 2^53 is refused: JSON parsing already
 * changed its digits. Normalise with {@link orderIdString}.
 */
export const OrderId = Type.Union([
  Type.String({ pattern: ORDER_ID_PATTERN }),
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
]);

/** The order id as stored and returned: the digits as sent, or the integer written in decimal. */
export function orderIdString(id: string | number): string {
  return typeof id === 'number' ? String(id) : id;
}

/**
 * A non-negative rupee amount as OpenAlgo accepts it (marshmallow `Float`): a JSON number or a
 * decimal string (`"16.5"`). The schema only checks the shape; the service converts with
 * `tryRupeesToMoney` and answers 400 past four decimals or off the tick grid.
 */
export const Rupees = Type.Union([
  Type.Number({ minimum: 0 }),
  Type.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{0,12})?$' }),
]);

/** A positive whole quantity: a JSON integer or a string of digits without leading zeros (`"75"`). */
export const Quantity = Type.Union([
  Type.Integer({ minimum: 1, maximum: 999_999_999 }),
  Type.String({ pattern: '^[1-9][0-9]{0,8}$' }),
]);

/** A non-negative whole quantity (disclosed quantity). */
export const NonNegativeQuantity = Type.Union([
  Type.Integer({ minimum: 0, maximum: 999_999_999 }),
  Type.String({ pattern: '^[0-9]{1,9}$' }),
]);

/** A validated {@link Quantity} or {@link NonNegativeQuantity} as a number. */
export function quantityOf(q: number | string): number {
  return typeof q === 'number' ? q : Number(q);
}

const Side = literalUnion(ACTIONS);
/** An action in either case (stored upper-case). */
const Action = literalUnion([...ACTIONS, ...ACTIONS.map((a) => a.toLowerCase() as Lowercase<typeof a>)]);
const PriceType = literalUnion(PRICE_TYPES);
const Product = literalUnion(PRODUCTS);
const Exchange = literalUnion(SEARCH_EXCHANGES);

// ---- Request bodies ----

/** `{ apikey }`: orderbook, tradebook, positionbook, holdings and funds. */
export const ApiKeyBody = Type.Object({ apikey: ApiKey });
export type ApiKeyBody = Static<typeof ApiKeyBody>;
export const OrderbookBody = ApiKeyBody;
export const TradebookBody = ApiKeyBody;
export const PositionbookBody = ApiKeyBody;
export const HoldingsBody = ApiKeyBody;
export const FundsBody = ApiKeyBody;

/** `{ apikey, strategy?, orderid }`: orderstatus and cancelorder. */
export const OrderIdBody = Type.Object({
  apikey: ApiKey,
  strategy: Type.Optional(Strategy),
  orderid: OrderId,
});
export type OrderIdBody = Static<typeof OrderIdBody>;
export const OrderStatusBody = OrderIdBody;
export const CancelOrderBody = OrderIdBody;

/** `{ apikey, strategy? }`: cancelallorder and closeposition (every open order / position). */
export const StrategyBody = Type.Object({ apikey: ApiKey, strategy: Type.Optional(Strategy) });
export type StrategyBody = Static<typeof StrategyBody>;
export const CancelAllOrderBody = StrategyBody;
export const ClosePositionBody = StrategyBody;

/**
 * modifyorder. OpenAlgo's marshmallow schema requires every field; its docs make `strategy`,
 * `trigger_price` and `disclosed_quantity` optional (default 0), and so do we. `symbol`,
 * `exchange`, `action` and `product` name the order; they cannot change it.
 */
export const ModifyOrderBody = Type.Object({
  apikey: ApiKey,
  strategy: Type.Optional(Strategy),
  orderid: OrderId,
  symbol: Type.String({ minLength: 1, maxLength: 64 }),
  exchange: Exchange,
  /** BUY or SELL, either case (as in OpenAlgo). */
  action: Action,
  product: Product,
  pricetype: PriceType,
  price: Rupees,
  quantity: Quantity,
  trigger_price: Type.Optional(Rupees),
  disclosed_quantity: Type.Optional(NonNegativeQuantity),
});
export type ModifyOrderBody = Static<typeof ModifyOrderBody>;

// ---- Response rows ----

const Status = Type.Union([
  Type.Literal('open'),
  Type.Literal('trigger pending'),
  Type.Literal('complete'),
  Type.Literal('cancelled'),
  Type.Literal('rejected'),
]);
/** A rupee amount: 2 decimals, 4 on CDS/BCD (see sandbox/core/book-format.ts). */
const Amount = Type.Number();

/** One order (orderbook row and orderstatus `data`), OpenAlgo sandbox field order. */
export const OrderRow = Type.Object({
  orderid: Type.String(),
  symbol: Type.String(),
  exchange: Type.String(),
  action: Side,
  quantity: Type.Integer(),
  /** Limit price; 0 for MARKET and SL-M. */
  price: Amount,
  /** 0 for MARKET and LIMIT. */
  trigger_price: Amount,
  pricetype: PriceType,
  product: Product,
  order_status: Status,
  /** Fill price; 0 until filled. */
  average_price: Amount,
  filled_quantity: Type.Integer(),
  /** Quantity still working: 0 once the order is final. */
  pending_quantity: Type.Integer(),
  /** Why the system rejected or cancelled it; "" otherwise. */
  rejection_reason: Type.String(),
  /** `YYYY-MM-DD HH:MM:SS`, IST. */
  timestamp: Type.String(),
  /** "" when the order had none. */
  strategy: Type.String(),
});
export type OrderRow = Static<typeof OrderRow>;

/** Orderbook counts (integers). `total_open_orders` counts `open` and `trigger pending`. */
export const OrderStatistics = Type.Object({
  total_buy_orders: Type.Integer(),
  total_sell_orders: Type.Integer(),
  total_completed_orders: Type.Integer(),
  total_open_orders: Type.Integer(),
  total_rejected_orders: Type.Integer(),
});
export type OrderStatistics = Static<typeof OrderStatistics>;

export const Orderbook = Type.Object({ orders: Type.Array(OrderRow), statistics: OrderStatistics });
export type Orderbook = Static<typeof Orderbook>;

/** One fill (tradebook row). */
export const TradeRow = Type.Object({
  tradeid: Type.String(),
  orderid: Type.String(),
  symbol: Type.String(),
  exchange: Type.String(),
  action: Side,
  quantity: Type.Integer(),
  /** The fill price (OpenAlgo sends it twice, as `average_price` and `price`). */
  average_price: Amount,
  price: Amount,
  /** price × quantity. */
  trade_value: Amount,
  product: Product,
  strategy: Type.String(),
  timestamp: Type.String(),
  /** Analyzer mode: the fill's charges (docs/rules/sandbox.md#charges-booked). */
  charges: Type.Optional(Amount),
});
export type TradeRow = Static<typeof TradeRow>;

/** One net position (positionbook row); flat positions of the session stay with their P&L. */
export const PositionRow = Type.Object({
  symbol: Type.String(),
  exchange: Type.String(),
  product: Product,
  /** Signed: > 0 long, < 0 short, 0 closed. */
  quantity: Type.Integer(),
  average_price: Amount,
  /** 0 when no price is known. */
  ltp: Amount,
  /** realized_pnl + unrealized_pnl. */
  pnl: Amount,
  realized_pnl: Amount,
  /** Mark-to-market of the open quantity at `ltp`; 0 when no price is known. */
  unrealized_pnl: Amount,
  /** Analyzer mode: what the position's fills paid in charges (docs/rules/sandbox.md#charges-booked). */
  charges: Type.Optional(Amount),
  /** Analyzer mode: pnl − charges. */
  net_pnl: Type.Optional(Amount),
});
export type PositionRow = Static<typeof PositionRow>;

/** One delivery holding. */
export const HoldingRow = Type.Object({
  symbol: Type.String(),
  exchange: Type.String(),
  /** Always CNC. */
  product: Product,
  quantity: Type.Integer(),
  average_price: Amount,
  ltp: Amount,
  pnl: Amount,
  /** pnl ÷ invested value × 100, 2 decimals. */
  pnlpercent: Type.Number(),
});
export type HoldingRow = Static<typeof HoldingRow>;

export const HoldingsStatistics = Type.Object({
  totalholdingvalue: Type.Number(),
  totalinvvalue: Type.Number(),
  totalprofitandloss: Type.Number(),
  totalpnlpercentage: Type.Number(),
});
export type HoldingsStatistics = Static<typeof HoldingsStatistics>;

export const Holdings = Type.Object({ holdings: Type.Array(HoldingRow), statistics: HoldingsStatistics });
export type Holdings = Static<typeof Holdings>;

/** Funds as OpenAlgo's sandbox sends them: numbers (live brokers send "0.00" strings). */
export const Funds = Type.Object({
  availablecash: Type.Number(),
  /** Always 0: the sandbox has no pledged collateral. */
  collateral: Type.Number(),
  /** Realised P&L since the account's last reset. */
  m2mrealized: Type.Number(),
  m2munrealized: Type.Number(),
  /** Margin blocked by open orders and positions. */
  utiliseddebits: Type.Number(),
  /** Analyzer mode: the charges every fill since the last reset paid (already out of availablecash). */
  charges: Type.Optional(Type.Number()),
  /** Analyzer mode: m2mrealized − charges. */
  netrealized: Type.Optional(Type.Number()),
});
export type Funds = Static<typeof Funds>;

// ---- Response bodies (200) ----

const Success = Type.Literal('success');
/** OpenAlgo adds `"mode": "analyze"` to every analyzer-mode response. */
const Mode = Type.Optional(Type.Literal('analyze'));

export const OrderbookResponse = Type.Object({ status: Success, data: Orderbook, mode: Mode });
export const TradebookResponse = Type.Object({ status: Success, data: Type.Array(TradeRow), mode: Mode });
export const PositionbookResponse = Type.Object({
  status: Success,
  data: Type.Array(PositionRow),
  mode: Mode,
});
export const HoldingsResponse = Type.Object({ status: Success, data: Holdings, mode: Mode });
export const FundsResponse = Type.Object({ status: Success, data: Funds, mode: Mode });
export const OrderStatusResponse = Type.Object({ status: Success, data: OrderRow, mode: Mode });

/** cancelorder and modifyorder: `{ status, orderid, message }`. */
export const OrderActionResponse = Type.Object({
  status: Success,
  orderid: Type.String(),
  message: Type.Optional(Type.String()),
  mode: Mode,
});
export type OrderActionResponse = Static<typeof OrderActionResponse>;
export const CancelOrderResponse = OrderActionResponse;
export const ModifyOrderResponse = OrderActionResponse;

/** cancelallorder: success even when some cancellations fail. */
export const CancelAllOrderResponse = Type.Object({
  status: Success,
  /** `Canceled N orders. Failed to cancel M orders.` */
  message: Type.String(),
  canceled_orders: Type.Array(Type.String()),
  failed_cancellations: Type.Array(Type.Object({ orderid: Type.String(), message: Type.String() })),
  mode: Mode,
});
export type CancelAllOrderResponse = Static<typeof CancelAllOrderResponse>;

/** closeposition: a MARKET order against every open position. */
export const ClosePositionResponse = Type.Object({
  status: Success,
  message: Type.String(),
  /** Positions a closing order was placed for (OpenAlgo sandbox). */
  closed_positions: Type.Optional(Type.Integer()),
  failed_closures: Type.Optional(Type.Integer()),
  mode: Mode,
});
export type ClosePositionResponse = Static<typeof ClosePositionResponse>;
