/**
 * OpenAlgo's `/api/v1/optionsorder` and `/api/v1/optionsmultiorder`
 * (docs/rules/orders.md#options-orders). The option of each order is named as optionsymbol
 * names it (the `offset` strikes from the at-the-money one, for the expiry asked), by the
 * resolver the plugin passes in; the order then runs the placeorder steps: the order rate limit,
 * the schema before the key, the Action Center for a key in semi-automatic mode, then the same
 * pipeline as placeorder (`pipeline.run`), split in chunks of `splitsize` as splitorder does.
 *
 * optionsmultiorder resolves every leg first, then places the BUY legs before the SELL legs (the
 * margin of a hedged position is smaller) and reports each leg; a leg that cannot be resolved or
 * placed is an `error` result and the others are placed.
 */
import { performance } from 'node:perf_hooks';
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import { OPTION_TYPES, type OptionType } from '../../domain/instruments.js';
import { ACTIONS, PRICE_TYPES, PRODUCTS, type Action } from '../../domain/orders.js';
import { AppError } from '../../platform/errors.js';
import { literalUnion } from '../../platform/http/literal-union.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { OptionSymbolBody } from '../market/market-api.schema.js';
import type { OptionSymbolAnswer, OptionSymbolRequest } from '../market/option-symbol.js';
import { ApiKey, NonNegativeQuantity, Quantity, quantityOf, Rupees, Strategy } from './book.schema.js';
import type { AnalyzeModeService } from '../sandbox/service/analyze-mode.service.js';
import type { ActionCenterService } from './action-center.service.js';
import type { OrderPipeline } from './order-pipeline.js';
import { orderRouteKit } from './order-route.js';
import { INTERNAL_ERROR, type PipelineAnswer } from './order-pipeline.types.js';
import { MAX_SPLIT_ORDERS, splitCount, TOO_MANY_SPLITS, type OrderInput } from './order-rules.js';

/** The most legs one optionsmultiorder may carry (more is a 400 before anything is placed). */
export const MAX_OPTION_LEGS = 20;

const { offset: Offset, expiry_date: ExpiryDate } = OptionSymbolBody.properties;
const ActionText = Type.String({ pattern: '^([Bb][Uu][Yy]|[Ss][Ee][Ll][Ll])$' });
/** `splitsize` 0 (or absent) places one order; more splits it in chunks of that size. */
const SplitSize = Type.Optional(NonNegativeQuantity);

/** The order fields of an option order (the symbol and exchange come from the resolution). */
const OrderFields = {
  action: ActionText,
  quantity: Quantity,
  pricetype: Type.Optional(literalUnion(PRICE_TYPES)),
  product: Type.Optional(literalUnion(PRODUCTS)),
  price: Type.Optional(Rupees),
  trigger_price: Type.Optional(Rupees),
  disclosed_quantity: Type.Optional(NonNegativeQuantity),
  splitsize: SplitSize,
};

/** optionsymbol's fields (the same checks) with the order's. */
const { apikey: _key, strike_int: _strikeInt, ...optionFields } = OptionSymbolBody.properties;
export const OptionsOrderBody = Type.Object({
  apikey: ApiKey,
  strategy: Strategy,
  ...optionFields,
  ...OrderFields,
});
export type OptionsOrderBody = Static<typeof OptionsOrderBody>;

/** One leg: its offset, option type and order; its expiry defaults to the request's. */
export const OptionLeg = Type.Object({
  offset: Offset,
  option_type: literalUnion(OPTION_TYPES),
  expiry_date: Type.Optional(ExpiryDate),
  ...OrderFields,
});
type OptionLeg = Static<typeof OptionLeg>;
const checkLeg = Compile(OptionLeg);

/**
 * optionsmultiorder: the shared underlying, exchange and (default) expiry, and the legs. The legs
 * are checked one by one (a bad leg is reported in the results), so the body only bounds them.
 */
export const OptionsMultiOrderBody = Type.Object({
  apikey: ApiKey,
  strategy: Strategy,
  underlying: OptionsOrderBody.properties.underlying,
  exchange: OptionsOrderBody.properties.exchange,
  expiry_date: Type.Optional(ExpiryDate),
  legs: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
    minItems: 1,
    maxItems: MAX_OPTION_LEGS,
    description: `Each {offset, option_type, action, quantity, expiry_date?, splitsize?, …}; at most ${MAX_OPTION_LEGS}`,
  }),
});
export type OptionsMultiOrderBody = Static<typeof OptionsMultiOrderBody>;

const Mode = Type.Optional(
  Type.Union([Type.Literal('analyze'), Type.Literal('live'), Type.Literal('semi_auto')]),
);

