/**
 * The Dhan importer's file checks: a file is recognised by its header; rows it cannot map are
 * skipped with a reason. The fixture rows and their provenance are described in dhan.test.ts.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import { collect, NSE_FILE } from '../../../../test/helpers/kite-instruments.js';
import { dhanFormat, parseDhan } from './dhan.js';

const FILE = marketFixture('dhan', 'api-scrip-master_2026-02-10.csv');
const HEADER =
  'SEM_EXM_EXCH_ID,SEM_SEGMENT,SEM_SMST_SECURITY_ID,SEM_INSTRUMENT_NAME,SEM_EXPIRY_CODE,SEM_TRADING_SYMBOL,SEM_LOT_UNITS,SEM_CUSTOM_SYMBOL,SEM_EXPIRY_DATE,SEM_STRIKE_PRICE,SEM_OPTION_TYPE,SEM_TICK_SIZE,SEM_EXPIRY_FLAG,SEM_EXCH_INSTRUMENT_TYPE,SEM_SERIES,SM_SYMBOL_NAME';

/** Parses a Dhan master given as lines after the header; the last line has no newline, as Dhan serves it. */
const parseLines = (...lines: string[]) => collect(parseDhan(Readable.from([[HEADER, ...lines].join('\n')])));

describe('a Dhan file is recognised by its header; rows it cannot map are skipped with a reason', () => {
  it('refuses a Kite file and an empty file', async () => {
    await expect(collect(dhanFormat.parse(createReadStream(NSE_FILE)))).rejects.toThrow(
      /^not a Dhan scrip master: header "instrument_token,exchange_token,.*" lacks SEM_EXM_EXCH_ID, /,
    );
    await expect(collect(parseDhan(Readable.from([''])))).rejects.toThrow(
      'not a Dhan scrip master: the file is empty',
    );
  });

  it('reads the last line without a newline and reports the lines it cannot use', async () => {
    const { rows, skips } = await parseLines(
      'NSE,D,1,OPTIDX,0,NIFTY-Feb2026-25000-CE,65.0,X,2026-02-10 14:30:00,25000.00000,XX,5.0000,W,OP,,',
      'NSE,D,2,OPTIDX,0,NIFTY-Mar2026-25000-CE,65.0,X,2026-02-10 14:30:00,25000.00000,CE,5.0000,W,OP,,',
      'NSE,D,3,OPTIDX,0,NIFTY-Feb2026-25100-CE,65.0,X,2026-02-10 14:30:00,25000.00000,CE,5.0000,W,OP,,',
      'NSE,D,4,OPTIDX,0,NIFTY 10 FEB 25000 CALL,65.0,X,2026-02-10 14:30:00,25000.00000,CE,5.0000,W,OP,,',
      'NSE,D,5,FUTIDX,0,NIFTY-Feb2026-25000-CE,65.0,X,2026-02-24 14:30:00,-0.01000,XX,5.0000,M,FUT,,',
      'NSE,D,6,OPTIDX,0,NIFTY-Feb2026-25000-CE,65.0,X,,25000.00000,CE,5.0000,W,OP,,',
      'NSE,D,7,OPTIDX,0,NIFTY-Feb2026-25000-CE,0.5,X,2026-02-10 14:30:00,25000.00000,CE,5.0000,W,OP,,',
      'NSE,D,8,SPREAD,0,NIFTY-Feb2026-FUT,65.0,X,2026-02-24 14:30:00,-0.01000,XX,5.0000,M,FUT,,',
      'NSE,M,9,OPTFUT,0,GOLD-25Feb2026-150000-CE,1.0,X,2026-02-25 20:00:00,150000.00000,CE,100.0000,M,OPTFUT,1,GOLD',
      'NCDEX,M,10,FUTCOM,0,GUARSEED-20Feb2026-FUT,1.0,X,2026-02-20 00:00:00,0.00000,XX,100.0000,M,FUTCOM,1,GUAR',
      'BSE,I,11,EQUITY,0,SENSEX,1.0,Sensex,0001-01-01,,XX,0.0100,,INDEX,X,SENSEX',
      'NSE,E,12,EQUITY,0,N2NSETEST,1.0,N2NSETEST,,,,5.0000,NA,Other,EQ,N2NSETEST',
      'NSE,E,13,EQUITY,0,SBIN,1.0,State Bank of India,,,,0,NA,ES,EQ,STATE BANK OF INDIA',
      'NSE,E,,EQUITY,0,SBIN,1.0,State Bank of India,,,,10.0000,NA,ES,EQ,STATE BANK OF INDIA',
      'NSE,E,15,EQUITY',
      'NSE,E,16,EQUITY,0,SBIN,1.0,State Bank of India,,,,10.0000,NA,ES,EQ,STATE BANK OF INDIA',
    );
    expect(rows.map((r) => r.symbol)).toEqual(['SBIN']);
    expect(skips.map((s) => [s.line, s.reason])).toEqual([
      [2, 'bad option type XX'],
      [3, 'expiry 2026-02-10 not that of NIFTY-Mar2026-25000-CE'],
      [4, 'strike 25000 not that of NIFTY-Feb2026-25100-CE'],
      [5, 'unreadable trading symbol NIFTY 10 FEB 25000 CALL'],
      [6, 'unreadable trading symbol NIFTY-Feb2026-25000-CE'],
      [7, 'missing expiry'],
      [8, 'bad lot size 0.5'],
      [9, 'unexpected instrument type SPREAD on NSE/D'],
      [10, 'unsupported segment NSE/M'],
      [11, 'unsupported segment NCDEX/M'],
      [12, 'unexpected instrument type EQUITY on BSE/I'],
      [13, 'exchange test security N2NSETEST'],
      [14, 'bad tick size 0'],
      [15, 'missing token'],
      [16, 'too few fields (4 of 16)'],
    ]);
  });

  it('propagates a truncated gzip', async () => {
    const gz = gzipSync(readFileSync(FILE));
    const input = Readable.from([gz.subarray(0, gz.length >> 1)]).pipe(createGunzip());
    await expect(collect(parseDhan(input))).rejects.toMatchObject({ code: 'Z_BUF_ERROR' });
  });
});
