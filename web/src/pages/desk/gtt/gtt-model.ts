/**
 * The GTT page's reading of a GTT (docs/rules/web.md#gtt-page, docs/rules/orders.md#gtt-orders):
 * which trigger of a row is the stoploss (fires when the price falls to it) and which the target
 * (fires when it rises to it), the form's fields as the placegttorder body names them, the body a
 * form sends, and which of the server's messages go under which field.
 */
import type { OrderExchange } from '../../../../../src/domain/exchanges';
import type { Action } from '../../../../../src/domain/orders';
import { ApiError, fieldError } from '../../../api/client';
import { num, productsFor } from '../../../components/ticket/ticket-fields';
import type { Gtt, PlaceGttBody } from '../../../features/gtt/api/gtt';
import { formatPrice } from '../../../format-number';
import { istDateTime, istDay } from '../../../ist-time';

export type GttType = 'SINGLE' | 'OCO';
/** A leg: the stoploss (`sl`, at or below the price) or the target (`tg`, at or above it). */
export type GttLeg = 'sl' | 'tg';
export type GttPriceType = 'LIMIT' | 'MARKET';
export type GttProduct = 'CNC' | 'NRML';

/** One leg of a listed GTT: its trigger and the limit of the order it places (0 for MARKET). */
export interface LegView {
  leg: GttLeg;
  trigger: number;
  price: number;
  pricetype: string;
}

/**
 * A row's legs, stoploss first. An OCO (`two-leg`) lists its triggers ascending, the stoploss
 * first; a single trigger is the stoploss when it is below the price it was set against.
 */
export function legsOf(g: Gtt): LegView[] {
  const leg = (i: number, name: GttLeg): LegView => ({
    leg: name,
    trigger: g.trigger_prices[i] ?? 0,
    price: g.legs[i]?.price ?? 0,
    pricetype: g.legs[i]?.pricetype ?? 'LIMIT',
  });
  if (g.trigger_type === 'two-leg') return [leg(0, 'sl'), leg(1, 'tg')];
  const t = g.trigger_prices[0] ?? 0;
  return [leg(0, g.last_price > 0 && t < g.last_price ? 'sl' : 'tg')];
}

const LEG_NAME: Record<GttLeg, string> = { sl: 'Stoploss', tg: 'Target' };
const LEG_SIGN: Record<GttLeg, string> = { sl: '≤', tg: '≥' };

/**
 * Each leg's trigger: "Target ≥ 812.00", "Stoploss ≤ 780.00"; an OCO's "SL ≤ 780.00", "TG ≥ 820.00"
 * (as its limits are named). The sign stays with the price when a phone's card wraps the line.
 */
export function triggerLines(g: Gtt): string[] {
  const legs = legsOf(g);
  const name = (l: LegView) => (legs.length === 1 ? LEG_NAME[l.leg] : l.leg.toUpperCase());
  return legs.map((l) => `${name(l)} ${LEG_SIGN[l.leg]}\u00a0${formatPrice(l.trigger)}`);
}

/** Each leg's limit: "810.50", "Market"; an OCO's "SL 779.00", "TG 821.00". */
export function limitLines(g: Gtt): string[] {
  const legs = legsOf(g);
  const one = (l: LegView) => (l.pricetype === 'MARKET' || l.price === 0 ? 'Market' : formatPrice(l.price));
  if (legs.length === 1) return [one(legs[0]!)];
  return legs.map((l) => `${l.leg.toUpperCase()} ${one(l)}`);
}

export const triggersText = (g: Gtt): string => triggerLines(g).join(' · ');
export const limitsText = (g: Gtt): string => limitLines(g).join(' · ');

export const typeText = (g: Gtt) => (g.trigger_type === 'two-leg' ? 'OCO' : 'Single');

/** A book's `YYYY-MM-DD HH:MM:SS` (IST) with the year (a GTT lives a year): "5 Jan 2027, 10:00:07". */
export function gttTime(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})$/.exec(text.trim());
  if (!m) return text || '—';
  const ms = Date.parse(`${m[1]}T${m[2]}+05:30`);
  return Number.isNaN(ms) ? text : istDateTime(ms);
}

/** The day of a book's time (IST): "29 Nov 2027". */
export function gttDay(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})$/.exec(text.trim());
  if (!m) return text || '—';
  const ms = Date.parse(`${m[1]}T${m[2]}+05:30`);
  return Number.isNaN(ms) ? text : `${istDay(ms)} ${m[1]!.slice(0, 4)}`;
}

/** What the form holds: both legs' prices are kept, so switching SINGLE ⇄ OCO loses nothing typed. */
export interface GttFormState {
  type: GttType;
  /** A SINGLE's leg. */
  leg: GttLeg;
  symbol: string;
  exchange: OrderExchange;
  action: Action;
  product: GttProduct;
  quantity: number | string;
  pricetype: GttPriceType;
  slTrigger: number | string;
  slLimit: number | string;
  tgTrigger: number | string;
  tgLimit: number | string;
  strategy?: string;
}

