/**
 * What the live socket says (docs/rules/orders.md#live-socket): an order event as a whitelist of
 * its fields (secrets never leave), a change of the user's Action Center queue, and the check a
 * copy from another instance passes before it is delivered. The hub (live-socket.ts) decides who
 * gets them.
 */
import type { OrderEvent, OrderEventName } from './order-events.js';

/** The `data` of an order-event message: a whitelist of the event's fields. */
export interface OrderEventData {
  orderid: string | null;
  symbol: string | null;
  exchange: string | null;
  action: string | null;
  quantity: number | null;
  /** HTTP status answered to the API client. */
  status_code: number;
  /** The answer's message, when it had one (failures). */
  message?: string;
  broker: string | null;
  /** ISO-8601 UTC. */
  at: string;
}

/** One message on the socket. */
export interface OrderEventMessage {
  type: 'order_event';
  event: OrderEventName;
  /** `analyze` in analyzer mode; `live` otherwise (a semi-automatic order is a live order). */
  mode: 'live' | 'analyze';
  data: OrderEventData;
}

const MAX_TEXT = 128;
const MAX_MESSAGE = 500;

const text = (v: unknown, max = MAX_TEXT): string | null => (typeof v === 'string' ? v.slice(0, max) : null);

/** A whole quantity as sent (API clients may send it as a string), else null. */
const quantityOf = (v: unknown): number | null =>
  typeof v === 'number' && Number.isSafeInteger(v)
    ? v
    : typeof v === 'string' && /^[0-9]{1,12}$/.test(v)
      ? Number(v)
      : null;

/**
 * The socket message of an event, built from named fields only ("Secrets never leave"): API
 * keys, passwords or unknown extras in `request`/`response` are never copied.
 */
export function toOrderEventMessage(e: OrderEvent): OrderEventMessage {
  const message = text(e.response.message, MAX_MESSAGE);
  return {
    type: 'order_event',
    event: e.name,
    mode: e.mode === 'analyze' ? 'analyze' : 'live',
    data: {
      orderid: e.orderId,
      symbol: text(e.request.symbol),
      exchange: text(e.request.exchange),
      action: text(e.request.action),
      quantity: quantityOf(e.request.quantity),
      status_code: e.statusCode,
      ...(message !== null ? { message } : {}),
      broker: e.broker,
      at: new Date(e.at).toISOString(),
    },
  };
}

/**
 * A change in the user's Action Center queue (docs/rules/orders.md#live-socket): an order queued,
 * decided or deleted. Only the pending order's id and what happened — the page reads the rest.
 */
export interface ActionCenterMessage {
  type: 'action_center';
  event: 'queued' | 'approved' | 'rejected' | 'deleted';
  id: number;
}

/** What the hub sends. */
export type LiveMessage = OrderEventMessage | ActionCenterMessage;

const ACTION_CENTER_EVENTS: ReadonlySet<string> = new Set(['queued', 'approved', 'rejected', 'deleted']);

/** Whether a bus copy's message is one the hub sends (anything else is dropped). */
export function isLiveMessage(m: unknown): m is LiveMessage {
  if (typeof m !== 'object' || m === null) return false;
  const t = (m as { type?: unknown }).type;
  if (t === 'order_event') return true;
  const a = m as Partial<ActionCenterMessage>;
  return (
    t === 'action_center' &&
    typeof a.event === 'string' &&
    ACTION_CENTER_EVENTS.has(a.event) &&
    Number.isInteger(a.id)
  );
}
