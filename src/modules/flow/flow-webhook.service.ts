/**
 * A flow's delivery, a source of the shared receive pipeline (modules/webhooks;
 * docs/rules/flow.md#flow-webhook): the token → enabled → the secret (body
 * `secret` or query `?secret=`) → the body → the 60-second de-duplication → the run, answered
 * with each node's real outcome (docs/rules/flow.md#flow-runs). Every delivery past the size and
 * rate checks is recorded as a delivery of source `flow`: written when it arrives, completed with the outcome.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { fromDbBool } from '../../platform/db/database.js';
import { CREDENTIAL_PREFIX, credentialDigest, secretMatches } from '../webhooks/credential.js';
import { BODY_FAULTS, canonical, readJsonObject } from '../webhooks/payload.js';
import { Refusal, WebhookReceiver, type Delivery, type Outcome } from '../webhooks/receiver.js';
import type { WebhooksRepository } from '../webhooks/webhooks.repository.js';
import type { FlowDefinition } from './flow-definition.js';
import type { FlowRepository, FlowRow } from './flow.repository.js';
import type { FlowRunner, NodeOutcome } from './flow-runner.js';

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

const SYMBOL = /^[A-Za-z0-9&._-]{1,64}$/;

export class FlowWebhook {
  private readonly receiver: WebhookReceiver<FlowRow, FlowResult>;

  constructor(
    private readonly deps: {
      repo: FlowRepository;
      webhooks: WebhooksRepository;
      runner: FlowRunner;
      clock: Clock;
      logger: Logger;
    },
  ) {
    this.receiver = new WebhookReceiver<FlowRow, FlowResult>(
      {
        name: 'flow',
        results: FLOW_RESULTS,
        ownerField: 'flow_id',
        unknown: { result: 'rejected_token', message: 'Unknown webhook token' },
        engineError: { result: 'rejected_engine_error', message: 'The flow could not be run' },
        recordOnArrival: true,
        find: (token) => {
          const digest = credentialDigest(CREDENTIAL_PREFIX.flow, token);
          return digest ? deps.repo.byDigest(digest) : Promise.resolve(undefined);
        },
        ownerId: (f) => Number(f.id),
        handle: (d) => this.pipeline(d),
        answer: (_o, d) => {
          const nodes = d.audit.detail.nodes as NodeOutcome[] | undefined;
          return {
            ...(d.id !== undefined && nodes ? { run_id: d.id } : {}),
            ...(nodes ? { nodes } : {}),
          };
        },
      },
      { repo: deps.webhooks, clock: deps.clock, logger: deps.logger },
    );
  }

  deliver(
    token: string,
    urlSymbol: string | undefined,
    querySecret: string | undefined,
    raw: string | undefined,
    ip: string,
  ): Promise<FlowAnswer> {
    return this.receiver.deliver(token, raw, ip, {
      symbol: urlSymbol,
      secret: querySecret,
    }) as Promise<FlowAnswer>;
  }

  private async pipeline(d: Delivery<FlowRow>): Promise<Outcome<FlowResult>> {
    const flow = d.target;
    if (!fromDbBool(flow.enabled)) throw new Refusal('rejected_disabled', 'The flow is disabled');
    // The secret before the body's faults: a sender without it learns nothing of the format.
    const { body, fault } = readJsonObject(d.raw, { emptyIsObject: true });
    if (!secretMatches(d.params.secret || body?.secret, flow.secret_digest))
      throw new Refusal('rejected_secret', 'Missing or wrong secret');
    if (fault) throw new Refusal('rejected_payload', BODY_FAULTS[fault]);
    const { secret: _secret, ...webhook } = body!;
    d.audit.payload = webhook;
    const urlSymbol = d.params.symbol;
    if (urlSymbol !== undefined && !SYMBOL.test(urlSymbol))
      throw new Refusal('rejected_payload', 'The symbol in the URL is not a symbol');
    const symbol = urlSymbol?.toUpperCase();
    if (symbol) d.audit.detail.symbol = symbol;
    if (!(await d.claim(`${symbol ?? ''}|${canonical(webhook)}`)))
      return { result: 'rejected_dedupe', message: 'An identical delivery was run in the last 60 seconds' };
    const def = JSON.parse(flow.definition) as FlowDefinition;
    if (!symbol && def.symbol) d.audit.detail.symbol = def.symbol.toUpperCase();
    const nodes = await this.deps.runner.run(Number(flow.user_id), flow.name, def, webhook, symbol);
    d.audit.detail.nodes = nodes;
    const failed = nodes.find((n) => n.status === 'failed');
    if (failed)
      return { result: 'failed', message: `Node ${failed.id} failed: ${failed.message ?? ''}`.trim() };
    const done = nodes.filter((n) => n.status === 'done').length;
    return { result: 'ok', message: `${done} of ${nodes.length} nodes ran` };
  }
}
