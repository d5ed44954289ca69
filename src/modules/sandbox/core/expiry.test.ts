import { describe, expect, it } from 'vitest';
import { DEFAULT_LEVERAGE } from '../../../domain/sandbox.js';
import { DEFAULT_BROKERAGE_PLAN } from '../../../domain/charges.js';

const TERMS = { leverage: DEFAULT_LEVERAGE, brokerage: DEFAULT_BROKERAGE_PLAN };
import { istDateOf, istInstant, type ExchangeSession } from '../../market/timings.service.js';
import type { AccountRow, PositionRow } from '../store/rows.js';
import {
  closeWindow,
  expiresAt,
  expiryInstant,
  planSettlement,
  settlementPrice,
  underlyingClose,
  underlyingPlaces,
  type ExpiringContract,
} from './expiry.js';
import { rupeesToMoney } from './money.js';
import type { SessionOn } from './sessions.js';

const R = rupeesToMoney;
/** A calendar: weekdays 09:15–`end` (NFO 15:40, NSE 15:30), `closed` dates shut, `special` hours. */
function calendar(closed: string[] = [], special: Record<string, [string, string]> = {}): SessionOn {
  return (exchange, date) => {
    const end = exchange === 'NFO' ? '15:40' : '15:30';
    const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
    const shut = (reason: ExchangeSession['reason']): ExchangeSession => ({
      exchange,
      date,
      open: false,
      reason,
      start_time: null,
      end_time: null,
      start_ms: null,
      end_ms: null,
      holiday: null,
    });
    const open = (reason: ExchangeSession['reason'], s: string, e: string): ExchangeSession => ({
      exchange,
      date,
      open: true,
      reason,
      start_time: s,
      end_time: e,
      start_ms: istInstant(date, s),
      end_ms: istInstant(date, e),
      holiday: null,
    });
    if (special[date]) return open('special_session', ...special[date]);
    if (weekday === 0 || weekday === 6) return shut('weekend');
    if (closed.includes(date)) return shut('holiday');
    return open('regular', '09:15', end);
  };
}

const option = (type: 'CE' | 'PE', strike = 26_000): ExpiringContract => ({
  symbol: `NIFTY18AUG26${strike}${type}`,
  exchange: 'NFO',
  expiryDate: '2026-08-18',
  instrumenttype: type,
  strike,
  underlying: 'NIFTY',
  name: 'NIFTY',
});

describe('expiry-settlement: when a contract expires', () => {
  it('at the end of its exchange’s session on its expiry date', () => {
    expect(expiryInstant('NFO', '2026-08-18', calendar())).toBe(istInstant('2026-08-18', '15:40'));
    expect(expiresAt(option('CE'), calendar())).toBe(istInstant('2026-08-18', '15:40'));
  });

  it('at a special session’s end when the day has one', () => {
    const cal = calendar([], { '2026-08-18': ['18:00', '19:00'] });
    expect(expiryInstant('NFO', '2026-08-18', cal)).toBe(istInstant('2026-08-18', '19:00'));
  });

  it('on a holiday, still that date, at the exchange’s normal close', () => {
    expect(expiryInstant('NFO', '2026-08-18', calendar(['2026-08-18']))).toBe(
      istInstant('2026-08-18', '15:40'),
    );
  });

  it('cash instruments and contracts without a date never expire', () => {
    expect(expiresAt({ exchange: 'NSE', expiryDate: null }, calendar())).toBeUndefined();
    expect(expiresAt({ exchange: 'NFO', expiryDate: null }, calendar())).toBeUndefined();
  });
});

