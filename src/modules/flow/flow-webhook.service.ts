/**
 * A flow's delivery (docs/rules/flow.md#flow-webhook): the token → enabled → the secret (body
 * `secret` or query `?secret=`) → the body → the 60-second de-duplication → the run, answered
 * with each node's real outcome (docs/rules/flow.md#flow-runs). Every delivery past the size and
 * rate checks is recorded in `flow_runs`: written when it arrives, completed with the outcome.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { fromDbBool } from '../../platform/db/database.js';
import { auditPayload, canonical, holdsNul } from '../../platform/http/webhook-body.js';
import { DEDUPE_WINDOW_MS, WEBHOOK_MAX_BYTES } from '../../domain/limits.js';
import type { FlowDefinition } from './flow-definition.js';
import type { FlowRepository, FlowRow } from './flow.repository.js';
import type { FlowRunner, NodeOutcome } from './flow-runner.js';
import { flowTokenDigest, secretMatches } from './flow.service.js';

/** Every outcome of a delivery and its HTTP status. */
export const FLOW_RESULTS = {
  ok: 200,
  failed: 200,
  rejected_dedupe: 200,
  rejected_payload: 400,
  rejected_secret: 403,
  rejected_disabled: 403,
  rejected_token: 404,
  rejected_engine_error: 500,
} as const;
export type FlowResult = keyof typeof FLOW_RESULTS;

export interface FlowAnswer {
  http: number;
  body: {
    status: 'success' | 'error';
    result: FlowResult;
    message: string;
    flow_id?: number;
    run_id?: number;
    nodes?: NodeOutcome[];
  };
}

class Refusal extends Error {
  constructor(
    readonly result: FlowResult,
    message: string,
  ) {
    super(message);
  }
}

const SYMBOL = /^[A-Za-z0-9&._-]{1,64}$/;

export class FlowWebhook {
  constructor(
    private readonly deps: { repo: FlowRepository; runner: FlowRunner; clock: Clock; logger: Logger },
  ) {}

  async deliver(
    token: string,
    urlSymbol: string | undefined,
    querySecret: string | undefined,
    raw: string | undefined,
    ip: string,
  ): Promise<FlowAnswer> {
    const started = performance.now();
    const { repo, clock, logger } = this.deps;
    const audit: { flow?: FlowRow; payload?: unknown; nodes?: NodeOutcome[]; symbol?: string } = {};
    const runId = await repo
      .insertRun({
        flow_id: null,
        ts: clock.now(),
        ip: ip.slice(0, 64),
        result: 'received',
        http_status: 0,
        symbol: null,
        message: 'received',
        payload: null,
        nodes: null,
        duration_ms: 0,
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'flow run not recorded');
        return undefined;
      });
    let result: FlowResult;
    let message: string;
    try {
      ({ result, message } = await this.pipeline(token, urlSymbol, querySecret, raw, audit));
    } catch (err) {
      if (err instanceof Refusal) ({ result, message } = err);
      else {
        logger.error({ err, flowId: audit.flow?.id }, 'flow webhook: engine error');
        result = 'rejected_engine_error';
        message = 'The flow could not be run';
      }
    }
    const http = FLOW_RESULTS[result];
    const flowId = audit.flow ? Number(audit.flow.id) : undefined;
    if (runId !== undefined)
      await repo
        .completeRun(runId, {
          flow_id: flowId ?? null,
          result,
          http_status: http,
          symbol: audit.symbol ?? null,
          message: message.slice(0, 1000),
          payload: audit.payload === undefined ? null : auditPayload(audit.payload),
          nodes: audit.nodes ? JSON.stringify(audit.nodes) : null,
          duration_ms: performance.now() - started,
        })
        .catch((err: unknown) => logger.error({ err, flowId }, 'flow run not recorded'));
    return {
      http,
      body: {
        status: result === 'ok' ? 'success' : 'error',
        result,
        message,
        ...(flowId !== undefined ? { flow_id: flowId } : {}),
        ...(runId !== undefined && audit.nodes ? { run_id: runId } : {}),
        ...(audit.nodes ? { nodes: audit.nodes } : {}),
      },
    };
  }

  private async pipeline(
    token: string,
    urlSymbol: string | undefined,
    querySecret: string | undefined,
    raw: string | undefined,
    audit: { flow?: FlowRow; payload?: unknown; nodes?: NodeOutcome[]; symbol?: string },
  ): Promise<{ result: FlowResult; message: string }> {
    const { repo, clock } = this.deps;
    const digest = flowTokenDigest(token);
    const flow = digest ? await repo.byDigest(digest) : undefined;
    if (!flow) throw new Refusal('rejected_token', 'Unknown webhook token');
    audit.flow = flow;
    if (!fromDbBool(flow.enabled)) throw new Refusal('rejected_disabled', 'The flow is disabled');
    // The secret before the body's faults: a sender without it learns nothing of the format.
    let body: unknown;
    let fault: string | undefined;
    if (raw === undefined) fault = `Body over ${WEBHOOK_MAX_BYTES} bytes`;
    else if (raw.trim() === '') body = {};
    else
      try {
        body = JSON.parse(raw);
      } catch {
        fault = 'Body must be JSON';
      }
    const obj =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : undefined;
    if (!secretMatches(querySecret || obj?.secret, flow.secret_digest))
      throw new Refusal('rejected_secret', 'Missing or wrong secret');
    if (fault) throw new Refusal('rejected_payload', fault);
    if (!obj) throw new Refusal('rejected_payload', 'Body must be a JSON object');
    if (holdsNul(obj)) throw new Refusal('rejected_payload', 'Body must not contain NUL characters');
    const { secret: _secret, ...webhook } = obj;
    audit.payload = webhook;
    if (urlSymbol !== undefined && !SYMBOL.test(urlSymbol))
      throw new Refusal('rejected_payload', 'The symbol in the URL is not a symbol');
    const symbol = urlSymbol?.toUpperCase();
    if (symbol) audit.symbol = symbol;
    const fingerprint = createHash('sha256')
      .update(`${symbol ?? ''}|${canonical(webhook)}`)
      .digest('hex');
    if (!(await repo.claim(Number(flow.id), fingerprint, clock.now(), DEDUPE_WINDOW_MS)))
      return { result: 'rejected_dedupe', message: 'An identical delivery was run in the last 60 seconds' };
    const def = JSON.parse(flow.definition) as FlowDefinition;
    if (!symbol && def.symbol) audit.symbol = def.symbol.toUpperCase();
    const nodes = await this.deps.runner.run(Number(flow.user_id), flow.name, def, webhook, symbol);
    audit.nodes = nodes;
    const failed = nodes.find((n) => n.status === 'failed');
    if (failed)
      return { result: 'failed', message: `Node ${failed.id} failed: ${failed.message ?? ''}`.trim() };
    const done = nodes.filter((n) => n.status === 'done').length;
    return { result: 'ok', message: `${done} of ${nodes.length} nodes ran` };
  }
}
