/**
 * The placeorder pipeline from step 3 on (spec "Order placement rules"): the order is validated
 * again (prices by type, lot size and symbol against the master contract), split at the freeze
 * quantity on F&O exchanges, then simulated by the sandbox in analyzer mode or sent to the live
 * broker's adapter with the user's broker session. Every outcome publishes an order event
 * (`order.placed`, `order.failed`, or the analyzer-error event for a validation failure in
 * analyzer mode) and every placement records its latency off the request path. The broker's
 * HTTP status is passed through, never rewritten to a generic 500.
 *
 * The event's log row is committed before the answer (docs/rules/orders.md#record-of-an-order): a sandbox order's in the order's own transaction, any other in its own (group) commit
 * right after the outcome is known; the event is published after that, carrying the row's id.
 *
 * Steps 1-2 (schema, rate limit, semi-automatic queue) are the route's and the Action Center's;
 * an approved queued order enters here.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type {
  BrokerAdapter,
  BrokerChoice,
  BrokerOrder,
  BrokerResult,
  BrokerSession,
} from '../brokers/broker-adapter.js';
import type { Instrument } from '../market/instrument.js';
import type { SandboxService } from '../sandbox/service/sandbox.service.js';
import { UnreadableSessionError } from '../brokers/broker-sessions.service.js';
import type { OrderEventBus, OrderEventName } from './order-events.js';
import type { OrderLogWriter } from './order-log.writer.js';
import type { LatencyService } from './latency.service.js';
import {
  checkPrices,
  lotProblem,
  MAX_SPLIT_ORDERS,
  splitCount,
  splitSizes,
  TOO_MANY_SPLITS,
  type OrderInput,
} from './order-rules.js';
import { FNO_ORDER_EXCHANGES } from '../../domain/exchanges.js';
import {
  INTERNAL_ERROR,
  type PipelineAnswer,
  type RefusedBody,
  type RunOptions,
} from './order-pipeline.types.js';
import { OrderRecorder } from './order-recorder.js';
import { placeInSandbox, type SandboxPlacementDeps } from './pipeline-sandbox.js';

export type { PipelineAnswer, RunOptions } from './order-pipeline.types.js';

export interface PipelineDeps {
  /** The instrument by symbol: of `broker`'s instrument file when given and not the live contract's. */
  instrument(symbol: string, exchange: string, broker?: string): Promise<Instrument | undefined>;
  /**
   * Whose instrument file the live master contract is (`zerodha`, `upstox`, …), null when no
   * contract is loaded. A live order needs the session broker's own symbols and tokens.
   */
  contractBroker(): Promise<string | null>;
  freezeQty(exchange: string, underlying: string): number | null;
  sandbox: SandboxService;
  analyze: () => boolean;
  /** The adapter of a broker by name, undefined when no such module exists. */
  adapter: (session: BrokerChoice) => BrokerAdapter | undefined;
  /** The user's broker session (decrypted in memory), undefined when the user has none. */
  brokerSession: (userId: number) => Promise<(BrokerChoice & { session: BrokerSession }) | undefined>;
  events: OrderEventBus;
  /** Writes an event's log row before the answer (order-log.writer.ts). */
  log: Pick<OrderLogWriter, 'record' | 'recordAtCommit'>;
  latency: LatencyService;
  clock: Clock;
  logger: Logger;
}

export class OrderPipeline {
  private readonly recorder: OrderRecorder;
  private readonly sandboxDeps: SandboxPlacementDeps;

  constructor(private readonly deps: PipelineDeps) {
    this.recorder = new OrderRecorder(deps);
    this.sandboxDeps = { ...deps, recorder: this.recorder };
  }

  /**
   * Runs the order from step 3. `chunk` (splitorder) caps each child order; otherwise the
   * instrument's freeze quantity does on F&O exchanges.
   */
  async run(userId: number, order: OrderInput, opts: RunOptions): Promise<PipelineAnswer> {
    try {
      return await this.place(userId, order, opts);
    } catch (err) {
      return this.failure(userId, order, opts, err, 'order pipeline failed');
    }
  }

