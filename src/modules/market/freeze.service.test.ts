import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { marketFixture } from '../../../test/helpers/market-fixtures.js';
import { AppError } from '../../platform/errors.js';
import { normaliseFreezeExchange, parseFreezeCsv } from './freeze.service.js';

const lines = (...l: string[]) => Buffer.from(l.join('\n'));

describe("parseFreezeCsv: NSE's qtyfreeze layout", () => {
  it('reads the real Dec-2025 file: 213 symbols, padded headers and values trimmed', async () => {
    const { rows, skipped } = await parseFreezeCsv(
      readFileSync(marketFixture('freeze_qty', 'nse_qtyfreeze_2025-12.csv')),
    );
    expect(rows).toHaveLength(213);
    expect(skipped).toEqual([]);
    const qty = Object.fromEntries(rows.map((r) => [r.symbol, r.freeze_qty]));
    expect(qty).toMatchObject({
      BANKNIFTY: 600,
      FINNIFTY: 1200,
      MIDCPNIFTY: 2800,
      NIFTY: 1800,
      NIFTYNXT50: 600,
      YESBANK: 933000,
    });
    expect(qty['M&M']).toBeGreaterThan(0);
    expect(qty['BAJAJ-AUTO']).toBeGreaterThan(0);
    expect(rows[0]).toEqual({ symbol: 'BANKNIFTY', freeze_qty: 600, line: 2 });
  });

  it('finds columns by header name in any order, with a BOM, CRLF and a FREEZE_QTY header', async () => {
    const { rows } = await parseFreezeCsv(
      Buffer.from('\uFEFFfreeze_qty , Symbol ,S.No.\r\n1800,nifty,1\r\n600 , banknifty,2\r\n'),
    );
    expect(rows.map((r) => [r.symbol, r.freeze_qty, r.line])).toEqual([
      ['NIFTY', 1800, 2],
      ['BANKNIFTY', 600, 3],
    ]);
  });

  it('skips junk lines with their line number and reason', async () => {
    const { rows, skipped } = await parseFreezeCsv(
      lines(
        'report generated today',
        'S.No.,SYMBOL,VOL_FRZ_QTY',
        '1,NIFTY,1800',
        '2,"BANK,NIFTY,600',
        '3,SBIN,"12,000"',
        '4,TCS,12.0',
        '5,INFY,12.5',
        '6,WIPRO,0',
        '7,HDFC BANK,100',
        '8,nifty,5',
        '9,ITC',
      ),
    );
    expect(rows.map((r) => `${r.symbol}:${r.freeze_qty}`)).toEqual(['NIFTY:1800', 'SBIN:12000', 'TCS:12']);
    expect(skipped).toEqual([
      { line: 1, reason: 'before the header row' },
      { line: 4, reason: 'malformed CSV line (unbalanced quote)' },
      { line: 7, reason: 'VOL_FRZ_QTY "12.5" is not a positive whole number' },
      { line: 8, reason: 'VOL_FRZ_QTY "0" is not a positive whole number' },
      { line: 9, reason: 'invalid SYMBOL "HDFC BANK"' },
      { line: 10, reason: 'duplicate SYMBOL NIFTY (first on line 3)' },
      { line: 11, reason: 'VOL_FRZ_QTY "" is not a positive whole number' },
    ]);
  });

  it('refuses a file without the SYMBOL and VOL_FRZ_QTY headers near the top', async () => {
    const cases = [
      lines('SYMBOL,QTY', 'NIFTY,1'),
      lines('NIFTY,1800'),
      Buffer.alloc(0),
      lines(...Array.from({ length: 12 }, () => 'junk'), 'SYMBOL,VOL_FRZ_QTY', 'NIFTY,1'),
    ];
    for (const c of cases) {
      await expect(parseFreezeCsv(c)).rejects.toThrow(/no header row with SYMBOL and VOL_FRZ_QTY/);
    }
  });

  it('bounds what it echoes from hostile cells', async () => {
    const { skipped } = await parseFreezeCsv(lines('SYMBOL,VOL_FRZ_QTY', `NIFTY,${'9'.repeat(500)}`));
    expect(skipped[0]!.reason).toBe(`VOL_FRZ_QTY "${'9'.repeat(20)}…" is not a positive whole number`);
  });
});

describe('freeze exchanges: the F&O segments only', () => {
  it('trims and upper-cases NFO, BFO, CDS, BCD, MCX, NCDEX; refuses the rest naming the code', () => {
    expect(normaliseFreezeExchange(' nfo ')).toBe('NFO');
    for (const e of ['BFO', 'CDS', 'BCD', 'MCX', 'NCDEX']) expect(normaliseFreezeExchange(e)).toBe(e);
    for (const e of ['NSE', 'BSE', 'NCO', 'CRYPTO', '']) {
      expect(() => normaliseFreezeExchange(e)).toThrow(AppError);
    }
    expect(() => normaliseFreezeExchange('NSE')).toThrow(/"NSE" is not an F&O exchange/);
  });
});
