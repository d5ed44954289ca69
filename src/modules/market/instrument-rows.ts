/**
 * The `instruments` table as its readers see it: the columns a lookup or the index reads, the
 * row → {@link InstrumentEntry} mapping (with the interning the index load uses), and the live
 * generation's rows as a query. Apart from the repositories because both read through it: the
 * storage of generations (instruments.repository.ts, which loads the index) and the database
 * path of the live contract's questions (live-contract.repository.ts).
 */
import type { Kysely, Selectable } from 'kysely';
import type { DB, InstrumentsTable } from '../../db/schema.js';
import type { InstrumentEntry } from './instrument-index.js';

export const INSTRUMENT_COLUMNS = [
  'id',
  'symbol',
  'brsymbol',
  'name',
  'exchange',
  'brexchange',
  'token',
  'expiry',
  'expiry_date',
  'strike',
  'lotsize',
  'instrumenttype',
  'tick_size',
  'underlying',
  'search_key',
] as const;

/**
 * The columns lookups and the index read. `reference_price` is not among them: only the
 * simulated prices read it, once per instrument (`LiveContractRepository.referencePrice`).
 */
export type InstrumentRow = Pick<Selectable<InstrumentsTable>, (typeof INSTRUMENT_COLUMNS)[number]>;

/** Identity for the few rows a query returns. */
const asIs = <T>(s: T): T => s;

/**
 * One shared copy per distinct value: the database driver hands every row fresh strings, and
 * 200k rows repeat a few hundred exchanges, types, expiries and names (tens of MB for the index).
 */
export function interner(): <T extends string | null>(s: T) => T {
  const pool = new Map<string, string>();
  return <T extends string | null>(s: T): T => {
    if (s === null) return s;
    const seen = pool.get(s);
    if (seen !== undefined) return seen as T;
    pool.set(s, s);
    return s;
  };
}

export function toEntry(
  r: InstrumentRow,
  intern: <T extends string | null>(s: T) => T = asIs,
): InstrumentEntry {
  return {
    id: Number(r.id),
    symbol: r.symbol,
    brsymbol: r.brsymbol,
    name: intern(r.name),
    exchange: intern(r.exchange),
    brexchange: intern(r.brexchange),
    token: r.token,
    expiry: intern(r.expiry),
    expiryDate: intern(r.expiry_date),
    strike: r.strike === null ? null : Number(r.strike),
    lotsize: Number(r.lotsize),
    instrumenttype: intern(r.instrumenttype),
    tickSize: Number(r.tick_size),
    underlying: intern(r.underlying),
    key: r.search_key,
  };
}

/** The live generation (the newest successful import) as a subquery: a read always sees the current contract. */
export function liveGenerationQuery(db: Kysely<DB>) {
  return db
    .selectFrom('contract_imports')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('status', '=', 'success');
}

/** Rows of the live generation, for indexed lookups (symbol, token, underlying). */
export function liveRows(db: Kysely<DB>) {
  return db
    .selectFrom('instruments')
    .where('generation', '=', (eb) => eb.selectFrom(liveGenerationQuery(db).as('l')).select('l.id'));
}

/**
 * Rows of `broker`'s newest successful import (docs/rules/brokers.md#broker-apps): how a broker whose
 * instrument file is not the live contract maps the service's symbols to its own.
 */
export function brokerRows(db: Kysely<DB>, broker: string) {
  return db.selectFrom('instruments').where('generation', '=', (eb) =>
    eb
      .selectFrom('contract_imports')
      .select((e) => e.fn.max('id').as('id'))
      .where('status', '=', 'success')
      .where('broker', '=', broker),
  );
}
