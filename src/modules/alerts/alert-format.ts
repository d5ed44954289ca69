/**
 * Alert text per order event (docs/rules/alerts.md#alert-text). Plain text; each channel escapes
 * for its own format. Rules:
 * - a placement reads `✅ BUY 10 SBIN NSE MIS MARKET — order 123 (live)`;
 * - a failure reads `❌ Order failed: <message>` and never carries the success mark: an
 *   `order.placed` event whose status or body says error is reported as a failure, and the ✅
 *   is stripped from any text that came from outside;
 * - analyzer-mode events start with `🧪 [analyze]` and say `simulated`;
 * - only whitelisted order fields are shown, never the request as a whole, and anything that
 *   looks like an API key (64 hex characters) or is the request's `apikey` is masked.
 */
import type { OrderEvent } from '../orders/order-events.js';
import { hasLimitPrice, hasTriggerPrice, type PriceType } from '../../domain/orders.js';

/** What an event tells the user: an order went in, or something failed. */
export type AlertKind = 'placed' | 'failed';

const SUCCESS = '✅';
const FAILURE = '❌';
const ANALYZE_PREFIX = '🧪 [analyze] ';
const FIELD_MAX = 64;
const MESSAGE_MAX = 500;

/** `placed` only for an `order.placed` that also answered success; everything else is `failed`. */
export function alertKind(e: OrderEvent): AlertKind {
  const saysError = e.response.status === 'error' || e.statusCode >= 400;
  return e.name === 'order.placed' && !saysError ? 'placed' : 'failed';
}

/** Outside text made fit for a one-line alert: no secrets, no control characters, no ✅. */
function untrusted(v: unknown, max: number, secrets: readonly string[]): string {
  let s = typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
  for (const secret of secrets) if (secret.length >= 4) s = s.split(secret).join('[redacted]');
  s = s
    .replace(/\b[0-9a-fA-F]{64}\b/g, '[redacted]')
    .split(SUCCESS)
    .join('')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim();
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** `BUY 10 SBIN NSE MIS LIMIT @ 512.5`, from whichever order fields the request has. */
function orderSummary(req: Record<string, unknown>, secrets: readonly string[]): string {
  const f = (k: string) => untrusted(req[k], FIELD_MAX, secrets);
  const parts = [
    f('action').toUpperCase(),
    f('quantity'),
    f('symbol'),
    f('exchange'),
    f('product'),
    f('pricetype'),
  ];
  let s = parts.filter((p) => p !== '').join(' ');
  const type = f('pricetype').toUpperCase() as PriceType;
  const price = f('price');
  const trigger = f('trigger_price');
  if (hasLimitPrice(type) && price && price !== '0') s += ` @ ${price}`;
  if (hasTriggerPrice(type) && trigger && trigger !== '0') s += ` trigger ${trigger}`;
  return s;
}

const modeLabel = (m: OrderEvent['mode']) =>
  m === 'analyze' ? 'simulated' : m === 'semi_auto' ? 'semi-auto' : 'live';

/** The alert text for `e` (see the file comment for the rules). */
export function formatAlert(e: OrderEvent): string {
  const secrets = ['apikey', 'api_key']
    .map((k) => e.request[k])
    .filter((v): v is string => typeof v === 'string');
  const prefix = e.mode === 'analyze' ? ANALYZE_PREFIX : '';
  const summary = orderSummary(e.request, secrets);
  const strategy = untrusted(e.request.strategy, FIELD_MAX, secrets);
  const tail = strategy ? `\nStrategy: ${strategy}` : '';
  if (alertKind(e) === 'placed') {
    const id = untrusted(e.orderId ?? e.response.orderid, FIELD_MAX, secrets) || 'unknown';
    return `${prefix}${SUCCESS} ${summary || untrusted(e.apiType, FIELD_MAX, secrets)} — order ${id} (${modeLabel(e.mode)})${tail}`;
  }
  const message = untrusted(e.response.message, MESSAGE_MAX, secrets) || 'no reason given';
  const what = [
    summary,
    `(${untrusted(e.apiType, FIELD_MAX, secrets)}, ${modeLabel(e.mode)}, HTTP ${e.statusCode})`,
  ]
    .filter((p) => p !== '')
    .join(' ');
  return `${prefix}${FAILURE} Order failed: ${message}\n${what}${tail}`;
}
