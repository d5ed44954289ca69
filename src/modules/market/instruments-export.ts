/**
 * `GET /api/v1/instruments`: the live contract read in id order, one page at a time (a keyset
 * cursor on the primary key), each page serialised and written before the next is read, so an
 * answer of 200k instruments never holds more than one page in memory. The generation is read
 * once and pinned: a contract going live meanwhile does not mix two generations into one answer.
 */
import { Readable } from 'node:stream';
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/schema.js';
import { csvField } from '../../platform/csv.js';

/** Rows per page: small enough that each page's driver rows die young. */
const PAGE_SIZE = 2_000;

const COLUMNS = [
  'id',
  'symbol',
  'brsymbol',
  'name',
  'exchange',
  'brexchange',
  'token',
  'expiry',
  'strike',
  'lotsize',
  'instrumenttype',
  'tick_size',
] as const;

/** The answer's columns, in the order of the JSON fields and the CSV header (OpenAlgo's). */
export const EXPORT_FIELDS = [
  'symbol',
  'brsymbol',
  'name',
  'exchange',
  'brexchange',
  'token',
  'expiry',
  'strike',
  'lotsize',
  'instrumenttype',
  'tick_size',
] as const;

export interface ExportRow {
  symbol: string;
  brsymbol: string;
  name: string;
  exchange: string;
  brexchange: string;
  token: string;
  /** `DD-MMM-YY`; empty for cash and indices (as the search answers it). */
  expiry: string;
  /** 0 for anything but an option (as the search answers it). */
  strike: number;
  lotsize: number;
  instrumenttype: string;
  tick_size: number;
}

export const csvLine = (r: ExportRow): string => EXPORT_FIELDS.map((f) => csvField(r[f])).join(',');

export class InstrumentsExport {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly pageSize = PAGE_SIZE,
  ) {}

  /** The live generation and how many of its rows the answer holds; null when no contract is live. */
  async open(exchange: string | undefined): Promise<{ generation: number; count: number } | null> {
    const live = await this.db
      .selectFrom('contract_imports')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('status', '=', 'success')
      .executeTakeFirst();
    if (live?.id === null || live?.id === undefined) return null;
    const generation = Number(live.id);
    let q = this.db.selectFrom('instruments').where('generation', '=', generation);
    if (exchange) q = q.where('exchange', '=', exchange);
    const row = await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    return { generation, count: Number(row?.n ?? 0) };
  }

  /** The generation's rows (of one exchange, or all), a page at a time, in id order. */
  async *pages(generation: number, exchange: string | undefined): AsyncGenerator<ExportRow[]> {
    let after = 0;
    for (;;) {
      let q = this.db
        .selectFrom('instruments')
        .select(COLUMNS)
        // Unary plus: walk the primary key (a range scan) rather than a (generation, …) index.
        .where(sql<SqlBool>`+generation = ${generation}`)
        .where('id', '>', after);
      if (exchange) q = q.where('exchange', '=', exchange);
      const page = await q.orderBy('id').limit(this.pageSize).execute();
      if (page.length === 0) return;
      after = Number(page[page.length - 1]!.id);
      yield page.map((r) => ({
        symbol: r.symbol,
        brsymbol: r.brsymbol,
        name: r.name,
        exchange: r.exchange,
        brexchange: r.brexchange,
        token: r.token,
        expiry: r.expiry ?? '',
        strike: r.strike === null ? 0 : Number(r.strike),
        lotsize: Number(r.lotsize),
        instrumenttype: r.instrumenttype,
        tick_size: Number(r.tick_size),
      }));
      if (page.length < this.pageSize) return;
    }
  }

  /**
   * The answer as a stream: `{"status":"success","message":…,"data":[` then each page's rows,
   * then `]}`; or the CSV header then each page's lines. Read lazily: a page is fetched only when
   * the socket has taken the previous one.
   */
  stream(
    format: 'json' | 'csv',
    opened: { generation: number; count: number } | null,
    exchange: string | undefined,
  ): Readable {
    const pages = opened ? this.pages(opened.generation, exchange) : undefined;
    const count = opened?.count ?? 0;
    async function* body(): AsyncGenerator<string> {
      if (format === 'csv') {
        yield `${EXPORT_FIELDS.join(',')}\n`;
        if (pages) for await (const page of pages) yield page.map((r) => `${csvLine(r)}\n`).join('');
        return;
      }
      yield `{"status":"success","message":${JSON.stringify(`Found ${count} instruments`)},"data":[`;
      let first = true;
      if (pages)
        for await (const page of pages) {
          const json = page.map((r) => JSON.stringify(r)).join(',');
          yield first ? json : `,${json}`;
          first = false;
        }
      yield ']}';
    }
    return Readable.from(body(), { objectMode: false });
  }
}
