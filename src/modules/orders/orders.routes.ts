/**
 * `/api/v1/placeorder`, `/api/v1/splitorder` and OpenAlgo's `/api/v1/analyzer`,
 * `/api/v1/analyzer/toggle` (docs/rules/orders.md#analyzer-mode-switch). Steps 1-2 of
 * docs/rules/orders.md#placement-steps happen here: the order rate limit, the schema (a failure
 * is 400 with the messages keyed by field, before the key is even looked at), then the Action
 * Center for a key in semi-automatic mode; the pipeline does the rest.
 */
import { performance } from 'node:perf_hooks';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { forbidden } from '../../platform/errors.js';
import { quantityOf } from './book.schema.js';
import type { AnalyzeModeService } from '../sandbox/service/analyze-mode.service.js';
import type { ActionCenterService } from './action-center.service.js';
import type { OrderPipeline } from './order-pipeline.js';
import { ORDER_ERRORS, orderRouteKit } from './order-route.js';
import { MAX_SPLIT_ORDERS, splitCount, TOO_MANY_SPLITS, type OrderInput } from './order-rules.js';
import {
  AnalyzerBody,
  AnalyzerResponse,
  AnalyzerToggleBody,
  PlaceOrderBody,
  PlaceOrderResponse,
  SplitOrderBody,
  SplitOrderResponse,
} from './order.schema.js';

export interface OrderRouteDeps {
  pipeline: OrderPipeline;
  actionCenter: ActionCenterService;
  mode: AnalyzeModeService;
  apiKeyGuard: ApiKeyGuard;
  orderRateLimit: RateLimitHook;
  apiRateLimit: RateLimitHook;
  /** How many analyzer-mode order log rows the user has (OpenAlgo's `total_logs`). */
  analyzerLogCount?: (userId: number) => Promise<number>;
}

/** The normalised order of a validated body (action upper-cased, defaults applied). */
export function toOrderInput(b: PlaceOrderBody): OrderInput {
  const str = (v: number | string | undefined) => (v === undefined ? '0' : String(v));
  return {
    strategy: b.strategy,
    symbol: b.symbol,
    exchange: b.exchange,
    action: b.action.toUpperCase() as OrderInput['action'],
    quantity: quantityOf(b.quantity),
    pricetype: b.pricetype ?? 'MARKET',
    product: b.product ?? 'MIS',
    price: str(b.price),
    trigger_price: str(b.trigger_price),
    disclosed_quantity: str(b.disclosed_quantity),
    ...(b.amo === true ? { amo: true } : {}),
  };
}

