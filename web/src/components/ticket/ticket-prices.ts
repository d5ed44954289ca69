/**
 * What the order ticket says about its prices and size before sending
 * (docs/rules/web.md#order-ticket): the LIMIT price it prefills (the LTP on the contract's tick),
 * the warning for a limit far from the LTP, and how an order above the freeze quantity is split.
 * Pure, so the rules are tested without a browser (test/web/ticket-prices.test.ts). Warnings
 * never block: the trader may mean it.
 */
import { formatCount, formatPrice } from '../../format-number.js';

/** How far (percent of the LTP) a limit may be before the ticket warns. */
export const FAR_LIMIT_PERCENT = 5;

/**
 * `price` on the tick grid (`tick` rupees; 0 or unknown: two decimals). Rounded to the nearest
 * tick, in paise first, so 0.05 steps do not drift into 812.3500000001.
 */
export function roundToTick(price: number, tick: number | undefined): number {
  const step = tick && tick > 0 ? tick : 0.01;
  const paise = Math.round(step * 100);
  if (paise <= 0) return Math.round(price * 100) / 100;
  return (Math.round((price * 100) / paise) * paise) / 100;
}

/**
 * The warning for a limit price as typed, or undefined: more than {@link FAR_LIMIT_PERCENT} from
 * the LTP. A BUY far below (or a SELL far above) waits until the market gets there; a BUY far
 * above (or a SELL far below) is marketable and fills at once at the book's price, which is
 * rarely what a typo meant.
 */
export function farLimitWarning(
  action: 'BUY' | 'SELL',
  limit: number,
  ltp: number | undefined,
): string | undefined {
  if (ltp === undefined || !(ltp > 0) || !(limit > 0)) return undefined;
  const away = ((limit - ltp) / ltp) * 100;
  // Rounded first: 5 % typed as 1740.90 on 1658 is 5.000000000000001 % in floating point.
  if (Math.round(Math.abs(away) * 1e6) / 1e6 <= FAR_LIMIT_PERCENT) return undefined;
  const pct = `${Math.abs(away).toFixed(1)} %`;
  const side = away < 0 ? 'below' : 'above';
  const waits = (action === 'BUY') === away < 0;
  return waits
    ? `The limit ${formatPrice(limit)} is ${pct} ${side} the LTP ${formatPrice(ltp)}: the order waits until the price gets there.`
    : `The limit ${formatPrice(limit)} is ${pct} ${side} the LTP ${formatPrice(ltp)}: the ${action} is marketable and fills at once at the book's price.`;
}

/** The day's price band of a contract, as the broker's quote gives it (null: not known). */
export interface CircuitBand {
  upper: number | null;
  lower: number | null;
}

/**
 * The warning for a limit outside the day's circuit band, or undefined: the exchange refuses an
 * order priced beyond its limits, so the order would be rejected, not filled.
 */
export function circuitWarning(limit: number, band: CircuitBand | undefined): string | undefined {
  if (!band || !(limit > 0)) return undefined;
  if (band.upper !== null && band.upper > 0 && limit > band.upper)
    return `The limit ${formatPrice(limit)} is above today's upper circuit ${formatPrice(band.upper)}: the exchange refuses it.`;
  if (band.lower !== null && band.lower > 0 && limit < band.lower)
    return `The limit ${formatPrice(limit)} is below today's lower circuit ${formatPrice(band.lower)}: the exchange refuses it.`;
  return undefined;
}

/**
 * How an order of `quantity` goes out under the exchange's freeze quantity: the sizes of the
 * orders it becomes (the pipeline splits it the same way), or undefined when it goes as one.
 */
export function freezeSplit(quantity: number, freeze: number | null | undefined): number[] | undefined {
  if (!freeze || freeze <= 0 || !(quantity > freeze)) return undefined;
  const full = Math.floor(quantity / freeze);
  const rest = quantity - full * freeze;
  return [...Array<number>(full).fill(freeze), ...(rest > 0 ? [rest] : [])];
}

/** The freeze line under the quantity: the freeze quantity, and the split when the order is above it. */
export function freezeLine(
  quantity: number | undefined,
  freeze: number | null | undefined,
): string | undefined {
  if (!freeze || freeze <= 0) return undefined;
  const split = quantity === undefined ? undefined : freezeSplit(quantity, freeze);
  if (!split) return `Freeze quantity ${formatCount(freeze)}`;
  const last = split.at(-1)!;
  const parts =
    last === freeze
      ? `${split.length} × ${formatCount(freeze)}`
      : `${split.length - 1} × ${formatCount(freeze)} + ${formatCount(last)}`;
  return `Freeze quantity ${formatCount(freeze)}: goes as ${split.length} orders (${parts})`;
}
