/**
 * Money as the markets' amounts are written once (docs/rules/sandbox.md#exact-money): integers in
 * ten-thousandths of a rupee (hundredths of a paisa), so the ₹0.0025 tick of currency derivatives
 * is exact, and the conversions at the edges between rupees (request fields, configuration,
 * answers) and {@link Money}. The arithmetic on amounts is the sandbox's (modules/sandbox/core/money.ts).
 */

/** An amount in ten-thousandths of a rupee (integer). ₹120.50 is `1_205_000`. */
export type Money = number;

/** Money units in one rupee. */
export const MONEY_PER_RUPEE = 10_000;

const DECIMAL = /^\s*([+-]?)(\d+)(?:\.(\d*))?\s*$/;

/**
 * Rupees → {@link Money}, or undefined when `rupees` is not a finite amount with at most four
 * decimals (`"120.50"`, `120.5`, `"0.0025"`). Strings are read digit by digit (no float
 * rounding); numbers are accepted when they are the nearest double to such an amount.
 */
export function tryRupeesToMoney(rupees: number | string): Money | undefined {
  if (typeof rupees === 'string') {
    const m = DECIMAL.exec(rupees);
    if (!m) return undefined;
    const frac = (m[3] ?? '').replace(/0+$/, '');
    if (frac.length > 4) return undefined;
    const units = Number(m[2]) * MONEY_PER_RUPEE + Number(frac.padEnd(4, '0'));
    if (!Number.isSafeInteger(units)) return undefined;
    return m[1] === '-' ? -units : units;
  }
  if (!Number.isFinite(rupees)) return undefined;
  const scaled = rupees * MONEY_PER_RUPEE;
  const units = Math.round(scaled);
  // A double carries ~16 significant digits; anything further off than that is a fifth decimal.
  if (Math.abs(scaled - units) > 1e-6 + Math.abs(scaled) * 1e-15) return undefined;
  if (!Number.isSafeInteger(units)) return undefined;
  return units === 0 ? 0 : units; // no -0
}

/** Rupees → {@link Money}; a `RangeError` when the amount has more than four decimals or is not finite. */
export function rupeesToMoney(rupees: number | string): Money {
  const m = tryRupeesToMoney(rupees);
  if (m === undefined)
    throw new RangeError(`not an amount of rupees with at most 4 decimals: ${String(rupees)}`);
  return m;
}

/** {@link Money} → rupees as a JS number (the nearest double: `6_987_500` → `698.75`). */
export function moneyToRupees(m: Money): number {
  const r = m / MONEY_PER_RUPEE;
  return r === 0 ? 0 : r;
}
