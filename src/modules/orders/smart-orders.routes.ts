/**
 * OpenAlgo's `/api/v1/placesmartorder` and `/api/v1/basketorder`
 * (docs/rules/orders.md#smart-and-basket-orders). Both run the placeorder steps: their own rate
 * limit, the schema before the key, the Action Center for a key in semi-automatic mode, then
 * every order they place goes through the same pipeline as placeorder (`pipeline.run`).
 *
 * placesmartorder reads the current net position of (symbol, exchange, product): from the
 * sandbox in analyzer mode, from the broker's position book (the read openposition makes) in
 * live mode; then places the difference to `position_size`, or nothing when it already matches.
 * basketorder places each leg in turn, BUY legs before SELL legs, and reports every leg.
 */
import { performance } from 'node:perf_hooks';
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { ApiKey, NonNegativeQuantity, quantityOf, Strategy } from './book.schema.js';
import type { AnalyzeModeService } from '../sandbox/service/analyze-mode.service.js';
import type { ActionCenterService } from './action-center.service.js';
import type { OrderPipeline } from './order-pipeline.js';
import { orderRouteKit } from './order-route.js';
import { INTERNAL_ERROR, type LiveCallAnswer } from './order-pipeline.types.js';
import type { OrderInput } from './order-rules.js';
import type { Action } from '../../domain/orders.js';
import { PlaceOrderBody, PlaceOrderResponse } from './order.schema.js';
import { toOrderInput } from './orders.routes.js';

/** How many legs of one group (BUY, then SELL) are in flight at once: OpenAlgo's 10 workers. */
export const BASKET_CONCURRENCY = 10;

/** The most legs one basketorder may carry (more is a 400 before anything is placed). */
export const MAX_BASKET_ORDERS = 50;

/** A signed position size: a JSON integer or a digit string with an optional minus. */
const PositionSize = Type.Union([
  Type.Integer({ minimum: -999_999_999, maximum: 999_999_999 }),
  Type.String({ pattern: '^-?[0-9]{1,9}$' }),
]);

/** placesmartorder: placeorder's fields, `quantity` may be 0, plus the target `position_size`. */
export const SmartOrderBody = Type.Object({
  ...PlaceOrderBody.properties,
  quantity: NonNegativeQuantity,
  position_size: PositionSize,
});
export type SmartOrderBody = Static<typeof SmartOrderBody>;

/** One basket leg: a placeorder body without the key; its strategy defaults to the basket's. */
const { apikey: _legKey, ...legFields } = PlaceOrderBody.properties;
export const BasketLeg = Type.Object({ ...legFields, strategy: Type.Optional(Strategy) });
const checkLeg = Compile(BasketLeg);

/**
 * basketorder: the strategy and the legs. The legs are checked one by one (a bad leg is reported
 * in the results and the others are placed), so the body schema only bounds their number.
 */
export const BasketOrderBody = Type.Object({
  apikey: ApiKey,
  strategy: Strategy,
  orders: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
    minItems: 1,
    maxItems: MAX_BASKET_ORDERS,
    description: `Each a placeorder body without \`apikey\`; at most ${MAX_BASKET_ORDERS}`,
  }),
});
export type BasketOrderBody = Static<typeof BasketOrderBody>;

const Mode = Type.Optional(
  Type.Union([Type.Literal('analyze'), Type.Literal('live'), Type.Literal('semi_auto')]),
);
export const BasketOrderResponse = Type.Object({
  status: Type.Literal('success'),
  results: Type.Array(
    Type.Object({
      symbol: Type.String(),
      status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
      orderid: Type.Optional(Type.String()),
      orderids: Type.Optional(Type.Array(Type.String())),
      message: Type.Optional(Type.String()),
      pending_order_id: Type.Optional(Type.Integer()),
    }),
  ),
  mode: Mode,
});
type BasketResult = Static<typeof BasketOrderResponse>['results'][number];