describe('expiry-settlement: the underlying and its close', () => {
  it('an index option’s underlying is looked up on NSE_INDEX, then NSE', () => {
    expect(underlyingPlaces(option('CE'))).toEqual([
      { symbol: 'NIFTY', exchange: 'NSE_INDEX' },
      { symbol: 'NIFTY', exchange: 'NSE' },
    ]);
  });

  const cal = calendar();
  const expiredAt = istInstant('2026-08-18', '15:40');
  const window = closeWindow('NSE_INDEX', '2026-08-18', expiredAt, cal);
  const q = (at: number, ltp: number, close?: number) => ({
    ltp,
    high: ltp,
    low: ltp,
    timestamp: at,
    ...(close === undefined ? {} : { close }),
  });

  it('a quote of the expiry day’s session or after its close, before the next open, gives its LTP', () => {
    expect(window.from).toBe(istInstant('2026-08-18', '09:15'));
    expect(window.nextOpenAt).toBe(istInstant('2026-08-19', '09:15'));
    expect(underlyingClose(q(istInstant('2026-08-18', '15:30'), 26_212.35), window)).toBe(R(26_212.35));
    expect(underlyingClose(q(istInstant('2026-08-19', '08:00'), 26_212.35), window)).toBe(R(26_212.35));
  });

  it('a quote of the next session gives its previous close; an older or later one nothing', () => {
    expect(underlyingClose(q(istInstant('2026-08-19', '10:00'), 26_300, 26_212.35), window)).toBe(
      R(26_212.35),
    );
    expect(underlyingClose(q(istInstant('2026-08-19', '10:00'), 26_300), window)).toBeUndefined();
    expect(underlyingClose(q(istInstant('2026-08-20', '10:00'), 26_300, 26_250), window)).toBeUndefined();
    expect(underlyingClose(q(istInstant('2026-08-17', '15:30'), 26_100), window)).toBeUndefined();
    expect(underlyingClose(undefined, window)).toBeUndefined();
  });

  it('on a holiday expiry the close is the last session’s before it', () => {
    const holiday = calendar(['2026-08-18']);
    const at = expiryInstant('NFO', '2026-08-18', holiday);
    const w = closeWindow('NSE_INDEX', '2026-08-18', at, holiday);
    expect(istDateOf(w.from)).toBe('2026-08-17');
    expect(underlyingClose(q(istInstant('2026-08-17', '15:30'), 26_100), w)).toBe(R(26_100));
  });
});

describe('expiry-settlement: settlement prices', () => {
  const close = R(26_212.35);
  it('a call at max(0, close − strike), a put at max(0, strike − close), a future at the close', () => {
    expect(settlementPrice(option('CE'), close)).toBe(R(212.35));
    expect(settlementPrice(option('PE'), close)).toBe(0);
    expect(settlementPrice(option('PE', 26_500), close)).toBe(R(287.65));
    expect(settlementPrice(option('CE', 26_500), close)).toBe(0);
    expect(settlementPrice({ instrumenttype: 'FUT', strike: null }, close)).toBe(close);
    expect(settlementPrice({ instrumenttype: 'EQ', strike: null }, close)).toBeUndefined();
  });
});

describe('expiry-settlement: the booking', () => {
  const now = istInstant('2026-08-18', '15:40');
  const account: AccountRow = {
    user_id: 7,
    starting_funds: R(1_000_000),
    available: R(1_000_000 - 9_750),
    used_margin: R(9_750),
    realised_pnl: 0,
    charges: 0,
    reset_at: 0,
    updated_at: 0,
  };
  const long: PositionRow = {
    id: 1,
    user_id: 7,
    symbol: 'NIFTY18AUG2626000CE',
    exchange: 'NFO',
    product: 'NRML',
    quantity: 65,
    cost: R(9_750),
    margin: R(9_750),
    realised_pnl: 0,
    charges: 0,
    day: '2026-08-18',
    updated_at: 0,
  };

  it('a complete closing order of the whole position, its event, and the fill that flattens it', () => {
    const plan = planSettlement(account, long, option('CE'), R(212.35), 'expiry settlement', now, TERMS);
    expect(plan.order).toMatchObject({
      side: 'SELL',
      quantity: 65,
      status: 'complete',
      filled_quantity: 65,
      average_price: R(212.35),
      reason: 'expiry settlement',
      kind: 'option',
    });
    expect(plan.events).toEqual([
      { userId: 7, from: null, to: 'complete', detail: 'expiry settlement', at: now },
    ]);
    expect(plan.fill.position).toMatchObject({ quantity: 0, cost: 0, margin: 0, realised_pnl: R(4_052.75) });
    // Exercised in the money: STT of 0.15 % on the ₹13,802.75 settled (₹20.70, to the rupee ₹21),
    // and no other charge (docs/rules/sandbox.md#charges-booked).
    expect(plan.fill.trade).toMatchObject({
      side: 'SELL',
      quantity: 65,
      price: R(212.35),
      stt: R(21),
      charges: R(21),
    });
    expect(plan.fill.account).toMatchObject({
      available: R(1_000_000 + 4_052.75 - 21),
      used_margin: 0,
      realised_pnl: R(4_052.75),
      charges: R(21),
    });
  });

  it('a short settles by a buy', () => {
    const short = { ...long, quantity: -65, cost: R(5_200), margin: R(5_200) };
    const plan = planSettlement(account, short, option('PE'), 0, 'expiry settlement', now, TERMS);
    expect(plan.order).toMatchObject({ side: 'BUY', quantity: 65, average_price: 0 });
    expect(plan.fill.position).toMatchObject({ quantity: 0, realised_pnl: R(5_200), charges: 0 });
    expect(plan.fill.trade).toMatchObject({ charges: 0 });
  });
});