export const OptionsOrderResponse = Type.Object({
  status: Type.Literal('success'),
  orderid: Type.Optional(Type.String()),
  /** Set when the order was split (`splitsize` or the freeze quantity): every child order's id. */
  orderids: Type.Optional(Type.Array(Type.String())),
  symbol: Type.String(),
  exchange: Type.String(),
  underlying: Type.String(),
  underlying_ltp: Type.Number(),
  offset: Type.String(),
  option_type: Type.String(),
  message: Type.Optional(Type.String()),
  pending_order_id: Type.Optional(Type.Integer()),
  mode: Mode,
});

const LegResult = Type.Object({
  leg: Type.Integer(),
  symbol: Type.Optional(Type.String()),
  exchange: Type.Optional(Type.String()),
  offset: Type.String(),
  option_type: Type.String(),
  action: Type.String(),
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  orderid: Type.Optional(Type.String()),
  orderids: Type.Optional(Type.Array(Type.String())),
  message: Type.Optional(Type.String()),
  pending_order_id: Type.Optional(Type.Integer()),
});
type LegResult = Static<typeof LegResult>;

export const OptionsMultiOrderResponse = Type.Object({
  status: Type.Literal('success'),
  underlying: Type.String(),
  underlying_ltp: Type.Optional(Type.Number()),
  results: Type.Array(LegResult),
  mode: Mode,
});

export interface OptionsOrderRouteDeps {
  pipeline: OrderPipeline;
  actionCenter: ActionCenterService;
  mode: AnalyzeModeService;
  apiKeyGuard: ApiKeyGuard;
  orderRateLimit: RateLimitHook;
  /** optionsymbol's resolution (its errors are AppErrors: 400 bad input, 404 nothing found). */
  resolveOption(req: OptionSymbolRequest): Promise<OptionSymbolAnswer>;
}

const QUEUED = 'Order queued for approval in the Action Center';

/** The order of a resolved option: placeorder's normalisation and defaults. */
function optionOrder(strategy: string, option: OptionSymbolAnswer, f: Static<typeof OptionLeg>): OrderInput {
  const str = (v: number | string | undefined) => (v === undefined ? '0' : String(v));
  return {
    strategy,
    symbol: option.symbol,
    exchange: option.exchange,
    action: f.action.toUpperCase() as Action,
    quantity: quantityOf(f.quantity),
    pricetype: f.pricetype ?? 'MARKET',
    product: f.product ?? 'MIS',
    price: str(f.price),
    trigger_price: str(f.trigger_price),
    disclosed_quantity: str(f.disclosed_quantity),
  };
}

