/**
 * The order pipeline's analyzer-mode step (spec "Order placement rules", step 5): each child order
 * is placed in the sandbox, its analyzer-log row written in the sandbox order's own transaction
 * (the `PlacementJournal`), its event published once that transaction has committed.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { PlaceOutcome, SandboxService } from '../sandbox/service/sandbox.service.js';
import type { OrderEvent, OrderEventBus } from './order-events.js';
import type { OrderLogWriter } from './order-log.writer.js';
import type { LatencyService } from './latency.service.js';
import {
  INTERNAL_ERROR,
  type PipelineAnswer,
  type RefusedBody,
  type RunOptions,
} from './order-pipeline.types.js';
import type { OrderRecorder } from './order-recorder.js';
import type { OrderInput } from './order-rules.js';

export interface SandboxPlacementDeps {
  sandbox: SandboxService;
  events: OrderEventBus;
  log: Pick<OrderLogWriter, 'recordAtCommit'>;
  latency: LatencyService;
  logger: Logger;
  recorder: OrderRecorder;
}

export async function placeInSandbox(
  deps: SandboxPlacementDeps,
  userId: number,
  order: OrderInput,
  sizes: number[],
  request: Record<string, unknown>,
  opts: RunOptions,
  started: number,
  validationMs: number,
): Promise<PipelineAnswer> {
  const apiType = opts.apiType;
  const ids: string[] = [];
  const complete: boolean[] = [];
  for (const quantity of sizes) {
    const t0 = performance.now();
    // The event of the sandbox's decision (placed, or refused by an account rule: funds,
    // holdings, square-off), its log row written in the order's own transaction.
    const refusal = (o: Extract<PlaceOutcome, { ok: false }>): RefusedBody => ({
      status: 'error',
      message: o.message,
      mode: 'analyze',
      orderid: o.order.orderId,
      ...(ids.length ? { orderids: [...ids] } : {}),
    });
    const eventOf = (o: PlaceOutcome): OrderEvent => {
      const orderid = o.order.orderId;
      if (o.ok)
        return deps.recorder.event(
          'order.placed',
          'analyze',
          userId,
          apiType,
          'sandbox',
          orderid,
          200,
          { ...request, quantity },
          { status: 'success', orderid, mode: 'analyze' },
        );
      return deps.recorder.event(
        'order.failed',
        'analyze',
        userId,
        apiType,
        'sandbox',
        orderid,
        400,
        { ...request, quantity },
        refusal(o),
      );
    };
    const r = await deps.sandbox
      .placeOrder(
        userId,
        {
          symbol: order.symbol,
          exchange: order.exchange,
          side: order.action,
          priceType: order.pricetype,
          product: order.product,
          quantity,
          price: order.price,
          triggerPrice: order.trigger_price,
          strategy: order.strategy,
          ...(opts.tag ? { tag: opts.tag } : {}),
          ...(order.amo === true ? { amo: true } : {}),
        },
        // Its log row is written with the group's at the COMMIT: the id is known after it.
        (_trx, o, atCommit): Promise<OrderEvent> => {
          const e = eventOf(o);
          return deps.log.recordAtCommit(atCommit, e).then((logId) => ({ ...e, logId }));
        },
      )
      .then(
        (o) => o,
        (err: unknown) => ({ ok: false as const, error: err }),
      );
    deps.latency.record({
      label: 'PLACE',
      userId,
      broker: 'sandbox',
      symbol: order.symbol,
      orderId: 'order' in r ? r.order.orderId : null,
      status: r.ok ? 'success' : 'failed',
      totalMs: performance.now() - (ids.length === 0 ? started : t0),
      brokerMs: 0,
      validationMs: ids.length === 0 ? validationMs : 0,
    });
    if ('error' in r) {
      const err = r.error as { statusCode?: number; message?: string } | undefined;
      if (!(err?.statusCode && err.statusCode < 500)) {
        if (ids.length === 0) throw r.error;
        // An exception after some children were placed: still a 500 with the generic message,
        // but listing the orders already placed, as every other part-way failure does (the
        // caller must not think nothing was placed and send the whole split again).
        deps.logger.error({ err: r.error, apiType }, 'order pipeline failed part-way through a split');
        const body: RefusedBody = {
          status: 'error',
          message: INTERNAL_ERROR,
          mode: 'analyze',
          orderids: ids,
        };
        await deps.recorder.emit(
          deps.recorder.event(
            'order.failed',
            'analyze',
            userId,
            apiType,
            'sandbox',
            null,
            500,
            request,
            body,
          ),
        );
        return { status: 500, body, quantities: sizes.slice(0, ids.length) };
      }
      // Input the sandbox refused (tick grid, decimals) is a validation failure: the
      // analyzer-error event, and nothing was written.
      const body: RefusedBody = {
        status: 'error',
        message: err.message ?? 'Order rejected',
        mode: 'analyze',
        ...(ids.length ? { orderids: ids } : {}),
      };
      await deps.recorder.emit(
        deps.recorder.event(
          'analyzer.error',
          'analyze',
          userId,
          apiType,
          'sandbox',
          null,
          400,
          { ...request, quantity },
          body,
        ),
      );
      return { status: 400, body, quantities: sizes.slice(0, ids.length) };
    }
    // Committed with the order; a placement that ran without the journal (a test double)
    // records its event now.
    const recorded = await (r.journal ?? deps.recorder.record(eventOf(r)));
    deps.events.publish(recorded);
    if (!r.ok) return { status: 400, body: refusal(r), quantities: sizes.slice(0, ids.length) };
    ids.push(r.order.orderId);
    complete.push(r.order.status === 'complete');
  }
  return {
    status: 200,
    body: {
      status: 'success',
      orderid: ids[0]!,
      ...(ids.length > 1 ? { orderids: ids } : {}),
      mode: 'analyze',
    },
    quantities: sizes,
    complete,
  };
}
