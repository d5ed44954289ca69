/**
 * `/api/v1` book and order-management routes (docs/rules/sandbox.md#read-apis), OpenAlgo's names and
 * shapes, API key in the body. In analyzer mode they answer from the sandbox and carry
 * `"mode": "analyze"`; in live mode they go to the connected broker's adapter
 * (docs/rules/orders.md#live-order-management), and without one answer 404 "Broker-specific
 * module not found" (spec "Errors → Order placement"). openposition answers in both modes.
 */
import type { LiveCallAnswer } from './order-pipeline.types.js';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { AppError, badRequest } from '../../platform/errors.js';
import {
  formatFunds,
  formatHoldings,
  formatOrderbook,
  formatOrderStatus,
  formatPositionbook,
  formatTradebook,
} from '../sandbox/core/book-format.js';
import { literalUnion } from '../../platform/http/literal-union.js';
import { PRODUCTS } from '../../domain/orders.js';
import { SEARCH_EXCHANGES } from '../market/search-rules.js';
import {
  ApiKey,
  ApiKeyBody,
  CancelAllOrderResponse,
  ClosePositionResponse,
  FundsResponse,
  HoldingsResponse,
  ModifyOrderBody,
  OrderActionResponse,
  OrderbookResponse,
  OrderIdBody,
  OrderStatusResponse,
  PositionbookResponse,
  Strategy,
  StrategyBody,
  TradebookResponse,
  orderIdString,
  quantityOf,
} from './book.schema.js';
import type { SandboxBooks } from '../sandbox/service/books.js';
import type { SandboxService } from '../sandbox/service/sandbox.service.js';
import type { PriceType, Product, Side } from '../sandbox/core/types.js';

/** Parses a client order id: a positive decimal integer within the id range, else a 400. */
export function parseOrderId(raw: string | number): number {
  const s = String(raw).trim();
  if (!/^\d{1,15}$/.test(s) || Number(s) <= 0)
    throw badRequest('orderid must be a sandbox order id (digits)');
  return Number(s);
}

export interface BookRouteDeps {
  service: SandboxService;
  books: SandboxBooks;
  /** True in analyzer mode. */
  analyze: () => boolean;
  apiKeyGuard: ApiKeyGuard;
  rateLimit: RateLimitHook;
  /** Live mode's order calls through the broker adapter (orders module). */
  live: LiveOrderCalls;
}

/** What the live branch of every route calls (the orders module's live service). */
export interface LiveOrderCalls {
  orderbook(userId: number): Promise<LiveCallAnswer>;
  tradebook(userId: number): Promise<LiveCallAnswer>;
  positionbook(userId: number): Promise<LiveCallAnswer>;
  holdings(userId: number): Promise<LiveCallAnswer>;
  funds(userId: number): Promise<LiveCallAnswer>;
  openPosition(
    userId: number,
    q: { symbol: string; exchange: string; product: string },
  ): Promise<LiveCallAnswer>;
  cancelAll(userId: number): Promise<LiveCallAnswer>;
  closeAll(userId: number, strategy: string | undefined, semiAuto: boolean): Promise<LiveCallAnswer>;
  status(userId: number, orderid: string): Promise<LiveCallAnswer>;
  cancel(userId: number, orderid: string): Promise<LiveCallAnswer>;
  modify(
    userId: number,
    orderid: string,
    m: {
      symbol: string;
      exchange: string;
      action: Side;
      product: Product;
      pricetype: PriceType;
      quantity: number;
      price: string;
      trigger_price: string;
      disclosed_quantity: number;
    },
  ): Promise<LiveCallAnswer>;
}

/** The error body, with OpenAlgo's `"mode": "analyze"` on analyzer-mode errors. */
const ApiErrorBody = Type.Object({ ...ErrorBody.properties, mode: Type.Optional(Type.Literal('analyze')) });
const errors = { '4xx': ApiErrorBody, '5xx': ApiErrorBody };