export function optionsOrderRoutes(app: App, deps: OptionsOrderRouteDeps): void {
  const { modeTag, route: orderRoute } = orderRouteKit(deps);
  const route = (summary: string, body: unknown, ok: unknown) =>
    orderRoute(summary, deps.orderRateLimit, body, ok);

  /**
   * Places (or queues) one resolved option order: its pending id, or the pipeline's answer.
   * `splitsize` splits it as splitorder does; too many chunks is refused before anything is sent.
   */
  const place = async (
    userId: number,
    semiAuto: boolean,
    apiType: string,
    order: OrderInput,
    splitsize: number,
  ): Promise<{ pending: number } | PipelineAnswer> => {
    const started = performance.now();
    if (splitsize > 0 && splitCount(order.quantity, splitsize, 1) > MAX_SPLIT_ORDERS)
      return { status: 400, body: { status: 'error', message: TOO_MANY_SPLITS } };
    if (semiAuto) {
      try {
        const id = await deps.actionCenter.queue(userId, apiType, {
          ...order,
          ...(splitsize > 0 ? { splitsize } : {}),
        });
        return { pending: id };
      } catch (err) {
        return deps.pipeline.failure(userId, order, { apiType }, err, 'order not queued for approval');
      }
    }
    return deps.pipeline.run(userId, order, {
      apiType,
      started,
      ...(splitsize > 0 ? { chunk: splitsize } : {}),
    });
  };

  app.post(
    '/api/v1/optionsorder',
    route(
      'Place an option order named by its offset from the at-the-money strike',
      OptionsOrderBody,
      OptionsOrderResponse,
    ),
    async (req, reply) => {
      const principal = req.apiPrincipal!;
      const body = req.body as OptionsOrderBody;
      const option = await deps.resolveOption({
        underlying: body.underlying,
        exchange: body.exchange,
        expiry_date: body.expiry_date,
        offset: body.offset,
        option_type: body.option_type,
      });
      const order = optionOrder(body.strategy, option, body);
      const semiAuto = principal.orderMode === 'semi_auto';
      const splitsize = body.splitsize === undefined ? 0 : quantityOf(body.splitsize);
      const a = await place(principal.userId, semiAuto, 'optionsorder', order, splitsize);
      const named = {
        symbol: option.symbol,
        exchange: option.exchange,
        underlying: body.underlying,
        underlying_ltp: option.underlying_ltp,
        offset: body.offset.toUpperCase(),
        option_type: body.option_type,
      };
      if ('pending' in a)
        return {
          status: 'success' as const,
          ...named,
          message: QUEUED,
          mode: 'semi_auto' as const,
          pending_order_id: a.pending,
        };
      if (a.body.status !== 'success') return reply.code(a.status).send({ ...a.body, ...modeTag() });
      return {
        status: 'success' as const,
        orderid: a.body.orderid,
        ...(a.body.orderids ? { orderids: a.body.orderids } : {}),
        ...named,
        ...modeTag(),
      };
    },
  );

  app.post(
    '/api/v1/optionsmultiorder',
    route(
      `Place up to ${MAX_OPTION_LEGS} option legs on one underlying, BUY legs first`,
      OptionsMultiOrderBody,
      OptionsMultiOrderResponse,
    ),
    async (req, reply) => {
      const principal = req.apiPrincipal!;
      const body = req.body as OptionsMultiOrderBody;
      const semiAuto = principal.orderMode === 'semi_auto';
      const results: LegResult[] = [];
      const resolved: { n: number; leg: OptionLeg; option: OptionSymbolAnswer; rank: number }[] = [];
      let underlyingLtp: number | undefined;
      let firstFailure: AppError | undefined;
      // Every leg is resolved before any is placed.
      for (const [i, raw] of body.legs.entries()) {
        const echo = {
          leg: i + 1,
          offset: typeof raw.offset === 'string' ? raw.offset.toUpperCase() : '',
          option_type: typeof raw.option_type === 'string' ? raw.option_type : '',
          action: typeof raw.action === 'string' ? raw.action.toUpperCase() : '',
        };
        const problem = legProblem(raw);
        const expiry = (raw.expiry_date as string | undefined) ?? body.expiry_date;
        if (problem || expiry === undefined) {
          results.push({
            ...echo,
            status: 'error',
            message: problem ?? 'Missing mandatory field(s): expiry_date',
          });
          continue;
        }
        const leg = raw as OptionLeg;
        try {
          const option = await deps.resolveOption({
            underlying: body.underlying,
            exchange: body.exchange,
            expiry_date: expiry,
            offset: leg.offset,
            option_type: leg.option_type as OptionType,
          });
          underlyingLtp ??= option.underlying_ltp;
          const rank = ACTIONS.indexOf(echo.action as Action);
          resolved.push({ n: i + 1, leg, option, rank });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          firstFailure ??= err;
          results.push({ ...echo, status: 'error', message: err.message });
        }
      }
      // Nothing resolved because of the request itself (no price, no such expiry): its error.
      if (resolved.length === 0 && firstFailure)
        return reply
          .code(firstFailure.statusCode)
          .send({ status: 'error' as const, message: firstFailure.message, ...modeTag() });
      resolved.sort((x, y) => x.rank - y.rank || x.n - y.n);
      for (const { n, leg, option } of resolved) {
        const order = optionOrder(body.strategy, option, leg);
        const echo = {
          leg: n,
          symbol: option.symbol,
          exchange: option.exchange,
          offset: leg.offset.toUpperCase(),
          option_type: leg.option_type,
          action: order.action,
        };
        const splitsize = leg.splitsize === undefined ? 0 : quantityOf(leg.splitsize);
        const a = await place(principal.userId, semiAuto, 'optionsmultiorder', order, splitsize);
        if ('pending' in a)
          results.push({ ...echo, status: 'success', message: QUEUED, pending_order_id: a.pending });
        else if (a.body.status === 'success')
          results.push({
            ...echo,
            status: 'success',
            orderid: a.body.orderid,
            ...(a.body.orderids ? { orderids: a.body.orderids } : {}),
          });
        else
          results.push({
            ...echo,
            status: 'error',
            message: typeof a.body.message === 'string' ? a.body.message : INTERNAL_ERROR,
          });
      }
      results.sort((x, y) => placingRank(x) - placingRank(y) || x.leg - y.leg);
      return {
        status: 'success' as const,
        underlying: body.underlying,
        ...(underlyingLtp !== undefined ? { underlying_ltp: underlyingLtp } : {}),
        results,
        ...(semiAuto ? { mode: 'semi_auto' as const } : modeTag()),
      };
    },
  );
}

/** Results in placing order: BUY legs, then SELL legs, then legs refused before placing. */
function placingRank(r: LegResult): number {
  const i = ACTIONS.indexOf(r.action as Action);
  return r.symbol === undefined || i < 0 ? ACTIONS.length : i;
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
  return parts.length ? parts.join('; ') : 'Invalid leg';
}
