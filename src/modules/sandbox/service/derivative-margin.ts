/**
 * What a future or a short option blocks in the sandbox (docs/rules/sandbox.md#margins-like-a-broker):
 * the broker's margin calculator when the user has a broker session that offers one, else the
 * SPAN + exposure approximation of src/domain/fno-margin.ts on the underlying's notional, with the
 * account's long options of the same underlying, expiry and type counted as cover for a short
 * option. Long options and cash equity stay on the leverage rule (undefined here).
 */
import {
  approximateMargin,
  underlyingClass,
  type Cover,
  type UnderlyingClass,
} from '../../../domain/fno-margin.js';
import type { Instrument } from '../../market/instrument.js';
import { derivativeRule } from '../core/fill-plan.js';
import type { DerivativeMargin } from '../core/margin.js';
import { moneyToRupees, rupeesToMoney, type Money } from '../core/money.js';
import { instrumentKind, type Side } from '../core/types.js';
import { underlyingPlaces } from '../core/expiry.js';
import type { SandboxContext } from './context.js';

export type { BrokerMarginFn, BrokerMarginLeg } from './service.types.js';

/** How long a placement waits for the broker's calculator before it falls back to the approximation. */
export const BROKER_MARGIN_TIMEOUT_MS = 2_000;

const CLASS_LABEL: Record<UnderlyingClass, string> = {
  index: 'index',
  stock: 'stock',
  currency: 'currency',
  commodity: 'commodity',
};

const rs = (m: Money) =>
  `₹${moneyToRupees(m).toLocaleString('en-IN', { maximumFractionDigits: 2, minimumFractionDigits: 0 })}`;

/** The order a derivative margin is asked for. */
export interface MarginOrder {
  side: Side;
  quantity: number;
  product: string;
  priceType: string;
  /** Limit and trigger price (₹, as requested; absent or 0 where the price type has none). */
  price?: number | string | undefined;
  triggerPrice?: number | string | undefined;
}

const rupeesOf = (v: number | string | undefined) => {
  const n = Number(v ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
};

/** A signed quantity of an instrument: a position, or an earlier leg of a basket being margined. */
export interface Holding {
  symbol: string;
  exchange: string;
  quantity: number;
}

/**
 * The derivative margin of `order` on `instrument` for its whole quantity, or undefined when the
 * leverage rule applies (not a future or short option, or an exchange without a class).
 * `basket`: the earlier legs of a basket being margined as one (the `margin` calculator), counted
 * with the account's positions as cover; `hedge` false: no hedge benefit (the calculator's
 * `initial_total_margin`).
 */
export async function derivativeMargin(
  s: SandboxContext,
  userId: number,
  instrument: Instrument,
  order: MarginOrder,
  basket: readonly Holding[] = [],
  hedge = true,
): Promise<DerivativeMargin | undefined> {
  const kind = instrumentKind(instrument.instrumenttype);
  if (!derivativeRule(kind, order.side)) return undefined;
  const base = (instrument.underlying ?? instrument.name).trim().toUpperCase();
  const cls = underlyingClass(instrument.exchange, base);
  if (!cls) return undefined;

  const broker = await askBroker(s, userId, instrument, order);
  if (broker) return broker;

  const underlying = await underlyingPrice(s, instrument, kind, order);
  if (underlying === undefined) return undefined;
  const rate = s.deps.config.fnoMargin[cls];
  const covers = kind === 'option' && hedge ? await coversFor(s, userId, instrument, base, basket) : [];
  const m = approximateMargin({ quantity: order.quantity, underlyingPrice: underlying.price, rate, covers });
  const hedged = covers.reduce((n, c) => n + c.quantity, 0);
  const cover = hedged > 0 ? `, up to ${Math.min(hedged, order.quantity)} units hedged by long options` : '';
  return {
    ...m,
    method:
      `SPAN + exposure approximation: ${rate.span} % + ${rate.exposure} % of the ${CLASS_LABEL[cls]} ` +
      `underlying's notional (${underlying.label} ${rs(underlying.price)} × ${order.quantity})${cover}`,
  };
}

async function askBroker(
  s: SandboxContext,
  userId: number,
  instrument: Instrument,
  order: MarginOrder,
): Promise<DerivativeMargin | undefined> {
  const ask = s.brokerMargin;
  if (!ask) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const answer = await Promise.race([
    ask(userId, {
      symbol: instrument.symbol,
      exchange: instrument.exchange,
      action: order.side,
      product: order.product,
      pricetype: order.priceType,
      quantity: order.quantity,
      price: rupeesOf(order.price),
      trigger_price: rupeesOf(order.triggerPrice),
    }).catch(() => undefined),
    new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), BROKER_MARGIN_TIMEOUT_MS))),
  ]).finally(() => clearTimeout(timer));
  if (!answer || !(answer.total >= 0)) return undefined;
  const money = (x: number) => Math.max(0, rupeesToMoney(Math.ceil(x * 100) / 100));
  return {
    total: money(answer.total),
    span: money(answer.span),
    exposure: money(answer.exposure),
    method: `${answer.broker}'s margin calculator`,
    broker: true,
  };
}

