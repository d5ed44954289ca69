import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readJsonArrayBatches, type JsonElement } from './json-array.js';

const WHAT = 'a test array';

async function elements(chunks: (Buffer | string)[]): Promise<JsonElement[]> {
  const out: JsonElement[] = [];
  for await (const batch of readJsonArrayBatches(Readable.from(chunks), WHAT)) out.push(...batch);
  return out;
}

/** `text` cut into pieces of `size` bytes (multi-byte characters cut apart too). */
function pieces(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text);
  return Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
    bytes.subarray(i * size, (i + 1) * size),
  );
}

const TRICKY = [
  { token: '1', symbol: 'M&M-EQ', name: 'say "hi", [not] {nested}', expiry: '' },
  { s: 'back\\slash\\', q: '\\"', u: '\u20b9 ₹ 🙂', n: -1.5e3 },
  { nested: { a: [1, { b: ']' }], c: '}' } },
  'a string, with a comma',
  42,
  null,
  [1, [2, [3]]],
  {},
];

describe('readJsonArrayBatches', () => {
  it('gives each element as JSON.parse does, numbered from 1, however the input is cut', async () => {
    const text = `\ufeff \n[ ${TRICKY.map((v) => JSON.stringify(v, null, 1)).join(' ,\n')} ]\n`;
    const expected = TRICKY.map((value, i) => ({ index: i + 1, value }));
    for (const size of [1, 2, 3, 7, 64, 1 << 16]) {
      expect(await elements(pieces(text, size))).toEqual(expected);
    }
    expect(await elements([text])).toEqual(expected);
  });

  it('yields elements in batches as chunks complete them, before the input ends', async () => {
    const batches: number[] = [];
    const input = Readable.from(['[{"a":1},{"a":2},', '{"a":3}', ']']);
    for await (const batch of readJsonArrayBatches(input, WHAT)) batches.push(batch.length);
    expect(batches).toEqual([2, 1]);
  });

  it('reads an empty array as no elements', async () => {
    expect(await elements(['[ ]'])).toEqual([]);
  });

  it.each([
    ['', `not ${WHAT}: the file is empty`],
    [' \n\t', `not ${WHAT}: the file is empty`],
    ['{"a":1}', `not ${WHAT}: not a JSON array (it starts with "{"a":1}")`],
    ['token,symbol\n1,SBIN', `not ${WHAT}: not a JSON array (it starts with "token,symbol 1,SBIN")`],
  ])('refuses %j before yielding anything', async (text, message) => {
    await expect(elements([text])).rejects.toThrow(message);
  });

  it.each([
    ['[{"a":1},]', 'malformed JSON: a comma before the closing ] after element 1'],
    ['[{"a":1},,{"a":2}]', 'malformed JSON: element 2 is empty'],
    ['[{"a":1}] x', 'malformed JSON: text after the closing ] of the array'],
    ['[{"a":1},{"a":', 'malformed JSON: the input ends before the array is closed (truncated?)'],
    ['[{"a":"never closed}]', 'malformed JSON: the input ends before the array is closed (truncated?)'],
    ['[{"a":1} {"b":2}]', 'malformed JSON: element 1: '],
    ['[{a:1}]', 'malformed JSON: element 1: '],
    ['[1}]', 'malformed JSON: unbalanced } in element 1'],
  ])('rejects %j', async (text, message) => {
    await expect(elements([text])).rejects.toThrow(message);
  });

  it('rejects an element over 64 KiB (an unclosed string must not swallow the file)', async () => {
    const big = `[{"a":"${'x'.repeat(70_000)}"}]`;
    await expect(elements(pieces(big, 4096))).rejects.toThrow('malformed JSON: element 1 is over 64 KiB');
  });

  it('rethrows an error of the input unchanged', async () => {
    async function* failing() {
      yield Buffer.from('[{"a":1},');
      throw Object.assign(new Error('unexpected end of file'), { code: 'Z_BUF_ERROR' });
    }
    const seen: JsonElement[] = [];
    const run = async () => {
      for await (const batch of readJsonArrayBatches(failing(), WHAT)) seen.push(...batch);
    };
    await expect(run()).rejects.toMatchObject({ code: 'Z_BUF_ERROR' });
    expect(seen).toEqual([{ index: 1, value: { a: 1 } }]);
  });

  it('closes the input when the consumer stops early', async () => {
    const input = Readable.from(['[{"a":1},', '{"a":2},', '{"a":3}]']);
    for await (const batch of readJsonArrayBatches(input, WHAT)) {
      expect(batch).toEqual([{ index: 1, value: { a: 1 } }]);
      break;
    }
    expect(input.destroyed).toBe(true);
  });
});
