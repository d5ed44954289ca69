/**
 * The audit and de-duplication rows of one webhook source, in the shape of the table each source
 * had before migration 0025 gathered them in `webhook_deliveries` and `webhook_dedupe`: the tests
 * written against `webhook_deliveries` (strategies), `scanner_deliveries` and `flow_runs` read the
 * same columns, now projected from the shared rows by source, owner and detail.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';

type Row = Record<string, unknown>;

/** The tables the sources had, and how each is read now. */
const LEGACY = {
  webhook_deliveries: { source: 'strategy', owner: 'strategy_id', kind: 'deliveries' },
  scanner_deliveries: { source: 'scanner', owner: 'scanner_id', kind: 'deliveries' },
  flow_runs: { source: 'flow', owner: 'flow_id', kind: 'deliveries' },
  strategy_dedupe: { source: 'strategy', owner: 'strategy_id', kind: 'dedupe' },
  scanner_dedupe: { source: 'scanner', owner: 'scanner_id', kind: 'dedupe' },
  flow_dedupe: { source: 'flow', owner: 'flow_id', kind: 'dedupe' },
} as const;
export type LegacyTable = keyof typeof LEGACY;

export const isLegacyTable = (table: string): table is LegacyTable => table in LEGACY;

/** A source's own detail columns, from the stored detail JSON (texts stay texts, as they were stored). */
function detailColumns(source: string, detail: string | null): Row {
  const d = detail === null ? {} : (JSON.parse(detail) as Row);
  const text = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
  if (source === 'strategy') return { mode: d.mode ?? null, run_id: d.run_id ?? null };
  if (source === 'scanner') return { results: text(d.results) };
  return { symbol: d.symbol ?? null, nodes: text(d.nodes) };
}

/** The rows of `table` as the source's own table held them, in id order. */
export async function legacyRows(db: Kysely<DB>, table: LegacyTable): Promise<Row[]> {
  const { source, owner, kind } = LEGACY[table];
  if (kind === 'dedupe') {
    const claims = await db.selectFrom('webhook_dedupe').selectAll().where('source', '=', source).execute();
    return claims.map((c) => ({ [owner]: c.owner_id, fingerprint: c.fingerprint, at: c.at }));
  }
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('source', '=', source)
    .orderBy('id')
    .execute();
  return rows.map(({ source: _s, owner_id, detail, ...rest }) => ({
    ...rest,
    [owner]: owner_id,
    ...detailColumns(source, detail),
  }));
}
