/**
 * The confirmed parts of Fyers' data socket v3 (src/modules/feed/sources/fyers-stream-decode.ts):
 * the request frames byte for byte as fyers-apiv3's `data_ws.py` packs them (each expected frame
 * is written out here from the SDK's `struct.pack` calls, not from the encoder), the `hsm_key` of
 * the access token, the authentication answer, and fytoken → HSM topic. There is no Fyers tick
 * source yet (the data messages are not decoded), hence no stub.
 */
import { describe, expect, it } from 'vitest';
import {
  FYERS_HSM_URL,
  FYERS_SYMBOL_TOKEN_URL,
  hsmAck,
  hsmAuth,
  hsmFrameType,
  hsmFullMode,
  hsmKeyOf,
  hsmResume,
  hsmTopic,
  hsmTopics,
  readHsmAuth,
} from '../../src/modules/feed/sources/fyers-stream-decode.js';

const ascii = (s: string) => [...Buffer.from(s, 'ascii')];
const now = Date.UTC(2026, 7, 18, 4, 45, 0);
const jwt = (payload: object) =>
  ['eyJhbGciOiJIUzI1NiJ9', Buffer.from(JSON.stringify(payload)).toString('base64url'), 'sig'].join('.');

describe('Fyers data socket v3 (HSM): the confirmed frames', () => {
  it('names the SDK’s endpoints', () => {
    expect(FYERS_HSM_URL).toBe('wss://socket.fyers.in/hsm/v1-5/prod');
    expect(FYERS_SYMBOL_TOKEN_URL).toBe('https://api-t1.fyers.in/data/symbol-token');
  });

  it('authenticates with the hsm_key claim, not the token, and refuses an expired token', () => {
    const token = `XC4EOD67IM-100:${jwt({ hsm_key: 'f1e2d3c4b5a6', exp: now / 1000 + 3600 })}`;
    expect(hsmKeyOf(token, now)).toEqual({ key: 'f1e2d3c4b5a6' });
    expect(hsmKeyOf(jwt({ hsm_key: 'k', exp: now / 1000 - 1 }), now)).toEqual({
      error: 'access token expired',
    });
    expect(hsmKeyOf(jwt({ exp: now / 1000 + 1 }), now)).toEqual({ error: 'no hsm_key claim' });
    expect(hsmKeyOf('XC4EOD67IM-100:opaque', now)).toEqual({ error: 'not a JWT' });
    // buffer_size - 2 = 18 + len(key) + len(source) - 2; ReqType 1; FieldCount 4.
    expect([...hsmAuth('abc', 'algodesk')]).toEqual([
      ...[0, 27, 1, 4],
      ...[1, 0, 3, ...ascii('abc')],
      ...[2, 0, 1, ...ascii('P')],
      ...[3, 0, 1, 1],
      ...[4, 0, 8, ...ascii('algodesk')],
    ]);
  });

  it('packs full mode and channel resume for channel 11 as the SDK does (length 0)', () => {
    const bits = [0, 0, 0, 0, 0, 0, 0x08, 0x00]; // 1 << 11, uint64 BE
    expect([...hsmFullMode()]).toEqual([0, 0, 12, 2, 1, 0, 8, ...bits, 2, 0, 1, 70]);
    expect([...hsmResume()]).toEqual([0, 0, 8, 1, 1, 0, 8, ...bits]);
  });

  it('subscribes and unsubscribes topics: count, then length-prefixed ASCII names, then the channel', () => {
    const a = 'sf|nse_cm|3045';
    const b = 'dp|nse_fo|43651';
    const list = [0, 2, a.length, ...ascii(a), b.length, ...ascii(b)];
    expect([...hsmTopics(4, [a, b])]).toEqual([
      0,
      2 + 3 + list.length + 4,
      4,
      2,
      1,
      0,
      list.length,
      ...list,
      2,
      0,
      1,
      11,
    ]);
    expect(hsmTopics(5, [a])[2]).toBe(5);
    expect([...hsmAck(300)]).toEqual([0, 9, 3, 1, 1, 0, 4, 0, 0, 1, 44]);
  });

  it('reads the authentication answer: K and the ack count', () => {
    // As __auth_resp reads it: [len][type 1][count] field 1 `K`, field 2 uint32 ack_count.
    const answer = Buffer.from([0, 13, 1, 2, 1, 0, 1, ...ascii('K'), 2, 0, 4, 0, 0, 0, 25]);
    expect(hsmFrameType(answer)).toBe(1);
    expect(readHsmAuth(answer)).toEqual({ ok: true, ackCount: 25 });
    expect(readHsmAuth(Buffer.from([0, 6, 1, 1, 1, 0, 1, ...ascii('E')]))).toEqual({
      ok: false,
      ackCount: 0,
    });
    expect(readHsmAuth(Buffer.from([0, 1, 1]))).toBeUndefined();
  });

  it('derives SymbolUpdate and DepthUpdate topics from a fytoken (segment, then the exchange token)', () => {
    expect(hsmTopic('sf', '10100000003045')).toBe('sf|nse_cm|3045');
    expect(hsmTopic('dp', '101126112943651')).toBe('dp|nse_fo|43651');
    expect(hsmTopic('sf', '1120260130444208')).toBe('sf|mcx_fo|444208');
    expect(hsmTopic('sf', '99990000001')).toBeUndefined();
    expect(hsmTopic('sf', 'NSE:SBIN-EQ')).toBeUndefined();
  });
});