export interface SmartOrderRouteDeps {
  pipeline: OrderPipeline;
  actionCenter: ActionCenterService;
  mode: AnalyzeModeService;
  apiKeyGuard: ApiKeyGuard;
  /** `SMART_ORDER_RATE_LIMIT` (placesmartorder). */
  smartOrderRateLimit: RateLimitHook;
  /** `ORDER_RATE_LIMIT` (basketorder). */
  orderRateLimit: RateLimitHook;
  /** The sandbox's net quantity of (symbol, exchange, product) for the user (analyzer mode). */
  sandboxPosition(userId: number, q: PositionKey): Promise<number>;
  /** Live mode: openposition's read of the broker's position book. */
  live: { openPosition(userId: number, q: PositionKey): Promise<LiveCallAnswer> };
}

interface PositionKey {
  symbol: string;
  exchange: string;
  product: string;
}

/** What placesmartorder does: place `action` × `quantity`, or nothing (with OpenAlgo's message). */
export type SmartStep = { action: Action; quantity: number } | { none: string };

/**
 * OpenAlgo's rules (its placesmartorder table): flat and a target of 0 with a quantity places
 * the order as asked; a target equal to the current position places nothing; a target of 0
 * closes the position; otherwise the difference is bought or sold, so a long position with a
 * short target is sold through zero in one order (a reversal).
 */
export function smartStep(action: Action, quantity: number, target: number, current: number): SmartStep {
  if (target === 0 && current === 0 && quantity !== 0) return { action, quantity };
  if (target === current)
    return {
      none:
        quantity === 0
          ? 'No OpenPosition Found. Not placing Exit order.'
          : 'No action needed. Position size matches current position',
    };
  return target > current
    ? { action: 'BUY', quantity: target - current }
    : { action: 'SELL', quantity: current - target };
}

const QUEUED = 'Order queued for approval in the Action Center';