  /**
   * An exception while handling an order (anywhere in the pipeline: a database failure, a broker
   * session that cannot be decrypted, the sandbox failing; or queueing it for approval) is an
   * order.failed event and a generic 500: the caller never sees internals, the log has the error
   * with the request's context.
   */
  failure(
    userId: number,
    order: OrderInput,
    opts: Pick<RunOptions, 'apiType' | 'mode'>,
    err: unknown,
    logMessage: string,
  ): PipelineAnswer {
    this.deps.logger.error({ err, apiType: opts.apiType }, logMessage);
    const analyze = opts.mode ? opts.mode === 'analyze' : this.deps.analyze();
    const mode = analyze ? ('analyze' as const) : ('live' as const);
    const body: RefusedBody = {
      status: 'error',
      message: INTERNAL_ERROR,
      ...(analyze ? { mode } : {}),
    };
    // An exception: the database may be what failed, so the event is published at once and its
    // row written by the log writer's buffer (no row is promised before this answer).
    this.deps.events.publish(
      this.recorder.event('order.failed', mode, userId, opts.apiType, null, null, 500, { ...order }, body),
    );
    return { status: 500, body };
  }

  private async place(userId: number, order: OrderInput, opts: RunOptions): Promise<PipelineAnswer> {
    const started = opts.started ?? performance.now();
    const analyze = opts.mode ? opts.mode === 'analyze' : this.deps.analyze();
    const mode = analyze ? ('analyze' as const) : ('live' as const);
    const request = { ...order } as Record<string, unknown>;
    const fail = async (
      status: number,
      message: string,
      name: OrderEventName = 'order.failed',
      broker: string | null = null,
    ): Promise<PipelineAnswer> => {
      const body: RefusedBody = { status: 'error', message, ...(analyze ? { mode } : {}) };
      await this.recorder.emit(
        this.recorder.event(name, mode, userId, opts.apiType, broker, null, status, request, body),
      );
      return { status, body };
    };

    // Step 3: order data validated again.
    const invalid = checkPrices(order);
    const instrument = invalid ? undefined : await this.deps.instrument(order.symbol, order.exchange);
    const problem = invalid ?? (instrument ? lotProblem(order, instrument) : await this.unknownSymbol(order));
    const validation = analyze ? 'analyzer.error' : 'order.failed';
    if (problem) return fail(400, problem, validation);
    const inst = instrument!;
    const validationMs = performance.now() - started;
    const chunk = opts.chunk ?? this.freezeChunk(order, inst);
    if (splitCount(order.quantity, chunk, inst.lotsize) > MAX_SPLIT_ORDERS)
      return fail(400, TOO_MANY_SPLITS, validation);
    const sizes = splitSizes(order.quantity, chunk, inst.lotsize);

    // Step 4-5: analyzer mode → the sandbox.
    if (analyze)
      return placeInSandbox(this.sandboxDeps, userId, order, sizes, request, opts, started, validationMs);

    // Step 4, 6-8: live → the broker.
    const session = await this.deps.brokerSession(userId).catch((err: unknown) => {
      if (!(err instanceof UnreadableSessionError)) throw err;
      this.deps.logger.warn({ broker: err.broker }, err.message);
      return 'unreadable' as const;
    });
    if (session === 'unreadable')
      return fail(
        403,
        'Your stored broker session cannot be read by this install (was APP_KEY changed?): log in to your broker again',
      );
    if (!session) return fail(403, 'No broker session: log in to your broker before placing live orders');
    const adapter = this.deps.adapter(session);
    if (!adapter) return fail(404, 'Broker-specific module not found', 'order.failed', session.broker);
    // Another broker's contract is live: this broker's own instrument file maps the symbol
    // (docs/rules/brokers.md#broker-apps), or the order is refused naming the file to load.
    const contractOf = await this.deps.contractBroker();
    const mapped =
      contractOf === null || contractOf === session.broker
        ? inst
        : await this.deps.instrument(order.symbol, order.exchange, session.broker);
    if (!mapped) {
      return fail(
        409,
        `The master contract loaded is ${contractOf}'s and no ${session.broker} instrument file maps ` +
          `${order.symbol} on ${order.exchange}: load ${session.broker}'s instrument file before placing live orders`,
        'order.failed',
        session.broker,
      );
    }
    const ids: string[] = [];
    for (const quantity of sizes) {
      const t0 = performance.now();
      const r = await adapter
        .placeOrder(toBrokerOrder(order, mapped, quantity, opts.tag), session.session)
        .catch((err: unknown): BrokerResult => {
          this.deps.logger.error({ err, broker: session.broker }, 'broker adapter threw');
          return {
            httpStatus: 500,
            ok: false,
            message: 'Broker call failed',
            raw: null,
            roundTripMs: performance.now() - t0,
          };
        });
      const total = performance.now() - (ids.length === 0 ? started : t0);
      this.deps.latency.record({
        label: 'PLACE',
        userId,
        broker: session.broker,
        symbol: order.symbol,
        orderId: r.orderId ?? null,
        status: r.ok ? 'success' : 'failed',
        totalMs: total,
        brokerMs: r.roundTripMs,
        validationMs: ids.length === 0 ? validationMs : 0,
      });
      if (!r.ok || !r.orderId) {
        const status = r.httpStatus >= 400 ? r.httpStatus : 500;
        const message = r.ok
          ? 'Broker reported success without an order id'
          : (r.message ?? 'Order rejected by the broker');
        const body: RefusedBody = { status: 'error', message, ...(ids.length ? { orderids: ids } : {}) };
        await this.recorder.emit(
          this.recorder.event(
            'order.failed',
            'live',
            userId,
            opts.apiType,
            session.broker,
            null,
            status,
            request,
            body,
          ),
        );
        return { status, body, quantities: sizes.slice(0, ids.length) };
      }
      ids.push(r.orderId);
      // The broker acknowledged it: its row is committed before the next child or the answer.
      await this.recorder.emit(
        this.recorder.event(
          'order.placed',
          'live',
          userId,
          opts.apiType,
          session.broker,
          r.orderId,
          200,
          { ...request, quantity },
          { status: 'success', orderid: r.orderId },
        ),
      );
    }
    return {
      status: 200,
      body: { status: 'success', orderid: ids[0]!, ...(ids.length > 1 ? { orderids: ids } : {}) },
      quantities: sizes,
    };
  }

