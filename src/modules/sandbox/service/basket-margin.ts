/**
 * The sandbox's margin calculator (docs/rules/orders.md#margin-calculator): what a basket of
 * orders would block under the sandbox's own margin rule (docs/rules/sandbox.md#margin-at-placement)
 * if they were placed now, in order, against the account's current positions, holdings and
 * working orders. Nothing is placed or written.
 *
 * Each leg is checked like a placement (instrument, product, lot size, prices) and priced like
 * one (a MARKET order at the quote's execution price, LIMIT and SL at their price, SL-M at its
 * trigger). A leg that reduces the position an earlier leg (or the account) holds blocks nothing,
 * as at placement. `initialTotal` is the legs each priced from a flat position.
 */
import { AppError, badRequest } from '../../../platform/errors.js';
import { reducibleFor } from '../core/fill-plan.js';
import { accountContext } from '../store/ledger.js';
import { placementMargin } from '../core/margin.js';
import { proRata, type Money } from '../core/money.js';
import { derivativeMargin, type Holding } from './derivative-margin.js';
import { placementPrice, validateOrder, type OrderRequest } from '../core/rules.js';
import type { SandboxContext } from './context.js';
import { instrumentKind } from '../core/types.js';

/** One leg of the basket. */
export interface MarginLeg extends OrderRequest {
  symbol: string;
  exchange: string;
}

/** What the basket would block: in order against the account, and each leg on its own. */
export interface SandboxBasketMargin {
  total: Money;
  initialTotal: Money;
  /** The part of `total` futures and short options block as SPAN, and as exposure margin. */
  span: Money;
  exposure: Money;
  /** How each leg's margin was reckoned, in leg order (`Position 2: SPAN + exposure approximation: …`). */
  methods: string[];
}

/** A 400 naming the leg (`Position 2: …`), as OpenAlgo's margin API words its field errors. */
const legError = (n: number, message: string) => badRequest(`Position ${n}: ${message}`);

export async function basketMargin(
  s: SandboxContext,
  userId: number,
  legs: readonly MarginLeg[],
): Promise<SandboxBasketMargin> {
  const { repo, config } = s.deps;
  /** Signed quantity the earlier legs added to each (symbol, exchange, product). */
  const moved = new Map<string, number>();
  let total = 0;
  let initialTotal = 0;
  let span = 0;
  let exposure = 0;
  const methods: string[] = [];
  /** The earlier legs, signed: cover for a later short option (docs/rules/sandbox.md#margins-like-a-broker). */
  const earlier: Holding[] = [];
  for (const [i, leg] of legs.entries()) {
    const n = i + 1;
    const instrument = await s.instrument(leg.symbol, leg.exchange).catch((err: unknown) => {
      throw err instanceof AppError && err.statusCode === 400 ? legError(n, err.message) : err;
    });
    const key = `${leg.symbol}|${leg.exchange}|${leg.product}`;
    const ctx = await accountContext(repo, userId, leg.symbol, leg.exchange, leg.product);
    const position = { ...ctx.position, quantity: ctx.position.quantity + (moved.get(key) ?? 0) };
    const v = validateOrder(leg, {
      instrument,
      positionQuantity: position.quantity,
      // The calculator prices a CNC SELL whether or not the shares are held (the broker's does too).
      sellableQuantity: Number.MAX_SAFE_INTEGER,
      session: 'regular',
    });
    if (!v.ok) throw legError(n, v.reason);
    const { prices, fallback } = await s.pricesFor(instrument);
    const price = placementPrice(v.order, prices ?? fallback);
    if (price === undefined)
      throw legError(
        n,
        `no price is available for ${leg.exchange}:${leg.symbol}; give a LIMIT price to price a MARKET order`,
      );
    const derivative = await derivativeMargin(s, userId, instrument, leg, earlier);
    const base = {
      kind: instrumentKind(instrument.instrumenttype),
      product: leg.product,
      side: leg.side,
      quantity: leg.quantity,
      price,
      leverage: config.leverage,
      ...(derivative ? { derivative } : {}),
    };
    const pm = placementMargin({ ...base, positionQuantity: reducibleFor({ ...ctx, position }, leg.side) });
    total += pm.margin;
    if (derivative && pm.margin > 0) {
      const part =
        pm.margin === derivative.total
          ? derivative.span
          : proRata(derivative.span, pm.openingQuantity, leg.quantity);
      span += Math.min(part, pm.margin);
      exposure += pm.margin - Math.min(part, pm.margin);
    }
    methods.push(
      `Position ${n}: ${pm.method ?? (pm.margin > 0 ? 'trade value ÷ leverage' : 'reduces a position: no margin')}`,
    );
    const unhedged =
      derivative && !derivative.broker
        ? await derivativeMargin(s, userId, instrument, leg, [], false)
        : derivative;
    initialTotal += placementMargin({
      ...base,
      ...(unhedged ? { derivative: unhedged } : {}),
      positionQuantity: 0,
    }).margin;
    earlier.push({
      symbol: leg.symbol,
      exchange: leg.exchange,
      quantity: leg.side === 'BUY' ? leg.quantity : -leg.quantity,
    });
    moved.set(key, (moved.get(key) ?? 0) + (leg.side === 'BUY' ? leg.quantity : -leg.quantity));
  }
  return { total, initialTotal, span, exposure, methods };
}
