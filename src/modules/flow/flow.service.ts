/**
 * Flow definitions (docs/rules/flow.md#flow-management): a user's own flows, checked on save
 * (flow-definition.ts), with a webhook token and a secret each shown once
 * (docs/rules/flow.md#flow-webhook) and their runs.
 */
import type { Clock } from '../../platform/clock.js';
import { randomToken, sha256Hex } from '../../platform/crypto.js';
import { CREDENTIAL_PREFIX, issueCredential, webhookUrl } from '../webhooks/credential.js';
import { readDetail } from '../webhooks/receiver.js';
import type { WebhooksRepository } from '../webhooks/webhooks.repository.js';
import { fromDbBool, isUniqueViolation, toDbBool } from '../../platform/db/database.js';
import { badRequest, conflict, notFound } from '../../platform/errors.js';
import { definitionProblems, type FlowDefinition } from './flow-definition.js';
import type { FlowRepository, FlowRow } from './flow.repository.js';
import type { NodeOutcome } from './flow-runner.js';

export interface FlowView {
  id: number;
  name: string;
  definition: FlowDefinition;
  enabled: boolean;
  created_at: number;
  updated_at: number;
}

export interface FlowIssued {
  webhook_token: string;
  webhook_url: string;
  secret: string;
}

export const toFlowView = (r: FlowRow): FlowView => ({
  id: Number(r.id),
  name: r.name,
  definition: JSON.parse(r.definition) as FlowDefinition,
  enabled: fromDbBool(r.enabled),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});

/** The definition, or a 400 listing its faults by node and field. */
function checked(def: unknown): FlowDefinition {
  const problems = definitionProblems(def);
  if (problems.length > 0)
    throw badRequest(`Invalid flow: ${problems.slice(0, 5).join('; ')}`, {
      definition: problems.slice(0, 20),
    });
  return def as FlowDefinition;
}

export class FlowService {
  constructor(
    private readonly repo: FlowRepository,
    private readonly clock: Clock,
    private readonly publicBase: () => string,
    /** The runs' audit (the webhooks module's repository). */
    private readonly webhooks: WebhooksRepository,
  ) {}

  private issue(): FlowIssued & { digest: string; secretDigest: string } {
    const { value: token, digest } = issueCredential(CREDENTIAL_PREFIX.flow);
    const secret = randomToken(24);
    return {
      webhook_token: token,
      webhook_url: webhookUrl(this.publicBase(), '/flow/webhook', token),
      secret,
      digest,
      secretDigest: sha256Hex(secret),
    };
  }

  private async owned(userId: number, id: number): Promise<FlowRow> {
    const r = await this.repo.own(userId, id);
    if (!r) throw notFound('No such flow');
    return r;
  }

  private async nameFree(userId: number, name: string, exceptId?: number): Promise<void> {
    if (name === '')
      throw badRequest('Invalid flow: name must not be blank', { name: ['must not be blank'] });
    if (await this.repo.nameTaken(userId, name, exceptId))
      throw conflict(`You already have a flow named "${name}"`);
  }

  async list(userId: number): Promise<FlowView[]> {
    return (await this.repo.listForUser(userId)).map(toFlowView);
  }

  async get(userId: number, id: number): Promise<FlowView> {
    return toFlowView(await this.owned(userId, id));
  }

  async create(
    userId: number,
    b: { name: string; definition: unknown; enabled?: boolean },
  ): Promise<{ data: FlowView } & FlowIssued> {
    const name = b.name.trim();
    const definition = checked(b.definition);
    await this.nameFree(userId, name);
    const { digest, secretDigest, ...issued } = this.issue();
    const now = this.clock.now();
    const row = await this.repo
      .insert({
        user_id: userId,
        name,
        definition: JSON.stringify(definition),
        enabled: toDbBool(b.enabled ?? true),
        webhook_digest: digest,
        secret_digest: secretDigest,
        deleted_at: null,
        created_at: now,
        updated_at: now,
      })
      .catch((err: unknown) => {
        // Another request took the name between the check and the insert.
        if (isUniqueViolation(err)) throw conflict(`You already have a flow named "${name}"`);
        throw err;
      });
    return { data: toFlowView(row), ...issued };
  }

  async update(
    userId: number,
    id: number,
    b: { name?: string; definition?: unknown; enabled?: boolean },
  ): Promise<FlowView> {
    const current = await this.owned(userId, id);
    const name = b.name === undefined ? current.name : b.name.trim();
    if (name !== current.name) await this.nameFree(userId, name, id);
    const row = await this.repo
      .update(id, {
        name,
        ...(b.definition !== undefined ? { definition: JSON.stringify(checked(b.definition)) } : {}),
        ...(b.enabled !== undefined ? { enabled: toDbBool(b.enabled) } : {}),
        updated_at: this.clock.now(),
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) throw conflict(`You already have a flow named "${name}"`);
        throw err;
      });
    if (!row) throw notFound('No such flow');
    return toFlowView(row);
  }

  async remove(userId: number, id: number): Promise<void> {
    await this.owned(userId, id);
    await this.repo.softDelete(id, this.clock.now());
  }

  /** A new token and secret: the old URL and secret stop working at once. */
  async rotate(userId: number, id: number): Promise<FlowIssued> {
    await this.owned(userId, id);
    const { digest, secretDigest, ...issued } = this.issue();
    await this.repo.update(id, {
      webhook_digest: digest,
      secret_digest: secretDigest,
      updated_at: this.clock.now(),
    });
    return issued;
  }

  async runs(userId: number, id: number, limit: number) {
    await this.owned(userId, id);
    return (await this.webhooks.deliveries('flow', id, limit)).map((r) => {
      const detail = readDetail(r.detail);
      return {
        id: Number(r.id),
        ts: Number(r.ts),
        ip: r.ip,
        result: r.result,
        http_status: r.http_status,
        symbol: (detail.symbol as string | undefined) ?? null,
        message: r.message,
        payload: r.payload === null ? null : (JSON.parse(r.payload) as unknown),
        nodes: (detail.nodes as NodeOutcome[] | undefined) ?? null,
        duration_ms: Number(r.duration_ms),
      };
    });
  }
}