export function orderRoutes(app: App, deps: OrderRouteDeps): void {
  const { modeTag, route: orderRoute } = orderRouteKit(deps);
  const route = (summary: string, body: unknown, ok: unknown) =>
    orderRoute(summary, deps.orderRateLimit, body, ok);

  /** Queues an order for approval; its pending id, or the order.failed answer when that fails. */
  const queued = async (userId: number, apiType: string, order: OrderInput, splitsize?: number) => {
    try {
      return await deps.actionCenter.queue(userId, apiType, {
        ...order,
        ...(splitsize ? { splitsize } : {}),
      });
    } catch (err) {
      return deps.pipeline.failure(userId, order, { apiType }, err, 'order not queued for approval');
    }
  };

  app.post(
    '/api/v1/placeorder',
    route('Place an order', PlaceOrderBody, PlaceOrderResponse),
    async (req, reply) => {
      const started = performance.now();
      const principal = req.apiPrincipal!;
      const order = toOrderInput(req.body as PlaceOrderBody);
      if (principal.orderMode === 'semi_auto') {
        const id = await queued(principal.userId, 'placeorder', order);
        if (typeof id !== 'number') return reply.code(id.status).send(id.body);
        return {
          status: 'success' as const,
          message: 'Order queued for approval in the Action Center',
          mode: 'semi_auto' as const,
          pending_order_id: id,
        };
      }
      const a = await deps.pipeline.run(principal.userId, order, { apiType: 'placeorder', started });
      return reply.code(a.status).send(a.body);
    },
  );

  app.post(
    '/api/v1/splitorder',
    route('Place an order in chunks of `splitsize`', SplitOrderBody, SplitOrderResponse),
    async (req, reply) => {
      const started = performance.now();
      const principal = req.apiPrincipal!;
      const body = req.body as SplitOrderBody;
      const order = toOrderInput(body);
      const splitsize = quantityOf(body.splitsize);
      // Refused before it is queued or placed; the pipeline checks again with the lot size.
      if (splitCount(order.quantity, splitsize, 1) > MAX_SPLIT_ORDERS)
        return reply.code(400).send({ status: 'error' as const, message: TOO_MANY_SPLITS, ...modeTag() });
      if (principal.orderMode === 'semi_auto') {
        const id = await queued(principal.userId, 'splitorder', order, splitsize);
        if (typeof id !== 'number') return reply.code(id.status).send(id.body);
        return {
          status: 'success' as const,
          split_size: splitsize,
          total_quantity: order.quantity,
          results: [],
          message: 'Order queued for approval in the Action Center',
          mode: 'semi_auto' as const,
          pending_order_id: id,
        };
      }
      const a = await deps.pipeline.run(principal.userId, order, {
        apiType: 'splitorder',
        chunk: splitsize,
        started,
      });
      if (a.body.status !== 'success') return reply.code(a.status).send(a.body);
      const ids = a.body.orderids ?? [a.body.orderid];
      const sizes = a.quantities ?? [order.quantity];
      return {
        status: 'success' as const,
        split_size: splitsize,
        total_quantity: order.quantity,
        results: ids.map((orderid, i) => ({
          order_num: i + 1,
          orderid,
          quantity: sizes[i]!,
          status: 'success' as const,
        })),
        ...modeTag(),
      };
    },
  );

  const analyzerView = async (userId: number) => ({
    status: 'success' as const,
    data: {
      mode: deps.mode.analyze ? ('analyze' as const) : ('live' as const),
      analyze_mode: deps.mode.analyze,
      ...(deps.analyzerLogCount ? { total_logs: await deps.analyzerLogCount(userId) } : {}),
    },
  });
  app.post(
    '/api/v1/analyzer',
    {
      onRequest: deps.apiRateLimit,
      preHandler: deps.apiKeyGuard,
      schema: {
        summary: 'The trading mode (live or analyze)',
        tags: ['openalgo-api'],
        body: AnalyzerBody,
        response: { 200: AnalyzerResponse, ...ORDER_ERRORS },
      },
    },
    (req) => analyzerView(req.apiPrincipal!.userId),
  );
  app.post(
    '/api/v1/analyzer/toggle',
    {
      onRequest: deps.apiRateLimit,
      preHandler: deps.apiKeyGuard,
      schema: {
        summary: "Switch between live and analyze mode (the administrator's key)",
        tags: ['openalgo-api'],
        body: AnalyzerToggleBody,
        response: { 200: AnalyzerResponse, ...ORDER_ERRORS },
      },
    },
    async (req) => {
      const principal = req.apiPrincipal!;
      if (principal.orderMode === 'semi_auto')
        throw forbidden('A key in semi-automatic mode cannot switch the trading mode');
      // The mode is the whole service's (every user's orders), as POST /settings/analyze-mode is
      // the administrator's: another user's key may read it, not switch it.
      if (!principal.isAdmin)
        throw forbidden('Only the administrator can switch the service between live and analyzer mode');
      await deps.mode.set(req.body.mode);
      const v = await analyzerView(principal.userId);
      return {
        ...v,
        data: { ...v.data, message: `Analyzer mode ${req.body.mode ? 'enabled' : 'disabled'}` },
      };
    },
  );
}