export function smartOrderRoutes(app: App, deps: SmartOrderRouteDeps): void {
  const { modeTag, route } = orderRouteKit(deps);

  /** The current net position: the sandbox's in analyzer mode, else the broker's position book. */
  const currentPosition = async (userId: number, q: PositionKey): Promise<number | LiveCallAnswer> => {
    if (deps.mode.analyze) return deps.sandboxPosition(userId, q);
    const a = await deps.live.openPosition(userId, q);
    if (a.status !== 200 || a.body.status !== 'success') return a;
    return Number(a.body.quantity);
  };

  app.post(
    '/api/v1/placesmartorder',
    route(
      'Place the order that brings a position to `position_size`',
      deps.smartOrderRateLimit,
      SmartOrderBody,
      PlaceOrderResponse,
    ),
    async (req, reply) => {
      const started = performance.now();
      const principal = req.apiPrincipal!;
      const body = req.body as SmartOrderBody;
      const base = toOrderInput({ ...body, quantity: 1 });
      const current = await currentPosition(principal.userId, base);
      if (typeof current !== 'number') return reply.code(current.status).send(current.body);
      const step = smartStep(base.action, quantityOf(body.quantity), Number(body.position_size), current);
      if ('none' in step) return { status: 'success' as const, message: step.none, ...modeTag() };
      const order: OrderInput = { ...base, action: step.action, quantity: step.quantity };
      if (principal.orderMode === 'semi_auto') {
        try {
          const id = await deps.actionCenter.queue(principal.userId, 'placesmartorder', order);
          return {
            status: 'success' as const,
            message: QUEUED,
            mode: 'semi_auto' as const,
            pending_order_id: id,
          };
        } catch (err) {
          const a = deps.pipeline.failure(
            principal.userId,
            order,
            { apiType: 'placesmartorder' },
            err,
            'order not queued for approval',
          );
          return reply.code(a.status).send(a.body);
        }
      }
      const a = await deps.pipeline.run(principal.userId, order, { apiType: 'placesmartorder', started });
      return reply.code(a.status).send(a.body);
    },
  );

  app.post(
    '/api/v1/basketorder',
    route(
      `Place up to ${MAX_BASKET_ORDERS} orders, BUY legs first`,
      deps.orderRateLimit,
      BasketOrderBody,
      BasketOrderResponse,
    ),
    async (req) => {
      const principal = req.apiPrincipal!;
      const body = req.body as BasketOrderBody;
      const semiAuto = principal.orderMode === 'semi_auto';
      const placeLeg = async (leg: Record<string, unknown>): Promise<BasketResult> => {
        const started = performance.now();
        const symbol = typeof leg.symbol === 'string' ? leg.symbol : 'Unknown';
        const problem = legProblem(leg);
        if (problem) return { symbol, status: 'error', message: problem };
        const order = toOrderInput({
          ...(leg as Omit<PlaceOrderBody, 'apikey' | 'strategy'>),
          apikey: '',
          strategy: typeof leg.strategy === 'string' ? leg.strategy : body.strategy,
        });
        if (semiAuto) {
          try {
            const id = await deps.actionCenter.queue(principal.userId, 'basketorder', order);
            return { symbol, status: 'success', message: QUEUED, pending_order_id: id };
          } catch (err) {
            deps.pipeline.failure(
              principal.userId,
              order,
              { apiType: 'basketorder' },
              err,
              'order not queued for approval',
            );
            return { symbol, status: 'error', message: INTERNAL_ERROR };
          }
        }
        const a = await deps.pipeline.run(principal.userId, order, { apiType: 'basketorder', started });
        return a.body.status === 'success'
          ? {
              symbol,
              status: 'success',
              orderid: a.body.orderid,
              ...(a.body.orderids ? { orderids: a.body.orderids } : {}),
            }
          : { symbol, status: 'error', message: a.body.message };
      };
      // Every BUY leg is answered before the first SELL leg is sent; within a group, up to
      // BASKET_CONCURRENCY legs are in flight at once (docs/rules/orders.md#smart-and-basket-orders).
      const results: BasketResult[] = [];
      for (const group of legGroups(body.orders))
        for (let i = 0; i < group.length; i += BASKET_CONCURRENCY)
          results.push(...(await Promise.all(group.slice(i, i + BASKET_CONCURRENCY).map(placeLeg))));
      return {
        status: 'success' as const,
        results,
        ...(semiAuto ? { mode: 'semi_auto' as const } : modeTag()),
      };
    },
  );
}

/** The legs in placing groups: BUY legs, then SELL legs, then any other (refused), each kept in order. */
function legGroups(legs: readonly Record<string, unknown>[]): Record<string, unknown>[][] {
  const groups: Record<string, unknown>[][] = [[], [], []];
  for (const l of legs) {
    const a = typeof l.action === 'string' ? l.action.toUpperCase() : '';
    groups[a === 'BUY' ? 0 : a === 'SELL' ? 1 : 2]!.push(l);
  }
  return groups.filter((g) => g.length > 0);
}

/** Why a leg cannot be placed (its missing and invalid fields), or undefined when it is valid. */
function legProblem(leg: Record<string, unknown>): string | undefined {
  if (checkLeg.Check(leg)) return undefined;
  const missing = new Set<string>();
  const invalid = new Set<string>();
  for (const e of checkLeg.Errors(leg)) {
    const params = e.params as { requiredProperties?: string[] };
    if (e.keyword === 'required') for (const f of params.requiredProperties ?? []) missing.add(f);
    else if (e.instancePath) invalid.add(e.instancePath.replace(/^\//, '').split('/')[0]!);
  }
  const parts = [
    ...(missing.size ? [`Missing mandatory field(s): ${[...missing].join(', ')}`] : []),
    ...(invalid.size ? [`Invalid field(s): ${[...invalid].join(', ')}`] : []),
  ];
  return parts.length ? parts.join('; ') : 'Invalid order';
}
