/**
 * OpenAlgo's GTT bodies (docs/rules/orders.md#gtt-orders): `placegttorder`, `modifygttorder`,
 * `cancelgttorder`, `gttorderbook`, and the cross-field rules that turn a body into one
 * {@link GttRequest}: `trigger_type` SINGLE (exactly one of `triggerprice_sl` / `triggerprice_tg`,
 * the leg's limit in `price`) or OCO (both triggers, stoploss below target, the legs' limits in
 * `stoploss` and `target`); products CNC and NRML only (a GTT outlives the day); a LIMIT leg needs
 * its price. Numbers may come as JSON numbers or numeric strings, as on every order route.
 */
import { Type, type Static } from 'typebox';
import { badRequest } from '../../platform/errors.js';
import { ApiKey, Quantity, quantityOf, Rupees, Strategy } from './book.schema.js';
import { PlaceOrderBody } from './order.schema.js';
import type { Action } from '../../domain/orders.js';
import type { GttRequest } from '../sandbox/service/gtt.js';

const { symbol, exchange, action } = PlaceOrderBody.properties;
const OptionalRupees = Type.Optional(Type.Union([Rupees, Type.Null(), Type.Literal('')]));

const GttFields = {
  apikey: ApiKey,
  strategy: Type.Optional(Strategy),
  trigger_type: Type.String({ pattern: '^([Ss][Ii][Nn][Gg][Ll][Ee]|[Oo][Cc][Oo])$' }),
  symbol,
  exchange,
  action,
  product: Type.String({ maxLength: 8 }),
  quantity: Quantity,
  pricetype: Type.Optional(Type.String({ pattern: '^(LIMIT|MARKET)$' })),
  price: OptionalRupees,
  triggerprice_sl: OptionalRupees,
  triggerprice_tg: OptionalRupees,
  stoploss: OptionalRupees,
  target: OptionalRupees,
};

export const PlaceGttBody = Type.Object(GttFields);
export type PlaceGttBody = Static<typeof PlaceGttBody>;

/** A trigger id: the sandbox's number, Kite's number or Upstox's `GTT-…`, as a string or a number. */
const TriggerId = Type.Union([
  Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9-]+$' }),
  Type.Integer({ minimum: 1 }),
]);

export const ModifyGttBody = Type.Object({ ...GttFields, trigger_id: TriggerId });
export type ModifyGttBody = Static<typeof ModifyGttBody>;

export const CancelGttBody = Type.Object({
  apikey: ApiKey,
  strategy: Type.Optional(Strategy),
  trigger_id: TriggerId,
});
export type CancelGttBody = Static<typeof CancelGttBody>;

export const GttTriggerAnswer = Type.Object({
  status: Type.Literal('success'),
  /** Always a string (Kite's number too), as OpenAlgo answers it. */
  trigger_id: Type.String(),
  mode: Type.Optional(Type.Literal('analyze')),
});

const GttLegRow = Type.Object({
  action: Type.String(),
  quantity: Type.Integer(),
  price: Type.Number(),
  pricetype: Type.String(),
  product: Type.String(),
});

/** One row of `gttorderbook`, in OpenAlgo's shape (`trigger_type` in Kite's words). */
export const GttRowSchema = Type.Object({
  trigger_id: Type.String(),
  trigger_type: Type.Union([Type.Literal('single'), Type.Literal('two-leg')]),
  status: Type.String(),
  symbol: Type.String(),
  exchange: Type.String(),
  /** Ascending: an OCO's stoploss trigger first. */
  trigger_prices: Type.Array(Type.Number()),
  last_price: Type.Number(),
  /** In the order of `trigger_prices`. */
  legs: Type.Array(GttLegRow),
  /** IST `YYYY-MM-DD HH:MM:SS`, or ''. */
  created_at: Type.String(),
  updated_at: Type.String(),
  expires_at: Type.String(),
  /** Analyzer mode: the GTT's strategy and the margin it reserves (rupees). */
  strategy: Type.Optional(Type.String()),
  margin_blocked: Type.Optional(Type.Number()),
});
export type GttRowJson = Static<typeof GttRowSchema>;

export const GttBookAnswer = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(GttRowSchema),
  mode: Type.Optional(Type.Literal('analyze')),
});

const number = (v: number | string | null | undefined): number => {
  if (v === null || v === undefined || v === '') return 0;
  return typeof v === 'number' ? v : Number(v);
};

/** The body as one {@link GttRequest}, or a 400 naming the field (nothing is written). */
export function gttRequest(b: PlaceGttBody): GttRequest {
  const type = b.trigger_type.toUpperCase() === 'OCO' ? 'oco' : 'single';
  if (b.product !== 'CNC' && b.product !== 'NRML')
    throw badRequest(
      'product: GTT supports only CNC (delivery) or NRML (overnight F&O); MIS is intraday-only',
    );
  const priceType = b.pricetype === 'MARKET' ? 'MARKET' : 'LIMIT';
  const sl = number(b.triggerprice_sl);
  const tg = number(b.triggerprice_tg);
  const base = {
    strategy: b.strategy ?? null,
    symbol: b.symbol,
    exchange: b.exchange,
    side: b.action.toUpperCase() as Action,
    product: b.product,
    quantity: quantityOf(b.quantity),
    priceType,
  } as const;
  if (type === 'single') {
    if (sl > 0 === tg > 0)
      throw badRequest(
        'triggerprice_sl: a SINGLE GTT takes exactly one of triggerprice_sl (fires at or below) or triggerprice_tg (fires at or above); set the other to 0',
      );
    const price = number(b.price);
    if (priceType === 'LIMIT' && !(price > 0)) throw badRequest('price: a LIMIT GTT needs its limit price');
    const leg = { trigger: sl > 0 ? sl : tg, price };
    return { ...base, type, ...(sl > 0 ? { sl: leg } : { tg: leg }) };
  }
  if (!(sl > 0)) throw badRequest('triggerprice_sl: an OCO GTT needs its stoploss trigger');
  if (!(tg > 0)) throw badRequest('triggerprice_tg: an OCO GTT needs its target trigger');
  if (sl >= tg) throw badRequest('triggerprice_sl: the stoploss trigger must be below the target trigger');
  const stoploss = number(b.stoploss);
  const target = number(b.target);
  if (priceType === 'LIMIT' && !(stoploss > 0))
    throw badRequest('stoploss: an OCO GTT needs the stoploss leg’s limit price');
  if (priceType === 'LIMIT' && !(target > 0))
    throw badRequest('target: an OCO GTT needs the target leg’s limit price');
  return { ...base, type, sl: { trigger: sl, price: stoploss }, tg: { trigger: tg, price: target } };
}
