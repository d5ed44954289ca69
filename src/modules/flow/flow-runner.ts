/**
 * Runs a flow's nodes for one delivery (docs/rules/flow.md#flow-runs): in order, a condition that
 * does not hold jumping to its `else` node or ending the run, an action that fails ending it; the
 * whole run bounded in time. Orders go through the placeorder pipeline in the service's mode (the
 * analyzer switch), as API orders do.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../platform/clock.js';
import type { Action, Product } from '../../domain/orders.js';
import { istDay } from '../sandbox/core/ist-day.js';
import { istTimeOf, type ExchangeSession } from '../market/timings.service.js';
import type { OrderInput } from '../orders/order-rules.js';
import type { PipelineAnswer } from '../orders/order-pipeline.types.js';
import { smartStep } from '../orders/smart-orders.routes.js';
import type { Quote } from '../sandbox/core/types.js';
import {
  isAction,
  render,
  type FlowCondition,
  type FlowDefinition,
  type FlowNode,
  type TemplateScope,
} from './flow-definition.js';

/** The longest a run may take (waits included). */
export const RUN_BOUND_MS = 10_000;

export interface NodeOutcome {
  id: string;
  type: FlowNode['type'];
  status: 'done' | 'skipped' | 'failed';
  /** A condition's value. */
  result?: boolean;
  orderid?: string;
  message?: string;
}

type Key = { symbol: string; exchange: string; product: string };

/** What a run reads and does, in the service's current mode. */
export interface FlowTrading {
  sessionOn(exchange: string, date: string): ExchangeSession | undefined;
  place(userId: number, order: OrderInput): Promise<PipelineAnswer>;
  netPosition(userId: number, key: Key): Promise<number>;
  /** What a new closing order could still close (signed): the net less working closing orders. */
  closable(userId: number, key: Key): Promise<number>;
  cancelAll(userId: number): Promise<{ cancelled: number; failed: number }>;
  quote(symbol: string, exchange: string): Promise<Quote | undefined>;
  /** Sends `text` to the user's alert channels: how many were tried and how many took it. */
  notify(userId: number, text: string): Promise<{ channels: number; delivered: number }>;
}

/** A node's failure: its message is the node's outcome. */
class NodeFailure extends Error {}

export class FlowRunner {
  constructor(private readonly deps: { trading: FlowTrading; clock: Clock }) {}

  async run(
    userId: number,
    flowName: string,
    def: FlowDefinition,
    webhook: Record<string, unknown>,
    symbol: string | undefined,
  ): Promise<NodeOutcome[]> {
    const started = performance.now();
    const exchange = def.exchange ?? 'NSE';
    let quote: Promise<Quote | undefined> | undefined;
    const runSymbol = symbol ?? def.symbol;
    const scope: TemplateScope = {
      webhook,
      symbol: runSymbol,
      quote: () =>
        (quote ??= runSymbol ? this.deps.trading.quote(runSymbol, exchange) : Promise.resolve(undefined)),
    };
    const ctx = { userId, flowName, exchange, scope, started };
    const out: NodeOutcome[] = [];
    let i = 0;
    let stopped: string | undefined;
    while (i < def.nodes.length) {
      const n = def.nodes[i]!;
      if (stopped) {
        out.push({ id: n.id, type: n.type, status: 'skipped', message: stopped });
        i++;
        continue;
      }
      if (performance.now() - started > RUN_BOUND_MS) {
        // The node that would start past the bound fails (docs/rules/flow.md#flow-runs: a node is
        // skipped only after a condition that did not hold or after a failure).
        out.push({
          id: n.id,
          type: n.type,
          status: 'failed',
          message: `the run passed its ${RUN_BOUND_MS / 1000} s bound`,
        });
        stopped = `node ${n.id} failed`;
        i++;
        continue;
      }
      try {
        const o = await this.node(n, ctx);
        out.push(o);
        if (n.type === 'condition' && o.result === false) {
          if (n.else !== undefined) {
            const to = def.nodes.findIndex((x) => x.id === n.else);
            for (let j = i + 1; j < to; j++)
              out.push({
                id: def.nodes[j]!.id,
                type: def.nodes[j]!.type,
                status: 'skipped',
                message: `condition ${n.id} was false`,
              });
            i = to;
            continue;
          }
          stopped = `condition ${n.id} was false`;
        }
      } catch (err) {
        const message = err instanceof Error ? err.message : 'the node failed';
        out.push({ id: n.id, type: n.type, status: 'failed', message });
        stopped = `node ${n.id} failed`;
      }
      i++;
    }
    return out;
  }

