/**
 * The broker's margin calculator in live mode (docs/rules/orders.md#margin-calculator): each
 * position mapped to the broker's instrument through the master contract, then one calculator
 * call through the adapter; nothing is placed.
 */
import type {
  BasketMargin,
  BookResult,
  BrokerAdapter,
  BrokerOrder,
  BrokerSession,
} from '../brokers/broker-adapter.js';
import type { Instrument } from '../market/instrument.js';
import type { LiveCallAnswer, RefusedBody } from './order-pipeline.types.js';
import type { Action, PriceType, Product } from '../../domain/orders.js';

export interface LiveMarginDeps {
  /** The user's broker adapter and session, or the refusal to answer. */
  broker(
    userId: number,
  ): Promise<{ adapter: BrokerAdapter; session: BrokerSession } | { status: number; body: RefusedBody }>;
  /** The instrument by symbol: of `broker`'s instrument file when given and not the live contract's. */
  instrument(symbol: string, exchange: string, broker?: string): Promise<Instrument | undefined>;
}

/** An error answer. */
const refused = (status: number, message: string): LiveCallAnswer => ({
  status,
  body: { status: 'error', message },
});

/** The broker names as messages write them. */
const LABELS: Record<string, string> = { zerodha: 'Zerodha', upstox: 'Upstox' };
export const brokerLabel = (broker: string) => LABELS[broker] ?? broker;
const label = brokerLabel;

/** One position of a margin request in live mode (validated by the margin schema). */
export interface LiveMarginLeg {
  symbol: string;
  exchange: string;
  action: Action;
  product: Product;
  pricetype: PriceType;
  quantity: number;
  price: string;
  trigger_price: string;
}

/** OpenAlgo's margin `data`: rupees rounded to the paisa. */
export function marginData(m: BasketMargin) {
  const r = (x: number) => Math.round(x * 100) / 100;
  return {
    total_margin_required: r(m.total),
    span_margin: r(m.span),
    exposure_margin: r(m.exposure),
    initial_total_margin: r(m.initialTotal),
  };
}

/**
 * The broker's margin calculator for a basket (docs/rules/orders.md#margin-calculator): each
 * leg mapped to the broker's instrument through the master contract (an unknown one is a 400
 * naming it), then one calculator call; nothing is placed.
 */
export async function liveMargin(
  deps: LiveMarginDeps,
  userId: number,
  legs: readonly LiveMarginLeg[],
): Promise<LiveCallAnswer> {
  const r = await brokerBasketMargin(deps, userId, legs);
  if ('status' in r) return r;
  return { status: 200, body: { status: 'success', data: marginData(r.margin) } };
}

/**
 * The user's broker's figures for one order (rupees) for the sandbox's margin rule
 * (docs/rules/sandbox.md#margins-like-a-broker), or undefined when there is no broker session, the
 * broker offers no calculator, or the call failed.
 */
export async function brokerOrderMargin(
  deps: LiveMarginDeps,
  userId: number,
  leg: LiveMarginLeg,
): Promise<(BasketMargin & { broker: string }) | undefined> {
  const r = await brokerBasketMargin(deps, userId, [leg]);
  return 'status' in r ? undefined : { ...r.margin, broker: r.broker };
}

async function brokerBasketMargin(
  deps: LiveMarginDeps,
  userId: number,
  legs: readonly LiveMarginLeg[],
): Promise<LiveCallAnswer | { margin: BasketMargin; broker: string }> {
  const b = await deps.broker(userId);
  if ('status' in b) return b;
  const calc = b.adapter.basketMargin;
  if (!calc)
    return refused(
      400,
      `${label(b.adapter.name)} does not offer a margin calculator through algodesk's broker adapter`,
    );
  const orders: BrokerOrder[] = [];
  for (const [i, leg] of legs.entries()) {
    const inst = await deps.instrument(leg.symbol, leg.exchange, b.adapter.name);
    if (!inst)
      return refused(400, `Position ${i + 1}: Invalid symbol: ${leg.symbol} on exchange: ${leg.exchange}`);
    orders.push({
      symbol: leg.symbol,
      exchange: leg.exchange,
      brsymbol: inst.brsymbol,
      brexchange: inst.brexchange,
      token: inst.token,
      side: leg.action,
      priceType: leg.pricetype,
      product: leg.product,
      quantity: leg.quantity,
      price: leg.price,
      triggerPrice: leg.trigger_price,
      disclosedQuantity: 0,
    });
  }
  const r = await calc.call(b.adapter, orders, b.session).catch((): BookResult<BasketMargin> => ({
    ok: false,
    httpStatus: 500,
    message: `${label(b.adapter.name)}: the broker call failed`,
    roundTripMs: 0,
  }));
  if (!r.ok) return refused(r.httpStatus >= 400 ? r.httpStatus : 500, r.message);
  return { margin: r.data, broker: label(b.adapter.name) };
}
