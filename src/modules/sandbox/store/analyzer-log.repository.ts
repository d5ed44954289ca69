/**
 * The `/analyzer` page's read of the user's own analyzer log (docs/rules/web.md#account-pages).
 * The rows are the orders module's (its log writer records every analyzer-mode request and answer
 * in `analyzer_logs`); this module only reads them, newest first, by the user's index.
 */
import type { Kysely, Selectable } from 'kysely';
import type { DB, OrderLogsTable } from '../../../db/schema.js';

/** One analyzer log row as the page shows it (the request and answer still as stored, JSON text). */
export type AnalyzerLogEntry = Pick<
  Selectable<OrderLogsTable>,
  'id' | 'event' | 'api_type' | 'order_id' | 'status_code' | 'request' | 'response' | 'created_at'
>;

export class AnalyzerLogRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** The user's newest `limit` rows, newest first. */
  recentOf(userId: number, limit: number): Promise<AnalyzerLogEntry[]> {
    return this.db
      .selectFrom('analyzer_logs')
      .select(['id', 'event', 'api_type', 'order_id', 'status_code', 'request', 'response', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }
}
