/**
 * What the Kite and Upstox GTT clients (zerodha.gtt.ts, upstox.gtt.ts) share: the shape check a
 * {@link BrokerGtt} passes before any I/O, a refusal without I/O, and the step from a
 * `BrokerResult` carrying a trigger id to the `BookResult` the GTT API returns.
 */
import type { BookResult, BrokerGtt, BrokerResult } from '../broker-adapter.js';

const positive = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

/**
 * Why `gtt` cannot be sent as it is (undefined when it can): one trigger for `single`, two
 * ascending ones for `two-leg`, a price per trigger (a LIMIT leg's price positive), a positive
 * whole quantity. The API layer validates the same; this guards the broker from a caller's slip.
 */
export function gttShapeError(gtt: BrokerGtt): string | undefined {
  const legs = gtt.type === 'two-leg' ? 2 : 1;
  if (gtt.type !== 'single' && gtt.type !== 'two-leg') return `Unknown GTT type '${String(gtt.type)}'`;
  if (gtt.triggers.length !== legs || !gtt.triggers.every(positive))
    return `A ${gtt.type} GTT needs ${legs} positive trigger price${legs > 1 ? 's' : ''}`;
  if (legs === 2 && gtt.triggers[0]! >= gtt.triggers[1]!)
    return 'The stoploss trigger must be below the target trigger';
  if (gtt.prices.length !== legs) return `A ${gtt.type} GTT needs ${legs} leg price${legs > 1 ? 's' : ''}`;
  if (gtt.priceType === 'LIMIT' && !gtt.prices.every(positive))
    return 'A LIMIT GTT needs a positive limit price on every leg';
  if (!Number.isInteger(gtt.quantity) || gtt.quantity <= 0)
    return 'The quantity must be a positive whole number';
  return undefined;
}

/** A refusal made before any I/O (no broker round trip). */
export function refuse(
  httpStatus: number,
  message: string,
): { ok: false; httpStatus: number; message: string; roundTripMs: number } {
  return { ok: false, httpStatus, message, roundTripMs: 0 };
}

/**
 * The result of a place/modify/cancel call whose reader put the trigger id in `orderId`: the id,
 * or the broker's refusal with its status (a non-error status on a failure, such as a success
 * without an id, reads as 502).
 */
export function triggerIdResult(r: BrokerResult): BookResult<{ triggerId: string }> {
  if (r.ok && r.orderId !== undefined)
    return { ok: true, data: { triggerId: r.orderId }, roundTripMs: r.roundTripMs };
  return {
    ok: false,
    httpStatus: r.httpStatus >= 400 ? r.httpStatus : 502,
    message: r.message ?? 'The broker refused the request',
    roundTripMs: r.roundTripMs,
  };
}

const IST_OFFSET_MS = (5 * 60 + 30) * 60_000;

/** An epoch instant (ms) as IST `YYYY-MM-DD HH:MM:SS`. */
export function istStamp(epochMs: number): string {
  const iso = new Date(epochMs + IST_OFFSET_MS).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}
