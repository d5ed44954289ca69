import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Market reference data: the master contract (`instruments`, one generation
 * per import), import runs, freeze quantities, holidays with their per-exchange sessions, and
 * per-exchange timings.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per import run; a successful run's id is the generation its instruments carry, and
  // the newest successful generation is the live contract (an import is atomic by construction).
  await withId(db, db.schema.createTable('contract_imports'))
    .addColumn('broker', 'varchar(32)', (c) => c.notNull())
    .addColumn('source', 'varchar(512)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addColumn('row_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped_count', 'integer', (c) => c.notNull().defaultTo(0))
    /** JSON summary: rows per exchange and instrument type, skip reasons. */
    .addColumn('summary', 'text')
    .addColumn('message', 'varchar(1024)')
    .execute();
  await db.schema
    .createIndex('contract_imports_status_idx')
    .on('contract_imports')
    .columns(['status', 'id'])
    .execute();

  // (symbol, exchange) is unique within a generation: an order names exactly one contract.
  await withId(db, db.schema.createTable('instruments'))
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .addColumn('symbol', 'varchar(64)', (c) => c.notNull())
    .addColumn('brsymbol', 'varchar(96)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('exchange', 'varchar(16)', (c) => c.notNull())
    .addColumn('brexchange', 'varchar(24)', (c) => c.notNull())
    .addColumn('token', 'varchar(64)', (c) => c.notNull())
    /** `DD-MMM-YY` as OpenAlgo clients read it; null for cash and indices. */
    .addColumn('expiry', 'varchar(16)')
    /** ISO `YYYY-MM-DD` of the same expiry, for sorting and filtering. */
    .addColumn('expiry_date', 'varchar(10)')
    .addColumn('strike', 'double precision')
    .addColumn('lotsize', 'integer', (c) => c.notNull())
    .addColumn('instrumenttype', 'varchar(16)', (c) => c.notNull())
    .addColumn('tick_size', 'double precision', (c) => c.notNull())
    .addColumn('underlying', 'varchar(64)')
    /** Upper-cased `symbol|brsymbol|name|token`: what a search term is matched against. */
    .addColumn('search_key', 'varchar(512)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('instruments_symbol_idx')
    .on('instruments')
    .columns(['generation', 'symbol', 'exchange'])
    .unique()
    .execute();
  await db.schema
    .createIndex('instruments_brsymbol_idx')
    .on('instruments')
    .columns(['generation', 'brsymbol', 'brexchange'])
    .execute();
  await db.schema
    .createIndex('instruments_token_idx')
    .on('instruments')
    .columns(['generation', 'token'])
    .execute();
  await db.schema
    .createIndex('instruments_underlying_idx')
    .on('instruments')
    .columns(['generation', 'underlying', 'expiry_date'])
    .execute();

  await withId(db, db.schema.createTable('qty_freeze'))
    .addColumn('exchange', 'varchar(10)', (c) => c.notNull())
    .addColumn('symbol', 'varchar(50)', (c) => c.notNull())
    .addColumn('freeze_qty', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('qty_freeze_exchange_symbol_idx')
    .on('qty_freeze')
    .columns(['exchange', 'symbol'])
    .unique()
    .execute();

  await withId(db, db.schema.createTable('market_holidays'))
    /** ISO `YYYY-MM-DD` (a calendar date in IST). */
    .addColumn('holiday_date', 'varchar(10)', (c) => c.notNull())
    .addColumn('description', 'varchar(150)', (c) => c.notNull())
    .addColumn('holiday_type', 'varchar(30)', (c) => c.notNull().defaultTo('TRADING_HOLIDAY'))
    .addColumn('year', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('market_holidays_date_idx')
    .on('market_holidays')
    .column('holiday_date')
    .execute();
  await db.schema.createIndex('market_holidays_year_idx').on('market_holidays').column('year').execute();

  await withId(db, db.schema.createTable('market_holiday_exchanges'))
    .addColumn('holiday_id', 'bigint', (c) =>
      c.notNull().references('market_holidays.id').onDelete('cascade'),
    )
    .addColumn('exchange_code', 'varchar(10)', (c) => c.notNull())
    .addColumn('is_open', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('start_time', 'bigint')
    .addColumn('end_time', 'bigint')
    .execute();
  await db.schema
    .createIndex('market_holiday_exchanges_holiday_idx')
    .on('market_holiday_exchanges')
    .column('holiday_id')
    .execute();
  await db.schema
    .createIndex('market_holiday_exchanges_code_idx')
    .on('market_holiday_exchanges')
    .column('exchange_code')
    .execute();

  await withId(db, db.schema.createTable('market_timings'))
    .addColumn('exchange', 'varchar(10)', (c) => c.notNull().unique())
    /** `HH:MM`, IST. */
    .addColumn('start_time', 'varchar(5)', (c) => c.notNull())
    .addColumn('end_time', 'varchar(5)', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
