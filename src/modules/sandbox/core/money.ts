/**
 * Exact money for the sandbox (docs/rules/sandbox.md#exact-money).
 *
 * Amounts are integers in ten-thousandths of a rupee (hundredths of a paisa), not whole paise:
 * currency derivatives (CDS, BCD) tick in ₹0.0025, which whole paise cannot hold. Every price on
 * an exchange tick grid is therefore an exact integer, price × quantity is an exact integer, and
 * sums and differences of them (costs, realised and unrealised P&L) are exact. The only divisions
 * are average prices (never stored: derived from cost ÷ quantity), pro-rata releases on partial
 * closes ({@link proRata}, rounded half away from zero, exact on a full close) and margin ÷
 * leverage ({@link divCeil}, rounded up so a margin is never under-blocked). Rupee numbers appear
 * only at the edges (`rupeesToMoney`, `moneyToRupees`: src/domain/money.ts, re-exported here).
 *
 * Range: integers stay exact up to 2^53, i.e. about ₹900 billion per amount; anything larger is a
 * `RangeError`, never a silently wrong number.
 */

import type { Money } from '../../../domain/money.js';

export {
  MONEY_PER_RUPEE,
  moneyToRupees,
  rupeesToMoney,
  tryRupeesToMoney,
  type Money,
} from '../../../domain/money.js';

function safe(n: number, what: string): number {
  if (!Number.isSafeInteger(n)) throw new RangeError(`${what} is outside the exact money range`);
  return n;
}

/** The value of `quantity` units at `price`: exact, or a `RangeError` past 2^53. */
export function tradeValue(price: Money, quantity: number): Money {
  return safe(price * quantity, 'trade value');
}

/** Quotient and remainder of `a ÷ b` for safe integers `a ≥ 0`, `b > 0`, exact even near 2^53. */
function divMod(a: number, b: number): [number, number] {
  let q = Math.floor(a / b);
  let r = a - q * b;
  // The float quotient may be off by one when it rounds across an integer: correct it exactly.
  if (r < 0) {
    q -= 1;
    r += b;
  } else if (r >= b) {
    q += 1;
    r -= b;
  }
  return [q, r];
}

function checkInts(a: number, b: number, name: string): void {
  if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || b <= 0)
    throw new RangeError(`${name} needs safe integers and a positive divisor`);
}

/** `a ÷ b` for integers, `b > 0`, rounded half away from zero. */
export function divRound(a: number, b: number): number {
  checkInts(a, b, 'divRound');
  const [q, r] = divMod(Math.abs(a), b);
  const n = 2 * r >= b ? q + 1 : q;
  return a < 0 ? -n : n;
}

/** `a ÷ b` for integers `a ≥ 0`, `b > 0`, rounded up. */
export function divCeil(a: number, b: number): number {
  checkInts(a, b, 'divCeil');
  if (a < 0) throw new RangeError('divCeil needs a >= 0');
  const [q, r] = divMod(a, b);
  return r > 0 ? q + 1 : q;
}

/**
 * The share of `total` belonging to `part` of `whole` units (`0 ≤ part ≤ whole`, `whole > 0`):
 * `total × part ÷ whole` rounded half away from zero, and exactly `total` when `part === whole`, so
 * releasing a position piece by piece always releases exactly what it held.
 */
export function proRata(total: Money, part: number, whole: number): Money {
  if (part === whole) return total;
  if (part === 0) return 0;
  return divRound(safe(total * part, 'pro-rata amount'), whole);
}

/** True when `price` lies on the tick grid (`tick > 0`, both in {@link Money} units). */
export function isOnTick(price: Money, tick: Money): boolean {
  return tick > 0 && price % tick === 0;
}
