/**
 * The flow module's table (migration 0018): flows, an owner table of the webhooks module
 * (owner-table.ts). Their runs and de-duplication claims are the webhooks module's deliveries and
 * claims (docs/rules/flow.md#flow-webhook).
 */
import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';
import { OwnerTableRepository } from '../webhooks/owner-table.js';

export type FlowRow = Selectable<DB['flows']>;

export class FlowRepository extends OwnerTableRepository<'flows'> {
  constructor(db: Kysely<DB>) {
    super(db, 'flows', 'flow');
  }
}
