import { Readable } from 'node:stream';
import { createGunzip, createGzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { columnIndex, describeHeader, readCsv, type CsvRecord } from './csv.js';

async function all(input: AsyncIterable<Buffer | string> | NodeJS.ReadableStream): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const item of readCsv(input)) out.push(item);
  return out;
}

function strings(...parts: string[]): AsyncIterable<string> {
  return Readable.from(parts, { objectMode: false });
}

describe('readCsv streams records with 1-based line numbers', () => {
  it('strips a BOM, reads CRLF and drops blank lines while counting them', async () => {
    const items = await all(strings('\uFEFFa,b\r\n1,2\r\n\r\n"x, y",3\r\n'));
    expect(items).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
      { line: 4, fields: ['x, y', '3'] },
    ]);
  });

  it('accepts rows with more or fewer columns than the header', async () => {
    const items = await all(strings('a,b,c\n1\n1,2,3,4\n'));
    expect(items.map((i) => i.fields.length)).toEqual([3, 1, 4]);
  });

  it('reads records split across chunks at any byte, including inside a UTF-8 character', async () => {
    const text = 'name,city\nज़ेरोधा,बेंगलुरु\n"quoted ""q""",x\n';
    const bytes = Buffer.from(text);
    const chunks = [...bytes].map((b) => Buffer.from([b]));
    const items = await all(Readable.from(chunks));
    expect(items).toEqual([
      { line: 1, fields: ['name', 'city'] },
      { line: 2, fields: ['ज़ेरोधा', 'बेंगलुरु'] },
      { line: 3, fields: ['quoted "q"', 'x'] },
    ]);
  });
});

describe('readCsv keeps stray quotes as text so that the importer can judge the row', () => {
  it('reads quotes inside or after a field as characters', async () => {
    const items = await all(strings('a,b\n1,2\n"x"y,3\nab"c,4\n5,6\n'));
    expect(items).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
      { line: 3, fields: ['"x"y', '3'] },
      { line: 4, fields: ['ab"c', '4'] },
      { line: 5, fields: ['5', '6'] },
    ]);
  });
});

describe('readCsv aborts when the rest of the file cannot be trusted', () => {
  it('throws on a quote that is never closed', async () => {
    await expect(all(strings('a,b\n1,2\n"unterminated,3\n4,5\n'))).rejects.toThrow(
      /malformed CSV.*Quote Not Closed/,
    );
  });

  it('throws at once on a record over 64 KiB instead of buffering the file', async () => {
    const body = `a,b\n"${'x'.repeat(70_000)}\n` + '1,2\n'.repeat(10);
    await expect(all(strings(body))).rejects.toThrow(/malformed CSV: Max Record Size.*line 2/);
  });

  it('rethrows an error of the input stream (a truncated gzip)', async () => {
    const gz = gzipSync(Buffer.from('a,b\n' + '1,2\n'.repeat(50_000)));
    const truncated = Readable.from([gz.subarray(0, gz.length - 40)]).pipe(createGunzip());
    await expect(all(truncated)).rejects.toMatchObject({ code: 'Z_BUF_ERROR' });
  });

  it('rethrows an error thrown by an async-iterable input', async () => {
    async function* failing(): AsyncGenerator<string> {
      yield 'a,b\n1,2\n';
      throw new Error('disk went away');
    }
    await expect(all(failing())).rejects.toThrow('disk went away');
  });
});

describe('readCsv releases its input when the consumer stops early', () => {
  it('destroys the source stream after a break', async () => {
    const source = Readable.from(
      (function* () {
        yield 'a,b\n';
        for (let i = 0; i < 1_000_000; i++) yield `${i},${i}\n`;
      })(),
    );
    const gz = source.pipe(createGzip()).pipe(createGunzip());
    let n = 0;
    for await (const _ of readCsv(gz)) {
      if (++n === 10) break;
    }
    await new Promise((r) => setImmediate(r));
    expect(gz.destroyed).toBe(true);
  });
});

describe('columnIndex finds columns by name', () => {
  it('maps names case- and space-insensitively and lists the missing ones', () => {
    expect(columnIndex([' Token ', 'symbol', 'x'], ['token', 'symbol', 'lot'] as const)).toEqual({
      index: { token: 0, symbol: 1 },
      missing: ['lot'],
    });
  });

  it('describes a header for an error message, cut to a readable length', () => {
    expect(describeHeader(['a', 'b'])).toBe('header "a,b"');
    expect(describeHeader(undefined)).toBe('the file is empty');
    expect(describeHeader(['x'.repeat(500)])).toHaveLength('header ""'.length + 161);
  });
});
