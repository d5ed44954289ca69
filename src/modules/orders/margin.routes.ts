/**
 * OpenAlgo's `/api/v1/margin` (docs/rules/orders.md#margin-calculator): the margin a basket of
 * up to {@link MAX_MARGIN_POSITIONS} positions needs, nothing placed. Live mode asks the broker's
 * calculator (Kite's basket margins, Upstox's margin details); analyzer mode prices the basket
 * under the sandbox's margin rule against the sandbox account. `API_RATE_LIMIT` applies, as in
 * OpenAlgo.
 */
import { Type, type Static } from 'typebox';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { literalUnion } from '../../platform/http/literal-union.js';
import { PRICE_TYPES, PRODUCTS, type Action } from '../../domain/orders.js';
import { ApiKey, Quantity, quantityOf, Rupees } from './book.schema.js';
import { moneyToRupees } from '../../domain/money.js';
import type { MarginLeg, SandboxBasketMargin } from '../sandbox/service/basket-margin.js';
import type { AnalyzeModeService } from '../sandbox/service/analyze-mode.service.js';
import { marginData, type LiveMarginLeg } from './live-margin.js';
import type { LiveCallAnswer } from './order-pipeline.types.js';
import { orderRouteKit } from './order-route.js';
import { PlaceOrderBody } from './order.schema.js';

/** OpenAlgo's limit on positions per margin request. */
export const MAX_MARGIN_POSITIONS = 50;

const { symbol, exchange, action } = PlaceOrderBody.properties;

/** One position: placeorder's instrument and order fields; `product` and `pricetype` required. */
export const MarginPosition = Type.Object({
  symbol,
  exchange,
  action,
  quantity: Quantity,
  product: literalUnion(PRODUCTS),
  pricetype: literalUnion(PRICE_TYPES),
  price: Type.Optional(Rupees),
  trigger_price: Type.Optional(Rupees),
});

export const MarginBody = Type.Object({
  apikey: ApiKey,
  positions: Type.Array(MarginPosition, { minItems: 1, maxItems: MAX_MARGIN_POSITIONS }),
});
export type MarginBody = Static<typeof MarginBody>;

export const MarginResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({
    total_margin_required: Type.Number({ description: 'Rupees, with the basket’s hedge benefit' }),
    span_margin: Type.Number(),
    exposure_margin: Type.Number(),
    initial_total_margin: Type.Number({ description: 'Rupees, before the hedge benefit' }),
    /** Analyzer mode: how each position's margin was reckoned (docs/rules/sandbox.md#margins-like-a-broker). */
    method: Type.Optional(Type.String()),
  }),
  mode: Type.Optional(Type.Literal('analyze')),
});

export interface MarginRouteDeps {
  mode: AnalyzeModeService;
  apiKeyGuard: ApiKeyGuard;
  /** `API_RATE_LIMIT`. */
  apiRateLimit: RateLimitHook;
  sandbox: { basketMargin(userId: number, legs: readonly MarginLeg[]): Promise<SandboxBasketMargin> };
  live: { margin(userId: number, legs: readonly LiveMarginLeg[]): Promise<LiveCallAnswer> };
}

/** A position as the live and sandbox calculators take it. */
function toLeg(p: MarginBody['positions'][number]): LiveMarginLeg {
  return {
    symbol: p.symbol,
    exchange: p.exchange,
    action: p.action.toUpperCase() as Action,
    quantity: quantityOf(p.quantity),
    product: p.product,
    pricetype: p.pricetype,
    price: p.price === undefined ? '0' : String(p.price),
    trigger_price: p.trigger_price === undefined ? '0' : String(p.trigger_price),
  };
}

export function marginRoutes(app: App, deps: MarginRouteDeps): void {
  const { route } = orderRouteKit(deps);
  app.post(
    '/api/v1/margin',
    route('Margin required for a basket of positions', deps.apiRateLimit, MarginBody, MarginResponse),
    async (req, reply) => {
      const userId = req.apiPrincipal!.userId;
      const legs = (req.body as MarginBody).positions.map(toLeg);
      if (!deps.mode.analyze) {
        const a = await deps.live.margin(userId, legs);
        return reply.code(a.status).send(a.body);
      }
      const m = await deps.sandbox.basketMargin(
        userId,
        legs.map((l) => ({
          symbol: l.symbol,
          exchange: l.exchange,
          side: l.action,
          priceType: l.pricetype,
          product: l.product,
          quantity: l.quantity,
          price: l.price,
          triggerPrice: l.trigger_price,
        })),
      );
      // Futures and short options as SPAN + exposure (the broker's calculator or the sandbox's
      // approximation); the rest by the leverage rule, in neither part.
      const data = {
        ...marginData({
          total: moneyToRupees(m.total),
          span: moneyToRupees(m.span),
          exposure: moneyToRupees(m.exposure),
          initialTotal: moneyToRupees(m.initialTotal),
        }),
        method: m.methods.join('; '),
      };
      return { status: 'success' as const, data, mode: 'analyze' as const };
    },
  );
}
