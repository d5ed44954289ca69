/**
 * The Action Center's answers (docs/rules/orders.md#action-center), as the session routes send
 * them (orders-session.routes.ts): a queued order (action-center.service.ts `toView`), an
 * approval with the placement's answer, every approval of approve-all, and the plain
 * acknowledgements of reject and delete. Declared so the console's types are generated from them
 * (docs/rules/web.md#typed-api).
 */
import { Type, type Static } from 'typebox';

/** A placement's answer body (order-pipeline.types.ts `PlacedBody` or `RefusedBody`). */
const PlacementFields = {
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  /** The order's id (success), or the sandbox's id of an order it recorded as rejected. */
  orderid: Type.Optional(Type.String()),
  /** Every child order's id when the order was split. */
  orderids: Type.Optional(Type.Array(Type.String())),
  /** Why the order was refused (never on success). */
  message: Type.Optional(Type.String()),
  mode: Type.Optional(Type.Union([Type.Literal('analyze'), Type.Literal('live')])),
};
export const PlacementBody = Type.Object(PlacementFields);

/** The order as the key sent it, validated and without the API key (order-rules.ts `OrderInput`). */
export const QueuedOrder = Type.Object({
  strategy: Type.String(),
  symbol: Type.String(),
  exchange: Type.String(),
  action: Type.String(),
  quantity: Type.Integer(),
  pricetype: Type.String(),
  product: Type.String(),
  /** Rupees as the order carries them (`"800.5"`). */
  price: Type.String(),
  trigger_price: Type.String(),
  disclosed_quantity: Type.String(),
  /** splitorder's largest child order. */
  splitsize: Type.Optional(Type.Integer()),
});

/** A queued order and, once decided, the decision (action-center.service.ts `PendingOrderView`). */
export const PendingOrder = Type.Object({
  id: Type.Integer(),
  /** The API call that queued it (`placeorder`, `splitorder`, …). */
  api_type: Type.String(),
  order: QueuedOrder,
  status: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]),
  /** The rejection's reason. */
  reason: Type.Union([Type.String(), Type.Null()]),
  /** The placed order's id (approved and placed). */
  orderid: Type.Union([Type.String(), Type.Null()]),
  /** The placement's answer with its HTTP status (approved orders), null before it. */
  response: Type.Union([Type.Object({ http_status: Type.Integer(), ...PlacementFields }), Type.Null()]),
  created_at: Type.String(),
  decided_at: Type.Union([Type.String(), Type.Null()]),
});
export type PendingOrder = Static<typeof PendingOrder>;

/** `GET /action-center/api/orders`: the user's queue, newest first. */
export const PendingOrdersResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(PendingOrder),
});

/** `POST /action-center/api/orders/:id/approve`: the placement's status and answer. */
export const ApproveResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  http_status: Type.Integer(),
  result: PlacementBody,
});

/** `POST /action-center/api/orders/approve-all`: one result per pending order, oldest first. */
export const ApproveAllResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  results: Type.Array(
    Type.Object({
      id: Type.Integer(),
      /** The placement's HTTP status (a refusal's own status when the approval itself failed). */
      status: Type.Integer(),
      body: PlacementBody,
      /** The child orders' quantities when the order was split. */
      quantities: Type.Optional(Type.Array(Type.Integer())),
    }),
  ),
});

/** Reject and delete: the sentence that says it was done. */
export const DecisionResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
});
