/**
 * SmartStream's bytes and requests (./angel-stream-decode.ts) on hand-built buffers, byte offsets
 * as smartapi.angelone.in/docs/WebSocket2's response tables give them: the LTP packet, a packet cut
 * short, a mode not read, the token field, the last trade time's unit, the exchange types, the
 * request JSON and the error answer.
 */
import { describe, expect, it } from 'vitest';
import {
  exchangeTypeOf,
  groupTokens,
  indexTick,
  isStreamToken,
  priceDivisor,
  readPacket,
  readStreamError,
  streamRequest,
} from './angel-stream-decode.js';

const NOW = Date.UTC(2026, 7, 18, 4, 45, 0);
const now = () => NOW;

/** A 51-byte LTP packet: mode, exchange type, token, sequence, exchange time, LTP. */
function ltpPacket(exchangeType: number, token: string, ltp: bigint, exchangeTime = 0n): Buffer {
  const b = Buffer.alloc(51);
  b.writeUInt8(1, 0);
  b.writeUInt8(exchangeType, 1);
  b.write(token, 2, 'latin1');
  b.writeBigInt64LE(42n, 27);
  b.writeBigInt64LE(exchangeTime, 35);
  b.writeBigInt64LE(ltp, 43);
  return b;
}

describe('SmartStream packets', () => {
  it('reads an LTP packet: NUL-ended token, paise, the exchange time or the clock', () => {
    expect(readPacket(ltpPacket(1, '3045', 80125n, BigInt(NOW - 2000)), now)).toStrictEqual({
      kind: 'packet',
      packet: {
        mode: 1,
        exchangeType: 1,
        token: '3045',
        sequence: 42,
        tick: { ltp: 801.25, ltt: null, timestamp: NOW - 2000 },
      },
    });
    const noTime = readPacket(ltpPacket(2, '43650', 12345n), now);
    expect(noTime.kind === 'packet' && noTime.packet.tick).toStrictEqual({
      ltp: 123.45,
      ltt: null,
      timestamp: NOW,
    });
  });

  it('divides currency prices by 10^7 and reads a 25-character token with no NUL', () => {
    const token = '1234567890123456789012345';
    const frame = readPacket(ltpPacket(13, token, 862_512_500n), now);
    expect(frame.kind === 'packet' && [frame.packet.token, frame.packet.tick.ltp]).toEqual([token, 86.25125]);
    expect([priceDivisor(13), priceDivisor(5)]).toEqual([10_000_000, 100]);
  });

  it('reports a packet shorter than its mode and a mode it does not read', () => {
    const quote = Buffer.alloc(100);
    quote.writeUInt8(2, 0);
    expect(readPacket(quote, now)).toEqual({ kind: 'short', mode: 2, bytes: 100, need: 123 });
    const depth20 = Buffer.alloc(443);
    depth20.writeUInt8(4, 0);
    expect(readPacket(depth20, now)).toEqual({ kind: 'unknown', mode: 4, bytes: 443 });
    expect(readPacket(Buffer.alloc(0), now)).toEqual({ kind: 'unknown', mode: 0, bytes: 0 });
  });

  it('reads the SnapQuote last trade time in seconds or ms, and a zero as none', () => {
    const snap = (ltt: bigint) => {
      const b = Buffer.alloc(379);
      b.writeUInt8(3, 0);
      b.writeUInt8(2, 1);
      b.write('43650', 2, 'latin1');
      b.writeBigInt64LE(ltt, 123);
      b.writeBigInt64LE(1_500n, 131);
      // One offer (flag 1) at the third depth slot: 12 lots at ₹123.45 from 4 orders.
      b.writeInt16LE(1, 147 + 40);
      b.writeBigInt64LE(12n, 147 + 42);
      b.writeBigInt64LE(12_345n, 147 + 50);
      b.writeInt16LE(4, 147 + 58);
      const f = readPacket(b, now);
      if (f.kind !== 'packet') throw new Error(f.kind);
      return f.packet.tick;
    };
    expect(snap(BigInt(NOW / 1000)).ltt).toBe(NOW);
    expect(snap(BigInt(NOW)).ltt).toBe(NOW);
    expect(snap(0n).ltt).toBeNull();
    expect(snap(0n).oi).toBe(1_500);
    expect(snap(0n).depth).toEqual({ buy: [], sell: [{ price: 123.45, quantity: 12, orders: 4 }] });
  });

  it('leaves an index tick its prices only', () => {
    const tick = { ltp: 1, ltt: null, timestamp: 2, open: 3, high: 4, low: 5, close: 6, volume: 0, oi: 0 };
    expect(indexTick(tick)).toStrictEqual({
      ltp: 1,
      ltt: null,
      timestamp: 2,
      open: 3,
      high: 4,
      low: 5,
      close: 6,
    });
    expect(indexTick({ ltp: 1, ltt: null, timestamp: 2 })).toStrictEqual({ ltp: 1, ltt: null, timestamp: 2 });
  });
});

describe('SmartStream requests', () => {
  it('maps our exchanges to exchange types, indices on the cash segment', () => {
    const types = [
      'NSE',
      'NSE_INDEX',
      'NFO',
      'BSE',
      'BSE_INDEX',
      'BFO',
      'MCX',
      'NCDEX',
      'CDS',
      'BCD',
      'NCO',
    ].map(exchangeTypeOf);
    expect(types).toEqual([1, 1, 2, 3, 3, 4, 5, 7, 13, undefined, undefined]);
    expect(exchangeTypeOf('toString')).toBeUndefined();
  });

  it('groups tokens by exchange type and writes the documented JSON', () => {
    const groups = groupTokens([
      [13, '1147'],
      [1, '3045'],
      [1, '99926000'],
    ]);
    expect(JSON.parse(streamRequest('ad00000001', 1, 2, groups))).toEqual({
      correlationID: 'ad00000001',
      action: 1,
      params: {
        mode: 2,
        tokenList: [
          { exchangeType: 1, tokens: ['3045', '99926000'] },
          { exchangeType: 13, tokens: ['1147'] },
        ],
      },
    });
    expect([
      isStreamToken('3045'),
      isStreamToken(''),
      isStreamToken('NSE:3045'),
      isStreamToken('1'.repeat(26)),
    ]).toEqual([true, false, false, false]);
  });

  it('reads an error answer and nothing else', () => {
    expect(
      readStreamError('{"correlationID":"abcde12345","errorCode":"E1002","errorMessage":"Limit"}'),
    ).toEqual({
      correlationID: 'abcde12345',
      errorCode: 'E1002',
      errorMessage: 'Limit',
    });
    expect(readStreamError('pong')).toBeUndefined();
    expect(readStreamError('{"hello":1}')).toBeUndefined();
    expect(readStreamError('[1]')).toBeUndefined();
  });
});
