/**
 * The placeorder request (spec "Order request (placeorder)") and its OpenAlgo-compatible
 * answers. Field rules: `action` BUY/SELL in either case (stored upper-case); `quantity` at least
 * 1, a JSON integer or a digit string; `pricetype` default MARKET; `product` default MIS;
 * `price`, `trigger_price`, `disclosed_quantity` strings (numbers accepted) defaulting to '0'.
 */
import { Type, type Static } from 'typebox';
import { ApiKey, NonNegativeQuantity, Quantity, Rupees, Strategy } from './book.schema.js';
import { ORDER_EXCHANGES } from '../../domain/exchanges.js';
import { PRICE_TYPES, PRODUCTS } from '../../domain/orders.js';
import { literalUnion } from '../../platform/http/literal-union.js';

const OrderFields = {
  apikey: ApiKey,
  strategy: Strategy,
  symbol: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9&._ -]+$' }),
  exchange: literalUnion(ORDER_EXCHANGES),
  action: Type.String({ pattern: '^([Bb][Uu][Yy]|[Ss][Ee][Ll][Ll])$' }),
  quantity: Quantity,
  pricetype: Type.Optional(literalUnion(PRICE_TYPES)),
  product: Type.Optional(literalUnion(PRODUCTS)),
  price: Type.Optional(Rupees),
  trigger_price: Type.Optional(Rupees),
  disclosed_quantity: Type.Optional(NonNegativeQuantity),
  /**
   * An after-market order (the brokers' AMO: Kite's `amo` variety, Upstox's `is_amo`): a LIMIT or
   * SL order placed outside the session that enters the book at the next open
   * (docs/rules/orders.md#after-market-orders). Not in OpenAlgo's body; absent means false.
   */
  amo: Type.Optional(
    Type.Boolean({ description: 'After-market order: LIMIT or SL only, enters the book at the next open' }),
  ),
};

export const PlaceOrderBody = Type.Object(OrderFields);
export type PlaceOrderBody = Static<typeof PlaceOrderBody>;

/** splitorder: the order plus `splitsize`, the most each child order may carry. */
export const SplitOrderBody = Type.Object({ ...OrderFields, splitsize: Quantity });
export type SplitOrderBody = Static<typeof SplitOrderBody>;

const Mode = Type.Optional(
  Type.Union([Type.Literal('analyze'), Type.Literal('live'), Type.Literal('semi_auto')]),
);

export const PlaceOrderResponse = Type.Object({
  status: Type.Literal('success'),
  orderid: Type.Optional(Type.String()),
  /** Set when the order was split at the freeze quantity: every child order's id. */
  orderids: Type.Optional(Type.Array(Type.String())),
  message: Type.Optional(Type.String()),
  pending_order_id: Type.Optional(Type.Integer()),
  mode: Mode,
});

export const SplitOrderResponse = Type.Object({
  status: Type.Literal('success'),
  split_size: Type.Integer(),
  total_quantity: Type.Integer(),
  results: Type.Array(
    Type.Object({
      order_num: Type.Integer(),
      quantity: Type.Integer(),
      status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
      orderid: Type.Optional(Type.String()),
      message: Type.Optional(Type.String()),
    }),
  ),
  message: Type.Optional(Type.String()),
  pending_order_id: Type.Optional(Type.Integer()),
  mode: Mode,
});

export const OrderErrorBody = Type.Object({
  status: Type.Literal('error'),
  message: Type.Union([Type.String(), Type.Record(Type.String(), Type.Array(Type.String()))]),
  code: Type.Optional(Type.String()),
  /** A rejected sandbox order keeps its id; a split that failed part-way lists the placed ones. */
  orderid: Type.Optional(Type.String()),
  orderids: Type.Optional(Type.Array(Type.String())),
  mode: Mode,
});

/** `/api/v1/analyzer` `{apikey}` and `/api/v1/analyzer/toggle` `{apikey, mode}`. */
export const AnalyzerBody = Type.Object({ apikey: ApiKey });
export const AnalyzerToggleBody = Type.Object({ apikey: ApiKey, mode: Type.Boolean() });
export const AnalyzerResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({
    mode: Type.Union([Type.Literal('analyze'), Type.Literal('live')]),
    analyze_mode: Type.Boolean(),
    total_logs: Type.Optional(Type.Integer()),
    message: Type.Optional(Type.String()),
  }),
});
