/**
 * The domain facts are written once: the derived sets say what they should, and a scan of `src/`
 * fails when a list of exchanges, products, price types, actions or brokers is written out again
 * anywhere outside `src/domain/` (the day two copies differ, one of them is wrong).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BROKERS, isBroker } from './brokers.js';
import { DERIVATIVE_TYPES, INSTRUMENT_TYPES, instrumentKind, OPTION_TYPES } from './instruments.js';
import {
  CASH_EXCHANGES,
  CURRENCY_HOLIDAY_EXCHANGES,
  DERIVATIVE_EXCHANGES,
  EXCHANGES,
  EXCHANGE_SEGMENTS,
  FNO_ORDER_EXCHANGES,
  FOUR_DECIMAL_EXCHANGES,
  INDEX_EXCHANGES,
  indexExchangeOf,
  NSE_CALENDAR_EXCHANGES,
  ORDER_EXCHANGES,
} from './exchanges.js';
import {
  ACTIONS,
  closingAction,
  hasLimitPrice,
  hasTriggerPrice,
  isMarketPriced,
  PRICE_TYPES,
  PRODUCTS,
} from './orders.js';

describe('the exchange table and what is derived from it', () => {
  it('every exchange has a segment; the derived sets partition them as the markets do', () => {
    expect(Object.keys(EXCHANGE_SEGMENTS).sort()).toEqual([...EXCHANGES].sort());
    expect([...CASH_EXCHANGES]).toEqual(['NSE', 'BSE']);
    expect([...INDEX_EXCHANGES]).toEqual(['NSE_INDEX', 'BSE_INDEX']);
    expect([...DERIVATIVE_EXCHANGES]).toEqual(['NFO', 'BFO', 'CDS', 'BCD', 'MCX', 'NCO', 'NCDEX']);
    expect([...FOUR_DECIMAL_EXCHANGES]).toEqual(['CDS', 'BCD']);
  });

  it('orders name every trading exchange but NCO; lots, freeze quantities and derivative legs apply to their derivatives', () => {
    expect(ORDER_EXCHANGES.every((e) => !INDEX_EXCHANGES.has(e))).toBe(true);
    expect([...FNO_ORDER_EXCHANGES]).toEqual(['NFO', 'BFO', 'CDS', 'BCD', 'MCX', 'NCDEX']);
  });

  it('holiday calendars: NSE/BSE and their derivatives share one, currency closes on more days', () => {
    expect(NSE_CALENDAR_EXCHANGES).toEqual(['NSE', 'BSE', 'NFO', 'BFO', 'CDS', 'BCD']);
    expect(CURRENCY_HOLIDAY_EXCHANGES).toEqual(['CDS', 'BCD']);
    expect([indexExchangeOf('NSE'), indexExchangeOf('BSE'), indexExchangeOf('MCX')]).toEqual([
      'NSE_INDEX',
      'BSE_INDEX',
      undefined,
    ]);
  });
});

describe('the order vocabulary', () => {
  it('says which prices each price type carries', () => {
    expect(PRICE_TYPES.filter(hasLimitPrice)).toEqual(['LIMIT', 'SL']);
    expect(PRICE_TYPES.filter(hasTriggerPrice)).toEqual(['SL', 'SL-M']);
    expect(PRICE_TYPES.filter(isMarketPriced)).toEqual(['MARKET', 'SL-M']);
    expect([closingAction(3), closingAction(-2)]).toEqual(['SELL', 'BUY']);
    expect([isBroker('zerodha'), isBroker('nuvama')]).toEqual([true, false]);
  });

  it('instrument types: the options and the derivative leg types are among them; each has a kind', () => {
    expect(OPTION_TYPES.every((t) => INSTRUMENT_TYPES.includes(t))).toBe(true);
    expect([...DERIVATIVE_TYPES].sort()).toEqual(['CE', 'FUT', 'PE']);
    expect(INSTRUMENT_TYPES.map(instrumentKind)).toEqual(['equity', 'index', 'future', 'option', 'option']);
  });
});

/** Every value list the scan looks for, by name. */
const FACTS: Record<string, readonly string[]> = {
  exchanges: EXCHANGES,
  products: PRODUCTS,
  'price types': PRICE_TYPES,
  actions: ACTIONS,
  brokers: BROKERS,
  'instrument types': INSTRUMENT_TYPES,
};

const SRC = join(import.meta.dirname, '..');

/** `src/` files outside `src/domain/`, tests excluded (a test may spell out what it expects). */
function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.startsWith(`domain`))
    .map((f) => join(SRC, f));
}

/** Comments dropped: a comment may name the members of a set. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/**
 * Places where two members of one fact stand next to each other in a list or a union
 * (`'NFO', 'BFO'`, `'BUY' | 'SELL'`, `Type.Literal('CNC'), Type.Literal('MIS')`): a copy of the set.
 */
function literalCopies(text: string): { fact: string; text: string }[] {
  const found: { fact: string; text: string }[] = [];
  const member = String.raw`(?:Type\.Literal\()?'([A-Za-z_-]+)'\)?`;
  const pair = new RegExp(`${member}\\s*[,|]\\s*${member}`, 'g');
  for (const m of code(text).matchAll(pair)) {
    for (const [fact, values] of Object.entries(FACTS)) {
      if (m[1] !== m[2] && values.includes(m[1]!) && values.includes(m[2]!)) found.push({ fact, text: m[0] });
    }
  }
  return found;
}

describe('facts are written once: src/domain/ is the only place each set is written', () => {
  it('the scan finds a copy where there is one (and none in a comparison)', () => {
    expect(literalCopies(`const X = new Set(['NFO', 'BFO']);`)).toEqual([
      { fact: 'exchanges', text: `'NFO', 'BFO'` },
    ]);
    expect(literalCopies(`type P = 'CNC' | 'NRML';`)).toHaveLength(1);
    expect(literalCopies(`Type.Union([Type.Literal('BUY'),\n  Type.Literal('SELL')])`)).toHaveLength(1);
    expect(literalCopies(`if (a === 'NSE' || b === 'BSE') return;`)).toEqual([]);
    expect(literalCopies(`/** NFO, BFO */ // 'NFO', 'BFO'`)).toEqual([]);
  });

  it('no file of src/ outside src/domain/ writes out a list of exchanges, products, price types, actions, brokers or instrument types', () => {
    const copies = sourceFiles().flatMap((file) =>
      literalCopies(readFileSync(file, 'utf8')).map((c) => `${relative(SRC, file)}: ${c.fact}: ${c.text}`),
    );
    expect(copies).toEqual([]);
  });

  it('the webhook body bound is written once', () => {
    const files = sourceFiles().filter((f) => /\b16_?384\b/.test(code(readFileSync(f, 'utf8'))));
    expect(files.map((f) => relative(SRC, f))).toEqual([]);
  });
});
