/**
 * The Action Center (docs/rules/orders.md#action-center): in semi-automatic mode an API order is
 * queued for the user's decision instead of being placed. The queue stores the validated order
 * without the API key. Approving runs the pipeline from step 3 of
 * docs/rules/orders.md#placement-steps with the stored order, as the user; rejecting keeps the
 * reason; each decision is a compare-and-set on the row's status, so one order is never placed
 * twice (two clicks, two instances).
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { badRequest, notFound } from '../../platform/errors.js';
import type { OrderPipeline, PipelineAnswer } from './order-pipeline.js';
import type { PlacedBody, RefusedBody } from './order-pipeline.types.js';
import type { OrderInput } from './order-rules.js';
import type { OrdersRepository, PendingOrderRow } from './orders.repository.js';

export type PendingStatus = 'pending' | 'approved' | 'rejected';

/** What happened to a semi-automatic order: queued, or the user's decision on it. */
export type PendingDecision = 'queued' | 'approved' | 'rejected';

/** A queued order as the session routes show it. */
export interface PendingOrderView {
  id: number;
  api_type: string;
  order: OrderInput & { splitsize?: number };
  status: PendingStatus;
  reason: string | null;
  orderid: string | null;
  /** The placement's answer with its HTTP status, once approved (null before). */
  response: ({ http_status: number } & (PlacedBody | RefusedBody)) | null;
  created_at: string;
  decided_at: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toView(r: PendingOrderRow): PendingOrderView {
  return {
    id: r.id,
    api_type: r.api_type,
    order: JSON.parse(r.request) as PendingOrderView['order'],
    status: r.status as PendingStatus,
    reason: r.reason,
    orderid: r.order_id,
    response: r.response ? (JSON.parse(r.response) as PendingOrderView['response']) : null,
    created_at: iso(r.created_at)!,
    decided_at: iso(r.decided_at),
  };
}

export class ActionCenterService {
  /**
   * Told of every order queued, approved or rejected (the metrics module's counter) and of a
   * deleted one (the live socket, docs/rules/orders.md#live-socket), with its user and id; never
   * throw.
   */
  readonly listeners: ((decision: PendingDecision | 'deleted', userId: number, id: number) => void)[] = [];

  constructor(
    private readonly repo: OrdersRepository,
    private readonly pipeline: OrderPipeline,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Queues an order (step 2); the API key is not part of `order`. */
  async queue(userId: number, apiType: string, order: OrderInput & { splitsize?: number }): Promise<number> {
    const row = await this.repo.insertPending({
      user_id: userId,
      api_type: apiType,
      request: JSON.stringify(order),
      status: 'pending',
      created_at: this.clock.now(),
    });
    this.told('queued', userId, row.id);
    return row.id;
  }

  async list(userId: number, status?: PendingStatus): Promise<PendingOrderView[]> {
    return (await this.repo.pendingOf(userId, status)).map(toView);
  }

  private async own(userId: number, id: number): Promise<PendingOrderRow> {
    const row = await this.repo.getPending(id);
    if (!row || row.user_id !== userId) throw notFound(`Pending order ${id} not found`);
    return row;
  }

  /**
   * Approves a pending order: claims it (pending → approved), then places it through the
   * pipeline and stores the outcome. The answer is the pipeline's.
   */
  async approve(userId: number, id: number): Promise<PipelineAnswer> {
    const row = await this.own(userId, id);
    const now = this.clock.now();
    if (!(await this.repo.decidePending(id, 'pending', { status: 'approved', decided_at: now })))
      throw badRequest(`Pending order ${id} is already ${row.status === 'pending' ? 'decided' : row.status}`);
    this.told('approved', userId, id);
    const order = JSON.parse(row.request) as OrderInput & { splitsize?: number };
    const answer = await this.pipeline.run(userId, order, {
      apiType: row.api_type,
      ...(order.splitsize ? { chunk: order.splitsize } : {}),
    });
    const orderid = answer.body.status === 'success' ? answer.body.orderid : null;
    await this.repo.decidePending(id, 'approved', {
      status: 'approved',
      order_id: orderid,
      response: JSON.stringify({ http_status: answer.status, ...answer.body }),
      decided_at: now,
    });
    return answer;
  }

  /** Approves every pending order of the user, oldest first. */
  async approveAll(userId: number): Promise<({ id: number } & PipelineAnswer)[]> {
    const pending = (await this.repo.pendingOf(userId, 'pending')).reverse();
    const out: ({ id: number } & PipelineAnswer)[] = [];
    for (const p of pending) {
      try {
        out.push({ id: p.id, ...(await this.approve(userId, p.id)) });
      } catch (err) {
        // A refusal keeps its own status (an order decided meanwhile is 400); anything else is a
        // 500 whose details stay in the log, not in the answer.
        const status = (err as { statusCode?: number }).statusCode;
        if (status === undefined || status >= 500)
          this.logger.error({ err, pendingOrderId: p.id }, 'approving a queued order failed');
        out.push(
          status !== undefined && status < 500
            ? { id: p.id, status, body: { status: 'error', message: (err as Error).message } }
            : { id: p.id, status: 500, body: { status: 'error', message: 'Internal server error' } },
        );
      }
    }
    return out;
  }

  async reject(userId: number, id: number, reason: string): Promise<void> {
    const row = await this.own(userId, id);
    if (
      !(await this.repo.decidePending(id, 'pending', {
        status: 'rejected',
        reason,
        decided_at: this.clock.now(),
      }))
    )
      throw badRequest(`Pending order ${id} is already ${row.status}`);
    this.told('rejected', userId, id);
  }

  private told(decision: PendingDecision | 'deleted', userId: number, id: number): void {
    for (const listener of this.listeners) listener(decision, userId, id);
  }

  async remove(userId: number, id: number): Promise<void> {
    await this.own(userId, id);
    await this.repo.deletePending(id, userId);
    this.told('deleted', userId, id);
  }
}