  private async node(
    n: FlowNode,
    c: { userId: number; flowName: string; exchange: string; scope: TemplateScope; started: number },
  ): Promise<NodeOutcome> {
    const { trading } = this.deps;
    const done = (extra: Partial<NodeOutcome> = {}): NodeOutcome => ({
      id: n.id,
      type: n.type,
      status: 'done',
      ...extra,
    });
    const text = async (v: string | number | undefined, fallback = ''): Promise<string> =>
      v === undefined ? fallback : typeof v === 'number' ? String(v) : render(v, c.scope);
    const instrument = async (m: { symbol?: string; exchange?: string }) => {
      const symbol = (await render(m.symbol ?? '{{symbol}}', c.scope)).trim().toUpperCase();
      if (!/^[A-Z0-9&._-]{1,64}$/.test(symbol))
        throw new NodeFailure(`symbol "${symbol.slice(0, 64)}" is not a symbol`);
      return { symbol, exchange: m.exchange ?? c.exchange };
    };
    const integer = (raw: string, field: string, min: number): number => {
      if (!/^-?\d{1,9}$/.test(raw.trim()) || Number(raw) < min)
        throw new NodeFailure(`${field} "${raw.slice(0, 40)}" must be an integer of at least ${min}`);
      return Number(raw);
    };
    const side = async (v: string): Promise<Action> => {
      const a = (await text(v)).trim().toUpperCase();
      if (!isAction(a)) throw new NodeFailure(`action "${a.slice(0, 20)}" must be BUY or SELL`);
      return a;
    };
    const place = async (
      order: Omit<OrderInput, 'strategy' | 'disclosed_quantity' | 'price' | 'trigger_price'> &
        Partial<OrderInput>,
    ) => {
      const a = await trading.place(c.userId, {
        strategy: c.flowName,
        price: '0',
        trigger_price: '0',
        disclosed_quantity: '0',
        ...order,
      });
      if (a.status !== 200 || a.body.status !== 'success') {
        const m = a.body.status === 'error' ? a.body.message : undefined;
        throw new NodeFailure(typeof m === 'string' ? m : m ? JSON.stringify(m) : 'The order was refused');
      }
      return done({ orderid: a.body.orderid, message: `${order.action} ${order.quantity} ${order.symbol}` });
    };

    switch (n.type) {
      case 'condition':
        return done({ result: await this.holds(n.when, c, instrument) });
      case 'place_order': {
        const { symbol, exchange } = await instrument(n);
        const price = await text(n.price, '0');
        const trigger = await text(n.trigger_price, '0');
        for (const [f, v] of [
          ['price', price],
          ['trigger_price', trigger],
        ] as const)
          if (!/^\d+(\.\d+)?$/.test(v.trim()))
            throw new NodeFailure(`${f} "${v.slice(0, 40)}" must be a number of at least 0`);
        return place({
          symbol,
          exchange,
          action: await side(n.action),
          quantity: integer(await text(n.quantity), 'quantity', 1),
          product: n.product ?? 'MIS',
          pricetype: n.pricetype ?? 'MARKET',
          price: price.trim(),
          trigger_price: trigger.trim(),
        });
      }
      case 'smart_order': {
        const { symbol, exchange } = await instrument(n);
        const product: Product = n.product ?? 'MIS';
        const action = await side(n.action);
        const quantity = integer(await text(n.quantity), 'quantity', 0);
        const target = integer(await text(n.position_size), 'position_size', -999_999_999);
        const current = await trading.netPosition(c.userId, { symbol, exchange, product });
        const step = smartStep(action, quantity, target, current);
        if ('none' in step) return done({ message: step.none });
        return place({
          symbol,
          exchange,
          action: step.action,
          quantity: step.quantity,
          product,
          pricetype: 'MARKET',
        });
      }
      case 'close_position': {
        const { symbol, exchange } = await instrument(n);
        const product: Product = n.product ?? 'MIS';
        const open = await trading.closable(c.userId, { symbol, exchange, product });
        if (open === 0) return done({ message: 'No open position to close' });
        return place({
          symbol,
          exchange,
          action: open > 0 ? 'SELL' : 'BUY',
          quantity: Math.abs(open),
          product,
          pricetype: 'MARKET',
        });
      }
      case 'cancel_all': {
        const r = await trading.cancelAll(c.userId);
        if (r.failed > 0)
          throw new NodeFailure(`cancelled ${r.cancelled} orders; ${r.failed} could not be cancelled`);
        return done({ message: `cancelled ${r.cancelled} orders` });
      }
      case 'notify': {
        const r = await trading.notify(c.userId, await text(n.message));
        if (r.channels === 0) throw new NodeFailure('no alert channel (Telegram or Slack) is set up');
        if (r.delivered === 0) throw new NodeFailure('no alert channel took the message');
        return done({ message: `sent to ${r.delivered} of ${r.channels} channels` });
      }
      case 'wait': {
        const left = RUN_BOUND_MS - (performance.now() - c.started);
        if (n.seconds * 1000 > left) throw new NodeFailure('the wait would pass the run’s time bound');
        await sleep(n.seconds * 1000);
        return done();
      }
    }
  }

  private async holds(
    w: FlowCondition,
    c: { userId: number; exchange: string; scope: TemplateScope },
    instrument: (m: { symbol?: string; exchange?: string }) => Promise<{ symbol: string; exchange: string }>,
  ): Promise<boolean> {
    const now = this.deps.clock.now();
    switch (w.kind) {
      case 'time_window': {
        const t = istTimeOf(now);
        return t >= w.start && t < w.end;
      }
      case 'market_open': {
        const s = this.deps.trading.sessionOn(w.exchange ?? c.exchange, istDay(now));
        return !!s?.open && s.start_ms !== null && s.end_ms !== null && now >= s.start_ms && now < s.end_ms;
      }
      case 'compare': {
        const left = (await render(w.left, c.scope)).trim();
        const right = typeof w.right === 'number' ? String(w.right) : (await render(w.right, c.scope)).trim();
        const numeric = /^-?\d+(\.\d+)?$/;
        if (numeric.test(left) && numeric.test(right)) {
          const [a, b] = [Number(left), Number(right)];
          return { eq: a === b, ne: a !== b, gt: a > b, gte: a >= b, lt: a < b, lte: a <= b }[w.op];
        }
        if (w.op === 'eq') return left === right;
        if (w.op === 'ne') return left !== right;
        throw new NodeFailure(
          `${w.op} compares numbers; "${left.slice(0, 40)}" or "${right.slice(0, 40)}" is not one`,
        );
      }
      case 'position': {
        const { symbol, exchange } = await instrument(w);
        const net = await this.deps.trading.netPosition(c.userId, {
          symbol,
          exchange,
          product: w.product ?? 'MIS',
        });
        return w.state === 'flat' ? net === 0 : w.state === 'long' ? net > 0 : net < 0;
      }
    }
  }
}
