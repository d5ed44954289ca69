import { describe, expect, it } from 'vitest';
import { ANSWERS_MAX, InstrumentIndex, type InstrumentEntry } from './instrument-index.js';
import { parseTerms, searchKey } from './search-rules.js';

let nextId = 1;
function row(symbol: string, exchange: string, extra: Partial<InstrumentEntry> = {}): InstrumentEntry {
  const r = {
    id: nextId++,
    symbol,
    brsymbol: symbol,
    name: '',
    exchange,
    brexchange: exchange,
    token: String(1000 + nextId),
    expiry: null,
    expiryDate: null,
    strike: null,
    lotsize: 1,
    instrumenttype: 'EQ',
    tickSize: 0.05,
    underlying: null,
    ...extra,
  };
  return { ...r, key: searchKey(r) };
}

const symbols = (index: InstrumentIndex, query: string, exchanges: string[] = [], limit = 500) =>
  index.search(parseTerms(query), exchanges, limit).rows.map((r) => `${r.exchange}:${r.symbol}`);

describe('the index remembers its answers (one contract generation)', () => {
  const rows = () => [
    row('SBIN', 'NSE'),
    row('SBIN', 'BSE'),
    row('SBICARD', 'NSE'),
    row('SBIN25DECFUT', 'NFO', { instrumenttype: 'FUT', underlying: 'SBIN', expiry: '30-DEC-25' }),
  ];

  it('a repeated query gets the same answer; another exchange, limit or query is not confused with it', () => {
    const index = new InstrumentIndex(rows(), 1);
    const first = index.search(parseTerms('sbin'), [], 500);
    expect(symbols(index, 'SBIN')).toEqual(['BSE:SBIN', 'NSE:SBIN', 'NFO:SBIN25DECFUT']);
    expect(index.search(parseTerms('  SBIN '), [], 500)).toBe(first);
    expect(symbols(index, 'SBIN', ['NSE'])).toEqual(['NSE:SBIN']);
    expect(symbols(index, 'SBIN', [], 1)).toEqual(['BSE:SBIN']);
    expect(symbols(index, 'SBI')).toEqual(['BSE:SBIN', 'NSE:SBIN', 'NSE:SBICARD', 'NFO:SBIN25DECFUT']);
    expect(symbols(index, 'SBIN FUT')).toEqual(['NFO:SBIN25DECFUT']);
    // Terms are matched as a whole: "SBIN FUT" is not "SBINFUT".
    expect(symbols(index, 'SBINFUT')).toEqual([]);
    expect(first.total).toBe(3);
  });

  it('a shared answer cannot be changed by one of its callers', () => {
    const index = new InstrumentIndex(rows(), 1);
    const answer = index.search(parseTerms('SBIN'), [], 500);
    expect(() => (answer.rows as InstrumentEntry[]).pop()).toThrow(TypeError);
    expect(symbols(index, 'SBIN')).toHaveLength(3);
  });

  it('a new contract is a new index: nothing of the old one is answered', () => {
    const old = new InstrumentIndex(rows(), 1);
    expect(symbols(old, 'SBIN')).toHaveLength(3);
    const next = new InstrumentIndex([row('SBIN', 'NSE')], 2);
    expect(symbols(next, 'SBIN')).toEqual(['NSE:SBIN']);
  });

  it('keeps a bounded number of answers and still answers every query right', () => {
    const many = Array.from({ length: ANSWERS_MAX + 50 }, (_, i) => row(`STOCK${i}`, 'NSE'));
    const index = new InstrumentIndex(many, 1);
    for (let i = 0; i < ANSWERS_MAX + 50; i++) expect(symbols(index, `STOCK${i}`)[0]).toBe(`NSE:STOCK${i}`);
    const answers = (index as unknown as { answers: Map<string, unknown> }).answers;
    expect(answers.size).toBe(ANSWERS_MAX);
    // The oldest were let go; asked again they are worked out afresh, with the same result.
    expect(symbols(index, 'STOCK0')[0]).toBe('NSE:STOCK0');
  });
});
