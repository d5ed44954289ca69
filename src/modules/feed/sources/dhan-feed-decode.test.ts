/**
 * The Dhan Live Market Feed decoder (./dhan-feed-decode.ts) on hand-built buffers, byte by byte
 * from dhanhq.co/docs/v2/live-market-feed: the response header, several packets in one frame, a
 * cut-off rest, a response code with no documented layout, float32 rounding by segment, and the
 * JSON requests.
 */
import { describe, expect, it } from 'vitest';
import {
  dhanRequests,
  dhanSegmentOf,
  dhanTick,
  readDhanFrame,
  roundPrice,
  type DhanInstrumentState,
} from './dhan-feed-decode.js';

/** An 8-byte header: code, length (LE int16), segment enum, security id (LE int32). */
function head(code: number, length: number, segment: number, securityId: number): Buffer {
  const b = Buffer.alloc(8);
  b[0] = code;
  b.writeUInt16LE(length, 1);
  b[3] = segment;
  b.writeUInt32LE(securityId, 4);
  return b;
}
function ticker(segment: number, id: number, ltp: number, ltt: number): Buffer {
  const body = Buffer.alloc(8);
  body.writeFloatLE(ltp, 0);
  body.writeUInt32LE(ltt, 4);
  return Buffer.concat([head(2, 16, segment, id), body]);
}

describe('Dhan feed decoding', () => {
  it('reads several packets of one frame by their documented sizes', () => {
    const oi = Buffer.concat([head(5, 12, 2, 35003), Buffer.from([0x40, 0x42, 0x0f, 0x00])]); // 1,000,000
    const frame = Buffer.concat([ticker(1, 1333, 1642.35, 1_770_698_700), oi, ticker(0, 13, 25000.05, 0)]);
    expect([...readDhanFrame(frame)]).toEqual([
      { kind: 'ticker', segment: 1, securityId: 1333, ltp: 1642.35, ltt: 1_770_698_700_000 },
      { kind: 'oi', segment: 2, securityId: 35003, oi: 1_000_000 },
      // LTT 0 is "not given".
      { kind: 'ticker', segment: 0, securityId: 13, ltp: 25000.05, ltt: null },
    ]);
  });

  it('reports a cut-off packet and skips an undocumented code by its length field', () => {
    const status = head(7, 8, 0, 0); // market status: header only
    const cut = ticker(1, 1333, 10, 0).subarray(0, 11);
    expect([...readDhanFrame(Buffer.concat([status, ticker(1, 7, 5.5, 0), cut]))]).toEqual([
      { kind: 'unknown', code: 7, length: 8 },
      { kind: 'ticker', segment: 1, securityId: 7, ltp: 5.5, ltt: null },
      { kind: 'truncated', code: 2, bytes: 11 },
    ]);
    // An unknown code with no usable length ends the frame.
    expect([...readDhanFrame(Buffer.concat([head(99, 0, 0, 0), ticker(1, 7, 5.5, 0)]))]).toEqual([
      { kind: 'unknown', code: 99, length: 0 },
    ]);
  });

  it('reads a Feed Disconnect reason (int16 after the header)', () => {
    const b = Buffer.concat([head(50, 10, 0, 0), Buffer.from([0x25, 0x03])]); // 0x0325 = 805
    expect([...readDhanFrame(b)]).toEqual([{ kind: 'disconnect', segment: 0, securityId: 0, reason: 805 }]);
  });

  it('rounds float32 prices to 2 decimals, 4 on the currency segments', () => {
    const f32 = (v: number) => {
      const b = Buffer.alloc(4);
      b.writeFloatLE(v);
      return b.readFloatLE();
    };
    expect(f32(801.2)).not.toBe(801.2);
    expect(roundPrice(f32(801.2), 1)).toBe(801.2);
    expect(roundPrice(f32(83.2525), 3)).toBe(83.2525);
    expect(roundPrice(f32(83.2525), 7)).toBe(83.2525);
    expect(roundPrice(f32(83.2525), 5)).toBe(83.25);
  });

  it('keeps prev close and OI per instrument and puts them in quote ticks', () => {
    const state: DhanInstrumentState = { prevClose: null, oi: null };
    const q = Buffer.alloc(50);
    head(4, 50, 2, 35003).copy(q);
    q.writeFloatLE(101.5, 8);
    q.writeUInt16LE(50, 12);
    q.writeUInt32LE(1_770_698_700, 14);
    q.writeFloatLE(100.25, 18);
    q.writeUInt32LE(123_456, 22);
    q.writeUInt32LE(2_000, 26); // total sell
    q.writeUInt32LE(3_000, 30); // total buy
    [99, 102.75, 104, 98.5].forEach((v, n) => q.writeFloatLE(v, 34 + 4 * n)); // open, day close, high, low
    const pc = Buffer.alloc(16);
    head(6, 16, 2, 35003).copy(pc);
    pc.writeFloatLE(97.65, 8);
    const packets = [...readDhanFrame(Buffer.concat([pc, q]))];
    expect(dhanTick(packets[0]!, state, 5)).toBeUndefined();
    expect(state).toEqual({ prevClose: 97.65, oi: null });
    expect(dhanTick(packets[1]!, state, 5)).toStrictEqual({
      mode: 2,
      tick: {
        ltp: 101.5,
        ltt: 1_770_698_700_000,
        timestamp: 5,
        open: 99,
        high: 104,
        low: 98.5,
        close: 97.65,
        volume: 123_456,
        average_price: 100.25,
        last_quantity: 50,
        total_buy_quantity: 3_000,
        total_sell_quantity: 2_000,
      },
    });
  });

  it('maps our exchanges to Dhan segments and builds requests of at most 100 instruments', () => {
    expect(
      ['NSE', 'BSE', 'NFO', 'BFO', 'CDS', 'BCD', 'MCX', 'NSE_INDEX', 'BSE_INDEX', 'NCDEX'].map(dhanSegmentOf),
    ).toEqual([
      'NSE_EQ',
      'BSE_EQ',
      'NSE_FNO',
      'BSE_FNO',
      'NSE_CURRENCY',
      'BSE_CURRENCY',
      'MCX_COMM',
      'IDX_I',
      'IDX_I',
      undefined,
    ]);
    const list = Array.from({ length: 201 }, (_, n) => ({
      ExchangeSegment: 'NSE_EQ',
      SecurityId: `${n + 1}`,
    }));
    const msgs = dhanRequests(21, list).map(
      (m) => JSON.parse(m) as { RequestCode: number; InstrumentCount: number },
    );
    expect(msgs.map((m) => [m.RequestCode, m.InstrumentCount])).toEqual([
      [21, 100],
      [21, 100],
      [21, 1],
    ]);
    expect(dhanRequests(15, [])).toEqual([]);
  });
});
