/**
 * `subscribe_orders` (docs/rules/market-data.md#order-updates): a feed socket that asked for order
 * updates gets `{type: "order_update", …}` for its own user's orders only, in OpenAlgo's shape, each
 * time one changes state. In analyzer mode every sandbox transition is one (placed, triggered,
 * filled, cancelled, rejected). With Redis the update reaches the sockets of every instance once:
 * it is published on the bus with this process's origin, and the origin does not deliver its own
 * copy twice.
 */
import type { InvalidationBus } from '../../platform/invalidation.js';
import { moneyToRupees } from '../../domain/money.js';
import type { OrderRow } from '../sandbox/store/rows.js';
import type { FeedClient } from './feed-hub.js';
import type { BrokerOrderUpdate } from './feed.types.js';

const TOPIC = 'feed:order';

/**
 * OpenAlgo's order_update, as the WebSocket server sends it: a broker's update's fields with the
 * user, the mode, the broker and the master contract's symbol and exchange.
 */
export type OrderUpdate = {
  type: 'order_update';
  user_id: number;
  mode: 'live' | 'analyze';
  broker: string;
  symbol: string;
  exchange: string;
} & Omit<BrokerOrderUpdate, 'token' | 'brsymbol' | 'brexchange'>;

/** A sandbox order row as OpenAlgo's order_update (prices in rupees). */
export function sandboxOrderUpdate(o: OrderRow): OrderUpdate {
  const working = o.status === 'open' || o.status === 'trigger pending';
  return {
    type: 'order_update',
    user_id: o.user_id,
    mode: 'analyze',
    broker: 'sandbox',
    orderid: String(o.id),
    symbol: o.symbol,
    exchange: o.exchange,
    action: o.side,
    quantity: o.quantity,
    price: moneyToRupees(o.price),
    trigger_price: moneyToRupees(o.trigger_price),
    pricetype: o.price_type,
    product: o.product,
    order_status: o.status,
    filled_quantity: o.filled_quantity,
    pending_quantity: working ? o.quantity - o.filled_quantity : 0,
    average_price: moneyToRupees(o.average_price),
    rejection_reason: o.status === 'rejected' ? (o.reason ?? '') : '',
  };
}

export class OrderUpdates {
  /** Subscribed sockets by user. */
  private readonly byUser = new Map<number, Set<FeedClient>>();

  constructor(
    private readonly bus: InvalidationBus,
    private readonly origin: string,
  ) {
    if (bus.reachesOthers)
      bus.subscribe(TOPIC, (raw) => {
        let msg: { o: string; u: OrderUpdate };
        try {
          msg = JSON.parse(raw) as typeof msg;
        } catch {
          return;
        }
        if (msg.o !== this.origin) this.deliver(msg.u);
      });
  }

  subscribe(client: FeedClient, userId: number): void {
    const set = this.byUser.get(userId) ?? new Set<FeedClient>();
    set.add(client);
    this.byUser.set(userId, set);
  }

  /** Ends the socket's order updates; false when it had none. */
  unsubscribe(client: FeedClient, userId: number): boolean {
    const set = this.byUser.get(userId);
    const had = set?.delete(client) ?? false;
    if (set?.size === 0) this.byUser.delete(userId);
    return had;
  }

  /** An order changed here: to this instance's sockets of its user, and to the others' by the bus. */
  publish(update: OrderUpdate): void {
    this.deliver(update);
    if (this.bus.reachesOthers) this.bus.publish(TOPIC, JSON.stringify({ o: this.origin, u: update }));
  }

  private deliver(update: OrderUpdate): void {
    const set = this.byUser.get(update.user_id);
    if (!set) return;
    const text = JSON.stringify(update);
    // Every update is delivered (not conflated per order: each state is news).
    for (const c of set) c.deliver(`order|${update.orderid}|${update.order_status}`, text);
  }
}
