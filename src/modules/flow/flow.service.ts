/**
 * Flow definitions (docs/rules/flow.md#flow-management): a user's own flows, checked on save
 * (flow-definition.ts), with a webhook token and a secret each shown once
 * (docs/rules/flow.md#flow-webhook) and their runs.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import { randomToken, sha256Hex } from '../../platform/crypto.js';
import { fromDbBool, isUniqueViolation, toDbBool } from '../../platform/db/database.js';
import { AppError, badRequest, notFound } from '../../platform/errors.js';
import { definitionProblems, type FlowDefinition } from './flow-definition.js';
import type { FlowRepository, FlowRow } from './flow.repository.js';
import type { NodeOutcome } from './flow-runner.js';

const TOKEN_SHAPE = /^flw_[A-Za-z0-9_-]{43}$/;

/** The digest of a well-shaped webhook token, or undefined (no lookup for anything else). */
export function flowTokenDigest(raw: string): string | undefined {
  return TOKEN_SHAPE.test(raw) ? sha256Hex(raw) : undefined;
}

/** Whether `given` is the secret whose digest is `digest` (compared in constant time). */
export function secretMatches(given: unknown, digest: string): boolean {
  if (typeof given !== 'string' || given.length === 0 || given.length > 200) return false;
  return timingSafeEqual(Buffer.from(sha256Hex(given), 'hex'), Buffer.from(digest, 'hex'));
}

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
  ) {}

  private issue(): FlowIssued & { digest: string; secretDigest: string } {
    const token = `flw_${randomToken(32)}`;
    const secret = randomToken(24);
    return {
      webhook_token: token,
      webhook_url: `${this.publicBase().replace(/\/+$/, '')}/flow/webhook/${token}`,
      secret,
      digest: sha256Hex(token),
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
      throw new AppError(409, 'conflict', `You already have a flow named "${name}"`);
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
        if (isUniqueViolation(err))
          throw new AppError(409, 'conflict', `You already have a flow named "${name}"`);
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
        if (isUniqueViolation(err))
          throw new AppError(409, 'conflict', `You already have a flow named "${name}"`);
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
    return (await this.repo.runs(id, limit)).map((r) => ({
      id: Number(r.id),
      ts: Number(r.ts),
      ip: r.ip,
      result: r.result,
      http_status: r.http_status,
      symbol: r.symbol,
      message: r.message,
      payload: r.payload === null ? null : (JSON.parse(r.payload) as unknown),
      nodes: r.nodes === null ? null : (JSON.parse(r.nodes) as NodeOutcome[]),
      duration_ms: Number(r.duration_ms),
    }));
  }
}