/** A listed GTT as the modify form's fields. */
export function stateOf(g: Gtt): GttFormState {
  const legs = legsOf(g);
  const sl = legs.find((l) => l.leg === 'sl');
  const tg = legs.find((l) => l.leg === 'tg');
  const first = g.legs[0];
  const market = first?.pricetype === 'MARKET';
  return {
    type: g.trigger_type === 'two-leg' ? 'OCO' : 'SINGLE',
    leg: legs[0]!.leg,
    symbol: g.symbol,
    exchange: g.exchange as OrderExchange,
    action: (first?.action === 'SELL' ? 'SELL' : 'BUY') as Action,
    product: first?.product === 'NRML' ? 'NRML' : 'CNC',
    quantity: first?.quantity ?? '',
    pricetype: market ? 'MARKET' : 'LIMIT',
    slTrigger: sl?.trigger ?? '',
    slLimit: sl && !market ? sl.price : '',
    tgTrigger: tg?.trigger ?? '',
    tgLimit: tg && !market ? tg.price : '',
    ...(g.strategy ? { strategy: g.strategy } : {}),
  };
}

const value = (v: number | string) => num(v) ?? 0;

/** The placegttorder body of the form: only the chosen legs' prices, the others 0. */
export function bodyOf(s: GttFormState): PlaceGttBody {
  const limit = (v: number | string) => (s.pricetype === 'LIMIT' ? value(v) : 0);
  const single = s.type === 'SINGLE';
  const useSl = !single || s.leg === 'sl';
  const useTg = !single || s.leg === 'tg';
  return {
    ...(s.strategy ? { strategy: s.strategy } : {}),
    trigger_type: s.type,
    symbol: s.symbol.trim().toUpperCase(),
    exchange: s.exchange,
    action: s.action,
    product: s.product,
    quantity: num(s.quantity) ?? String(s.quantity),
    pricetype: s.pricetype,
    price: single ? limit(s.leg === 'sl' ? s.slLimit : s.tgLimit) : 0,
    triggerprice_sl: useSl ? value(s.slTrigger) : 0,
    triggerprice_tg: useTg ? value(s.tgTrigger) : 0,
    stoploss: single ? 0 : limit(s.slLimit),
    target: single ? 0 : limit(s.tgLimit),
  };
}

/** The body's fields a GTT form shows messages under. */
const FIELDS = [
  'symbol',
  'exchange',
  'action',
  'product',
  'quantity',
  'pricetype',
  'price',
  'triggerprice_sl',
  'triggerprice_tg',
  'stoploss',
  'target',
] as const;
export type GttField = (typeof FIELDS)[number];

function leadingField(message: string): GttField | undefined {
  const m = /^([a-z_]+)\b/.exec(message);
  return m && (FIELDS as readonly string[]).includes(m[1]!) ? (m[1] as GttField) : undefined;
}

/**
 * The server's messages for a field: the validation object's entries by field, or a sentence that
 * starts with the field's name (`triggerprice_tg: 790 must be above the last price 800 …`).
 */
export function serverError(err: unknown, field: GttField): string | undefined {
  const listed = fieldError(err, field);
  if (listed) return listed;
  if (err instanceof ApiError && Object.keys(err.fields).length === 0 && leadingField(err.message) === field)
    return err.message;
  return undefined;
}

/** Whether every message of an error is shown under one of `shown` (no alert above the form). */
export function allUnder(err: unknown, shown: readonly GttField[]): boolean {
  if (!(err instanceof ApiError)) return false;
  const keys = Object.keys(err.fields);
  if (keys.length > 0) return keys.every((k) => (shown as readonly string[]).includes(k));
  const f = leadingField(err.message);
  return f !== undefined && shown.includes(f);
}

/** The fields the form shows for its type, leg and price type (the others' messages go above it). */
export function shownFields(s: GttFormState, fixed: boolean): GttField[] {
  const out: GttField[] = ['quantity', 'pricetype'];
  if (!fixed) out.push('symbol', 'exchange', 'action', 'product');
  if (s.type === 'SINGLE') {
    // The single trigger field takes both triggers' messages ("exactly one of …").
    out.push('triggerprice_sl', 'triggerprice_tg');
    if (s.pricetype === 'LIMIT') out.push('price');
  } else {
    out.push('triggerprice_sl', 'triggerprice_tg');
    if (s.pricetype === 'LIMIT') out.push('stoploss', 'target');
  }
  return out;
}

/** The products a GTT takes on an exchange: CNC on the cash exchanges, NRML on the derivative ones. */
export const gttProducts = (exchange: string) =>
  productsFor(exchange).filter((p) => p !== 'MIS') as GttProduct[];

/** A new GTT's form. */
export const EMPTY_GTT: GttFormState = {
  type: 'SINGLE',
  leg: 'tg',
  symbol: '',
  exchange: 'NSE',
  action: 'BUY',
  product: 'CNC',
  quantity: '',
  pricetype: 'LIMIT',
  slTrigger: '',
  slLimit: '',
  tgTrigger: '',
  tgLimit: '',
};

/** The order of a number field's parts: labels lined up when a description wraps. */
export const FIELD_ORDER: Array<'label' | 'input' | 'description' | 'error'> = [
  'label',
  'input',
  'description',
  'error',
];