  /** Why a symbol the contract does not hold is refused: unknown, or no contract at all. */
  private async unknownSymbol(order: OrderInput): Promise<string> {
    return (await this.deps.contractBroker()) === null
      ? "No master contract is loaded: import your broker's instrument file before placing orders"
      : `Symbol '${order.symbol}' not found on ${order.exchange} in the master contract`;
  }

  /** The child-order size for freeze-quantity splitting, or undefined when no split applies. */
  private freezeChunk(order: OrderInput, inst: Instrument): number | undefined {
    if (!FNO_ORDER_EXCHANGES.has(order.exchange) || !inst.underlying) return undefined;
    return this.deps.freezeQty(order.exchange, inst.underlying) ?? undefined;
  }
}

function toBrokerOrder(o: OrderInput, inst: Instrument, quantity: number, tag?: string): BrokerOrder {
  return {
    symbol: o.symbol,
    exchange: o.exchange,
    brsymbol: inst.brsymbol,
    brexchange: inst.brexchange,
    token: inst.token,
    side: o.action,
    priceType: o.pricetype,
    product: o.product,
    quantity,
    price: o.price,
    triggerPrice: o.trigger_price,
    disclosedQuantity: Number(o.disclosed_quantity) || 0,
    tag: tag ?? o.strategy,
    ...(o.amo === true ? { amo: true } : {}),
  };
}
