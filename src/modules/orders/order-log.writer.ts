/**
 * The log writer (spec "Order events", consumer rule 1): live events go to the order log,
 * events whose mode is `analyze` to the analyzer log. The stored request never holds the API
 * key (publishers strip it; this writer strips it again, whatever the casing).
 */
import type { OrderEvent } from './order-events.js';
import type { OrdersRepository } from './orders.repository.js';

const SECRET_FIELDS = /^(apikey|api_key|password|token|access_token|auth_token|secret)$/i;

/** A copy of `body` without credential fields (top level and one level down). */
export function withoutSecrets(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (SECRET_FIELDS.test(k)) continue;
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) ? withoutSecrets(v as Record<string, unknown>) : v;
  }
  return out;
}

export function orderLogWriter(repo: OrdersRepository): (e: OrderEvent) => Promise<void> {
  return (e) =>
    repo.insertLog(e.mode === 'analyze' ? 'analyzer_logs' : 'order_logs', {
      user_id: e.userId,
      event: e.name,
      api_type: e.apiType,
      broker: e.broker,
      order_id: e.orderId,
      status_code: e.statusCode,
      request: JSON.stringify(withoutSecrets(e.request)),
      response: JSON.stringify(e.response),
      created_at: e.at,
    });
}