/** openposition's body (OpenAlgo: `apikey`, `strategy`, `symbol`, `exchange`, `product`). */
const OpenPositionBody = Type.Object({
  apikey: ApiKey,
  strategy: Type.Optional(Strategy),
  symbol: Type.String({ minLength: 1, maxLength: 64 }),
  exchange: literalUnion(SEARCH_EXCHANGES),
  product: literalUnion(PRODUCTS),
});
/** openposition's answer: the net quantity as a string, as OpenAlgo sends it (`"0"` when flat). */
const OpenPositionResponse = Type.Object({
  status: Type.Literal('success'),
  quantity: Type.String(),
  mode: Type.Optional(Type.Literal('analyze')),
});

export function bookRoutes(app: App, deps: BookRouteDeps): void {
  const { service, books } = deps;
  const opts = <B, R>(summary: string, body: B, response: R) => ({
    onRequest: deps.rateLimit,
    preHandler: deps.apiKeyGuard,
    schema: { summary, tags: ['openalgo-api'], body, response: { 200: response, ...errors } },
  });

  /**
   * Runs an analyzer-mode handler; its 4xx errors carry `"mode": "analyze"` as OpenAlgo's do.
   * In live mode: the broker adapter, through the orders module's live calls.
   */
  const analyzer = async (
    reply: FastifyReply,
    fn: () => Promise<object>,
    live: () => Promise<LiveCallAnswer>,
  ): Promise<never> => {
    if (!deps.analyze()) {
      const a = await live();
      return reply.code(a.status).send(a.body) as never;
    }
    let body: object;
    try {
      body = { ...(await fn()), mode: 'analyze' };
    } catch (err) {
      if (err instanceof AppError && err.statusCode < 500)
        return reply
          .code(err.statusCode)
          .send({ status: 'error', message: err.message, code: err.code, mode: 'analyze' }) as never;
      throw err;
    }
    return reply.send(body) as never;
  };
  const user = (req: { apiPrincipal?: { userId: number } }): number => req.apiPrincipal!.userId;
  const semiAuto = (req: { apiPrincipal?: { orderMode: string } }): boolean =>
    req.apiPrincipal!.orderMode === 'semi_auto';

  app.post('/api/v1/orderbook', opts('Order book', ApiKeyBody, OrderbookResponse), (req, reply) =>
    analyzer(
      reply,
      async () => ({
        status: 'success' as const,
        data: formatOrderbook(await books.orders(user(req))),
      }),
      () => deps.live.orderbook(user(req)),
    ),
  );
  app.post('/api/v1/tradebook', opts('Trade book', ApiKeyBody, TradebookResponse), (req, reply) =>
    analyzer(
      reply,
      async () => ({
        status: 'success' as const,
        data: formatTradebook(await books.trades(user(req))),
      }),
      () => deps.live.tradebook(user(req)),
    ),
  );
  app.post('/api/v1/positionbook', opts('Position book', ApiKeyBody, PositionbookResponse), (req, reply) =>
    analyzer(
      reply,
      async () => ({
        status: 'success' as const,
        data: formatPositionbook(await books.positions(user(req))),
      }),
      () => deps.live.positionbook(user(req)),
    ),
  );
  app.post('/api/v1/holdings', opts('Holdings', ApiKeyBody, HoldingsResponse), (req, reply) =>
    analyzer(
      reply,
      async () => ({
        status: 'success' as const,
        data: formatHoldings(await books.holdings(user(req))),
      }),
      () => deps.live.holdings(user(req)),
    ),
  );
  app.post('/api/v1/funds', opts('Funds and margin', ApiKeyBody, FundsResponse), (req, reply) =>
    analyzer(
      reply,
      async () => ({
        status: 'success' as const,
        data: formatFunds(await books.funds(user(req))),
      }),
      () => deps.live.funds(user(req)),
    ),
  );
  app.post(
    '/api/v1/orderstatus',
    opts('The status of an order', OrderIdBody, OrderStatusResponse),
    (req, reply) =>
      analyzer(
        reply,
        async () => {
          const id = parseOrderId(orderIdString(req.body.orderid));
          return { status: 'success' as const, data: formatOrderStatus(await service.order(user(req), id)) };
        },
        () => deps.live.status(user(req), orderIdString(req.body.orderid)),
      ),
  );
  app.post('/api/v1/cancelorder', opts('Cancel an order', OrderIdBody, OrderActionResponse), (req, reply) =>
    analyzer(
      reply,
      async () => {
        const id = parseOrderId(orderIdString(req.body.orderid));
        const o = await service.cancelOrder(user(req), id);
        return { status: 'success' as const, orderid: o.orderId, message: `Order ${o.orderId} cancelled` };
      },
      () => deps.live.cancel(user(req), orderIdString(req.body.orderid)),
    ),
  );
  app.post(
    '/api/v1/cancelallorder',
    opts('Cancel every open order', StrategyBody, CancelAllOrderResponse),
    (req, reply) =>
      analyzer(
        reply,
        async () => {
          const r = await service.cancelAll(user(req));
          return {
            status: 'success' as const,
            message:
              r.cancelled.length + r.failed.length === 0
                ? 'No open orders to cancel'
                : `Canceled ${r.cancelled.length} orders. Failed to cancel ${r.failed.length} orders.`,
            canceled_orders: r.cancelled,
            failed_cancellations: r.failed,
          };
        },
        () => deps.live.cancelAll(user(req)),
      ),
  );
  app.post(
    '/api/v1/modifyorder',
    opts('Modify an open order', ModifyOrderBody, OrderActionResponse),
    (req, reply) =>
      analyzer(
        reply,
        async () => {
          const b = req.body;
          const id = parseOrderId(orderIdString(b.orderid));
          const o = await service.modifyOrder(user(req), id, {
            symbol: b.symbol,
            exchange: b.exchange,
            side: b.action.toUpperCase() as Side,
            product: b.product as Product,
            priceType: b.pricetype,
            quantity: quantityOf(b.quantity),
            price: b.price,
            triggerPrice: b.trigger_price,
          });
          return { status: 'success' as const, orderid: o.orderId, message: `Order ${o.orderId} modified` };
        },
        () => {
          const b = req.body;
          return deps.live.modify(user(req), orderIdString(b.orderid), {
            symbol: b.symbol,
            exchange: b.exchange,
            action: b.action.toUpperCase() as Side,
            product: b.product as Product,
            pricetype: b.pricetype,
            quantity: quantityOf(b.quantity),
            price: String(b.price),
            trigger_price: String(b.trigger_price ?? '0'),
            disclosed_quantity: b.disclosed_quantity === undefined ? 0 : quantityOf(b.disclosed_quantity),
          });
        },
      ),
  );
  app.post(
    '/api/v1/closeposition',
    opts('Close every open position', StrategyBody, ClosePositionResponse),
    (req, reply) =>
      analyzer(
        reply,
        async () => {
          // With a strategy, only its positions (docs/rules/sandbox.md#correct-exits).
          const strategy = req.body.strategy?.trim() || null;
          const results = await service.closePositions(
            user(req),
            {},
            strategy,
            strategy === null ? 'all' : 'strategy',
          );
          const failed = results.filter((r) => !r.ok).length;
          return {
            status: 'success' as const,
            message:
              results.length === 0
                ? 'No open positions to close'
                : `Closing orders placed for ${results.length - failed} positions${failed ? `; ${failed} could not be closed` : ''}`,
            closed_positions: results.length - failed,
            failed_closures: failed,
          };
        },
        () => deps.live.closeAll(user(req), req.body.strategy, semiAuto(req)),
      ),
  );
  app.post(
    '/api/v1/openposition',
    opts('The net quantity of one open position', OpenPositionBody, OpenPositionResponse),
    (req, reply) =>
      analyzer(
        reply,
        async () => {
          const { symbol, exchange, product } = req.body;
          const quantity = formatPositionbook(await books.positions(user(req)))
            .filter((p) => p.symbol === symbol && p.exchange === exchange && p.product === product)
            .reduce((a, p) => a + p.quantity, 0);
          return { status: 'success' as const, quantity: String(quantity) };
        },
        () => deps.live.openPosition(user(req), req.body),
      ),
  );
}