/**
 * The underlying's price: its quote (NIFTY's on NSE_INDEX, a stock's on NSE); without one a
 * future's own quote or, failing that, the order's limit or trigger price; an option's strike.
 * Undefined when none is known.
 */
async function underlyingPrice(
  s: SandboxContext,
  instrument: Instrument,
  kind: string,
  order: MarginOrder,
): Promise<{ price: Money; label: string } | undefined> {
  for (const place of underlyingPlaces(instrument)) {
    const u = await s.deps.instruments.get(place.symbol, place.exchange);
    if (!u) continue;
    const { prices, fallback } = await s.pricesFor(u);
    const ltp = (prices ?? fallback)?.ltp;
    if (ltp !== undefined && ltp > 0) return { price: ltp, label: `${place.symbol}` };
  }
  if (kind === 'future') {
    const { prices, fallback } = await s.pricesFor(instrument);
    const ltp = (prices ?? fallback)?.ltp;
    if (ltp !== undefined && ltp > 0)
      return { price: ltp, label: `${instrument.symbol} (no underlying quote)` };
    const own = rupeesOf(order.price) || rupeesOf(order.triggerPrice);
    if (own > 0) return { price: rupeesToMoney(own), label: "the order's price (no quote)" };
  }
  if (instrument.strike !== null && instrument.strike > 0)
    return { price: rupeesToMoney(instrument.strike), label: 'strike (no underlying quote)' };
  return undefined;
}

/**
 * Long options of the same underlying, expiry and type that cover a new short (net of the shorts
 * they already cover), nearest strike first, each unit's worst loss the strikes' distance when the
 * long is further out of the money (0 when it is nearer: the spread cannot lose).
 */
async function coversFor(
  s: SandboxContext,
  userId: number,
  short: Instrument,
  base: string,
  basket: readonly Holding[],
): Promise<Cover[]> {
  if (short.strike === null || short.expiryDate === null) return [];
  const type = short.instrumenttype;
  const net = new Map<string, Holding>();
  for (const p of [...(await s.deps.repo.positionsOf(userId)), ...basket]) {
    const key = `${p.exchange}:${p.symbol}`;
    const q = (net.get(key)?.quantity ?? 0) + p.quantity;
    net.set(key, { symbol: p.symbol, exchange: p.exchange, quantity: q });
  }
  const longs: { strike: number; quantity: number }[] = [];
  let shorts = 0;
  for (const p of net.values()) {
    if (p.exchange !== short.exchange || p.quantity === 0) continue;
    const i = await s.deps.instruments.get(p.symbol, p.exchange);
    if (!i || i.instrumenttype !== type || i.expiryDate !== short.expiryDate || i.strike === null) continue;
    if ((i.underlying ?? i.name).trim().toUpperCase() !== base) continue;
    if (p.quantity > 0) longs.push({ strike: i.strike, quantity: p.quantity });
    else shorts -= p.quantity;
  }
  let free = longs.reduce((n, l) => n + l.quantity, 0) - shorts;
  if (free <= 0) return [];
  const k = short.strike;
  const out: Cover[] = [];
  for (const l of longs.sort((a, b) => Math.abs(a.strike - k) - Math.abs(b.strike - k))) {
    const q = Math.min(l.quantity, free);
    if (q <= 0) break;
    const further = type === 'CE' ? l.strike > k : l.strike < k;
    out.push({ quantity: q, perUnit: further ? rupeesToMoney(Math.abs(l.strike - k)) : 0 });
    free -= q;
  }
  return out;
}
