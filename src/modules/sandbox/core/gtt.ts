/**
 * GTT orders in the sandbox, decided without I/O (docs/rules/sandbox.md#gtt-orders): which leg of
 * an active GTT a price fires, and whether a new GTT's triggers stand on the right side of the
 * last price. A stoploss trigger (`sl`) fires when the LTP falls to it or below; a target trigger
 * (`tg`) when the LTP rises to it or above. An OCO has both (sl below the last price, tg above it)
 * and fires the one reached first; a single GTT has one of them.
 */
import { moneyToRupees, type Money } from './money.js';

export type GttLeg = 'sl' | 'tg';

/** The triggers of a GTT (Money; null where the leg is absent). */
export interface GttTriggers {
  trigger_sl: Money | null;
  trigger_tg: Money | null;
}

/** The leg `ltp` fires, or undefined. Both reachable (a gap through an OCO): the stoploss. */
export function dueLeg(g: GttTriggers, ltp: Money): GttLeg | undefined {
  if (!(ltp > 0)) return undefined;
  if (g.trigger_sl !== null && ltp <= g.trigger_sl) return 'sl';
  if (g.trigger_tg !== null && ltp >= g.trigger_tg) return 'tg';
  return undefined;
}

/**
 * Why the triggers cannot stand against the last price `ltp`, naming the field (a GTT that would
 * fire at once is a mistake, as brokers refuse it), or undefined when they can.
 */
export function wrongSide(g: GttTriggers, ltp: Money): string | undefined {
  const rs = (m: Money) => moneyToRupees(m);
  if (g.trigger_sl !== null && g.trigger_sl >= ltp)
    return `triggerprice_sl: ${rs(g.trigger_sl)} must be below the last price ${rs(ltp)} (a stoploss trigger fires when the price falls to it)`;
  if (g.trigger_tg !== null && g.trigger_tg <= ltp)
    return `triggerprice_tg: ${rs(g.trigger_tg)} must be above the last price ${rs(ltp)} (a target trigger fires when the price rises to it)`;
  return undefined;
}
