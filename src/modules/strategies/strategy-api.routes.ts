/**
 * OpenAlgo's strategy API over the API key, next to `POST /api/v1/strategy/events`: `list`,
 * `status`, `start`, `stop`, `close_all`, `close_leg`, `runs` and `orders`, every one a `POST`
 * with `apikey` and (but `list`) `strategy_id` in the JSON body (docs/rules/strategies.md#strategy-api).
 * Schema failures are answered first (400, keyed by field), then the key (403), then ownership:
 * another user's strategy is the same 404 as a missing one. Start, stop and close go through the
 * same locked runner and stopper paths as the webhook and the strategy page (strategy-actions.ts);
 * the cooling-off applies, the webhook's batch de-duplication does not, and nothing here is written
 * to the webhook's audit.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import { schemaThenKey } from '../api/schema-then-key.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { notFound } from '../../platform/errors.js';
import type { LegRow, StrategiesRepository } from './strategies.repository.js';
import type { StrategiesService } from './strategies.service.js';
import type { RunStopper } from './run-stop.js';
import type { StrategyRunner } from './strategy-runner.js';
import type { ExitOutcome, RunnerOutcome } from './strategy-runner.types.js';
import { runnerBody, startOwnedBatch, stopOwned } from './strategy-actions.js';
import {
  StrategyApiBody,
  StrategyCloseLegApiBody,
  StrategyListApiBody,
  StrategyOrdersApiBody,
  StrategyRunsApiBody,
  StrategyStartApiBody,
} from './strategy.schema.js';
import { RESULT_STATUS, type RunMode } from './strategy.types.js';
import { toApiOrderView, toApiRunView, toApiStrategyView } from './strategy-views.js';

export interface StrategyApiDeps {
  strategies: StrategiesService;
  runner: StrategyRunner;
  stopper: RunStopper;
  apiKeyGuard: ApiKeyGuard;
  rateLimit: RateLimitHook;
}

/** The run's default page sizes where OpenAlgo gives none: the strategy page's (runs) and the events route's (orders). */
const RUNS_DEFAULT = 100;
const ORDERS_DEFAULT = 500;

export function strategyApiRoutes(app: App, deps: StrategyApiDeps): void {
  const svc = deps.strategies;
  const repo = svc.repo;
  const user = (req: FastifyRequest) => req.apiPrincipal!.userId;
  const post = <B>(
    path: string,
    summary: string,
    body: TSchema,
    handler: (b: B, req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  ) =>
    app.post(
      `/api/v1/strategy/${path}`,
      {
        onRequest: deps.rateLimit,
        attachValidation: true,
        preHandler: schemaThenKey(deps.apiKeyGuard),
        schema: { summary, tags: ['openalgo-api'], body },
      },
      (req, reply) => handler(req.body as B, req, reply),
    );

  post<{ status?: 'idle' | 'running'; q?: string }>(
    'list',
    "The key's strategies, newest first",
    StrategyListApiBody,
    async (b, req) => {
      const q = b.q?.trim().toLowerCase() ?? '';
      const rows = (await repo.listForUser(user(req)))
        .filter((s) => b.status === undefined || (s.active_run_id === null ? 'idle' : 'running') === b.status)
        .filter((s) => q === '' || s.name.toLowerCase().includes(q))
        .sort((a, z) => z.id - a.id);
      const data = await Promise.all(
        rows.map(async (s) => toApiStrategyView(s, await repo.legs(s.id), await repo.lastStoppedRun(s.id))),
      );
      return { status: 'success', data };
    },
  );

  post<{ strategy_id: number }>(
    'status',
    'A strategy, its legs and its current run',
    StrategyApiBody,
    async (b, req) => {
      const s = await svc.owned(user(req), b.strategy_id);
      const run = s.active_run_id === null ? undefined : await repo.run(s.active_run_id);
      const positions = run ? await repo.positions(run.id) : [];
      return {
        status: 'success',
        data: toApiStrategyView(s, await repo.legs(s.id), await repo.lastStoppedRun(s.id)),
        run: run
          ? {
              ...toApiRunView(run),
              positions: positions.map((p) => ({
                leg_id: p.leg_id,
                symbol: p.symbol,
                exchange: p.exchange,
                net: Number(p.net),
                working: Number(p.working),
              })),
            }
          : null,
      };
    },
  );

  post<{ strategy_id: number; mode: RunMode }>(
    'start',
    'Start a batch strategy run (mode required)',
    StrategyStartApiBody,
    async (b, req, reply) => {
      const { s, legs, out } = await startOwnedBatch(deps, user(req), b.strategy_id, b.mode);
      const opened =
        out.started && out.runId !== undefined
          ? { mode: b.mode, legs: await entryLegs(repo, out.runId, legs) }
          : {};
      return reply.code(RESULT_STATUS[out.result]).send({ ...runnerBody(out, s.id), ...opened });
    },
  );

  const stop = async (b: { strategy_id: number }, req: FastifyRequest, reply: FastifyReply) => {
    const { s, out } = await stopOwned(deps, user(req), b.strategy_id);
    return reply.code(RESULT_STATUS[out.result]).send(stopBody(out, s.id));
  };
  post('stop', "Stop the strategy's active run: exit every leg", StrategyApiBody, stop);
  // OpenAlgo's close-all is its whole-run stop: here the very same stop.
  post('close_all', "Close every leg of the strategy's active run (its stop)", StrategyApiBody, stop);

  post<{ strategy_id: number; leg_id: number }>(
    'close_leg',
    "Close one leg of the strategy's active run",
    StrategyCloseLegApiBody,
    async (b, req, reply) => {
      const s = await svc.owned(user(req), b.strategy_id);
      if (!(await repo.legs(s.id)).some((l) => l.id === b.leg_id))
        throw notFound(`No leg ${b.leg_id} in this strategy`);
      const out = await deps.stopper.closeLeg(s, b.leg_id);
      return reply
        .code(RESULT_STATUS[out.result])
        .send({ ...stopBody(out, s.id), leg_id: b.leg_id, run_stopped: false });
    },
  );

  post<{ strategy_id: number; limit?: number }>(
    'runs',
    "A strategy's runs, newest first",
    StrategyRunsApiBody,
    async (b, req) => {
      await svc.owned(user(req), b.strategy_id);
      const runs = await repo.runs(b.strategy_id, b.limit ?? RUNS_DEFAULT);
      return { status: 'success', data: runs.map(toApiRunView) };
    },
  );

  post<{ strategy_id: number; run_id?: number; limit?: number }>(
    'orders',
    "A strategy's orders, newest first",
    StrategyOrdersApiBody,
    async (b, req) => {
      const s = await svc.owned(user(req), b.strategy_id);
      const orders = await repo.ordersOfStrategy(s.id, b.run_id, b.limit ?? ORDERS_DEFAULT);
      return { status: 'success', data: orders.map((o) => toApiOrderView(o, s.product)) };
    },
  );
}

/** A stop's or a close's answer: the session routes' fields, each exit with OpenAlgo's `ok` and `error`. */
function stopBody(out: RunnerOutcome, strategyId: number) {
  return {
    ...runnerBody(out, strategyId),
    ...(out.exits !== undefined ? { exits: out.exits.map(apiExit) } : {}),
  };
}

const apiExit = (e: ExitOutcome) => ({ ...e, ok: e.status === 'placed', error: e.message ?? null });

interface EntryLeg {
  leg_id: number;
  ok: boolean;
  acknowledged: boolean;
  /** The instrument the order was sent for (a derivative leg's resolved contract); null when unresolved. */
  symbol: string | null;
  exchange: string;
  action: string | null;
  quantity: number | null;
  broker_order_id: string | null;
  error: string | null;
}

/**
 * The entries a start sent, one row per order (a freeze split gives several), and a row for each
 * leg that sent none (not resolved, or a SELL leg withheld: the run's events say which).
 */
async function entryLegs(repo: StrategiesRepository, runId: number, legs: LegRow[]): Promise<EntryLeg[]> {
  const entries = (await repo.ordersOfRun(runId)).filter((o) => o.purpose === 'entry');
  return legs.flatMap((leg): EntryLeg[] => {
    const sent = entries.filter((o) => o.leg_id === leg.id);
    if (sent.length === 0)
      return [
        {
          leg_id: leg.id,
          ok: false,
          acknowledged: false,
          symbol: leg.symbol,
          exchange: leg.exchange,
          action: leg.side,
          quantity: null,
          broker_order_id: null,
          error: 'Not sent: see the run events',
        },
      ];
    return sent.map((o) => {
      const refused = o.status === 'rejected' || o.status === 'failed';
      return {
        leg_id: leg.id,
        ok: !refused && o.status !== 'recorded',
        acknowledged: o.order_id !== null,
        symbol: o.symbol,
        exchange: o.exchange,
        action: o.action,
        quantity: o.quantity,
        broker_order_id: o.order_id,
        error: refused || o.status === 'dead' ? (o.message ?? o.status) : null,
      };
    });
  });
}
