import { describe, expect, it } from 'vitest';
import { rupeesToMoney as r } from './money.js';
import {
  applyFill,
  averagePrice,
  emptyPosition,
  positionKey,
  settleCncToHoldings,
  splitFill,
  unrealisedPnl,
  type Position,
} from './positions.js';

// Real contracts (Kite NFO/BFO snapshot 2026-08-18): NIFTY lot 65, BANKNIFTY lot 30.
const CE = 'NIFTY18AUG2626000CE';
const FUT = 'BANKNIFTY25AUG26FUT';

const flat = (symbol: string, exchange = 'NFO', product: Position['product'] = 'NRML') =>
  emptyPosition(symbol, exchange, product);

describe('netting key and split of a fill', () => {
  it('one position per (symbol, exchange, product)', () => {
    expect(positionKey('NFO', CE, 'MIS')).toBe('NFO:NIFTY18AUG2626000CE:MIS');
    expect(positionKey('NFO', CE, 'NRML')).not.toBe(positionKey('NFO', CE, 'MIS'));
  });
  it('splits into closing and opening quantity', () => {
    expect(splitFill(0, 'BUY', 65)).toEqual({ closing: 0, opening: 65 });
    expect(splitFill(65, 'BUY', 65)).toEqual({ closing: 0, opening: 65 });
    expect(splitFill(65, 'SELL', 65)).toEqual({ closing: 65, opening: 0 });
    expect(splitFill(65, 'SELL', 130)).toEqual({ closing: 65, opening: 65 });
    expect(splitFill(-30, 'BUY', 10)).toEqual({ closing: 10, opening: 0 });
    expect(splitFill(-30, 'SELL', 30)).toEqual({ closing: 0, opening: 30 });
  });
});

describe('realised P&L on a round trip', () => {
  it('buy 65 NIFTY 26000 CE at 120.50, sell 65 at 131.25 → +698.75', () => {
    const a = applyFill(flat(CE), { side: 'BUY', quantity: 65, price: r('120.50') });
    expect(a.position).toMatchObject({ quantity: 65, cost: r('7832.50') });
    expect(a.realised).toBe(0);
    const b = applyFill(a.position, { side: 'SELL', quantity: 65, price: r('131.25') });
    expect(b.realised).toBe(r('698.75'));
    expect(b.position).toMatchObject({ quantity: 0, cost: 0, realisedPnl: r('698.75') });
    expect(b.closedQuantity).toBe(65);
    expect(b.openedQuantity).toBe(0);
  });

  it('short 30 BANKNIFTY FUT at 56,120.40, cover at 55,980.00 → +4,212.00', () => {
    const a = applyFill(flat(FUT), { side: 'SELL', quantity: 30, price: r('56120.40') });
    expect(a.position.quantity).toBe(-30);
    const b = applyFill(a.position, { side: 'BUY', quantity: 30, price: r('55980.00') });
    expect(b.realised).toBe(r('4212.00'));
    expect(b.position.quantity).toBe(0);
  });

  it('a losing long realises a negative amount', () => {
    const a = applyFill(flat(CE), { side: 'BUY', quantity: 65, price: r('120.50') });
    const b = applyFill(a.position, { side: 'SELL', quantity: 65, price: r('118.00') });
    expect(b.realised).toBe(r('-162.50'));
  });
});

describe('average price on adds', () => {
  it('65 at 120.50 + 130 at 126.20 → 195 at 124.30', () => {
    const a = applyFill(flat(CE), { side: 'BUY', quantity: 65, price: r('120.50') });
    const b = applyFill(a.position, { side: 'BUY', quantity: 130, price: r('126.20') });
    expect(b.position.quantity).toBe(195);
    expect(b.position.cost).toBe(r('24238.50'));
    expect(averagePrice(b.position)).toBeCloseTo(124.3, 10);
  });
  it('adds to a short are weighted the same way', () => {
    const a = applyFill(flat(FUT), { side: 'SELL', quantity: 30, price: r('56000.00') });
    const b = applyFill(a.position, { side: 'SELL', quantity: 30, price: r('56100.00') });
    expect(b.position).toMatchObject({ quantity: -60, cost: r('3363000.00') }); // 30 × 56,000 + 30 × 56,100
    expect(averagePrice(b.position)).toBe(56050);
  });
});

describe('partial close keeps the average', () => {
  it('sell 65 of 195 at 130.00 against average 124.30 → +370.50, 130 left at 124.30', () => {
    let p = applyFill(flat(CE), { side: 'BUY', quantity: 65, price: r('120.50') }).position;
    p = applyFill(p, { side: 'BUY', quantity: 130, price: r('126.20') }).position;
    const c = applyFill(p, { side: 'SELL', quantity: 65, price: r('130.00') });
    expect(c.realised).toBe(r('370.50'));
    expect(c.position).toMatchObject({ quantity: 130, cost: r('16159.00') });
    expect(averagePrice(c.position)).toBeCloseTo(124.3, 10);
  });

  it('pieces that do not divide evenly still add up to the exact round-trip P&L', () => {
    // SBIN: 1 at 800.00 + 2 at 800.05 = 2,400.10 for 3 (average 800.0333…); sell 1 then 2 at 801.00.
    let p = applyFill(flat('SBIN', 'NSE', 'MIS'), { side: 'BUY', quantity: 1, price: r('800.00') }).position;
    p = applyFill(p, { side: 'BUY', quantity: 2, price: r('800.05') }).position;
    const first = applyFill(p, { side: 'SELL', quantity: 1, price: r('801.00') });
    expect(first.realised).toBe(9_667); // 801.00 − round(800.0333…) in 1/10000 ₹
    const second = applyFill(first.position, { side: 'SELL', quantity: 2, price: r('801.00') });
    expect(second.realised).toBe(19_333);
    expect(first.realised + second.realised).toBe(r('2.90')); // 3 × 801.00 − 2,400.10
    expect(second.position.cost).toBe(0);
  });

  it('releases margin pro rata: 4 of 10 SBIN MIS holding ₹1,600 releases ₹640', () => {
    const p = applyFill(
      flat('SBIN', 'NSE', 'MIS'),
      { side: 'BUY', quantity: 10, price: r('800.00') },
      r('1600.00'),
    );
    expect(p.position.margin).toBe(r('1600.00'));
    const c = applyFill(p.position, { side: 'SELL', quantity: 4, price: r('805.00') });
    expect(c.releasedMargin).toBe(r('640.00'));
    expect(c.realised).toBe(r('20.00'));
    expect(c.position).toMatchObject({ quantity: 6, cost: r('4800.00'), margin: r('960.00') });
  });
});

describe('reversal opens the remainder at the fill price', () => {
  it('long 65 at 120.50, sell 130 at 118.00 → −162.50 realised, short 65 at 118.00', () => {
    const a = applyFill(flat(CE), { side: 'BUY', quantity: 65, price: r('120.50') }, r('7832.50'));
    const b = applyFill(a.position, { side: 'SELL', quantity: 130, price: r('118.00') }, r('7670.00'));
    expect(b.realised).toBe(r('-162.50'));
    expect(b.releasedMargin).toBe(r('7832.50'));
    expect(b.closedQuantity).toBe(65);
    expect(b.openedQuantity).toBe(65);
    expect(b.position).toMatchObject({ quantity: -65, cost: r('7670.00'), margin: r('7670.00') });
    expect(averagePrice(b.position)).toBe(118);
  });
});

describe('unrealised P&L marks to market', () => {
  it('long 65 at 120.50 marked at 125.35 → +315.25', () => {
    const p = applyFill(flat(CE), { side: 'BUY', quantity: 65, price: r('120.50') }).position;
    expect(unrealisedPnl(p, r('125.35'))).toBe(r('315.25'));
  });
  it('short 30 at 56,120.40 marked at 56,200.00 → −2,388.00', () => {
    const p = applyFill(flat(FUT), { side: 'SELL', quantity: 30, price: r('56120.40') }).position;
    expect(unrealisedPnl(p, r('56200.00'))).toBe(r('-2388.00'));
  });
  it('a flat position has none, and no average', () => {
    expect(unrealisedPnl(flat(CE), r('100'))).toBe(0);
    expect(averagePrice(flat(CE))).toBe(0);
  });
  it('a fill must be a positive integer quantity', () => {
    expect(() => applyFill(flat(CE), { side: 'BUY', quantity: 0, price: 1 })).toThrow(RangeError);
    expect(() => applyFill(flat(CE), { side: 'BUY', quantity: 1.5, price: 1 })).toThrow(RangeError);
  });
});

describe('T+1 settlement of CNC positions into holdings', () => {
  const cnc = (quantity: number, cost: string, margin: string): Position => ({
    ...emptyPosition('SBIN', 'NSE', 'CNC'),
    quantity,
    cost: r(cost),
    margin: r(margin),
  });

  it('a CNC buy joins an existing holding at a weighted average; its margin becomes the shares', () => {
    const s = settleCncToHoldings(
      [cnc(10, '8000.00', '8000.00')],
      [{ symbol: 'SBIN', exchange: 'NSE', quantity: 5, cost: r('3900.00') }],
    );
    expect(s.holdings).toEqual([{ symbol: 'SBIN', exchange: 'NSE', quantity: 15, cost: r('11900.00') }]);
    expect(s.fundsDelta).toEqual({ available: 0, usedMargin: r('-8000.00'), realisedPnl: 0 });
    expect(s.carried).toEqual([]);
    expect(s.realised).toBe(0);
  });

  it('a new holding is created at the position average', () => {
    const s = settleCncToHoldings([cnc(10, '8000.50', '8000.50')], []);
    expect(s.holdings).toEqual([{ symbol: 'SBIN', exchange: 'NSE', quantity: 10, cost: r('8000.50') }]);
  });

  it('with CNC leverage above 1 the unpaid rest is debited from available', () => {
    const s = settleCncToHoldings([cnc(10, '8000.00', '4000.00')], []);
    expect(s.fundsDelta).toEqual({ available: r('-4000.00'), usedMargin: r('-4000.00'), realisedPnl: 0 });
  });

  it('a CNC sell of held shares realises against the holding average: 5 of 10 at 780 sold at 820 → +200', () => {
    const s = settleCncToHoldings(
      [cnc(-5, '4100.00', '0')],
      [{ symbol: 'SBIN', exchange: 'NSE', quantity: 10, cost: r('7800.00') }],
    );
    expect(s.realised).toBe(r('200.00'));
    expect(s.holdings).toEqual([{ symbol: 'SBIN', exchange: 'NSE', quantity: 5, cost: r('3900.00') }]);
    expect(s.fundsDelta).toEqual({ available: r('4100.00'), usedMargin: 0, realisedPnl: r('200.00') });
  });

  it('selling every held share drops the holding', () => {
    const s = settleCncToHoldings(
      [cnc(-10, '8200.00', '0')],
      [{ symbol: 'SBIN', exchange: 'NSE', quantity: 10, cost: r('7800.00') }],
    );
    expect(s.holdings).toEqual([]);
    expect(s.realised).toBe(r('400.00'));
  });

  it('MIS and NRML positions are carried; flat CNC positions vanish', () => {
    const nrml: Position = { ...emptyPosition(FUT, 'NFO', 'NRML'), quantity: 30, cost: r('1683612.00') };
    const s = settleCncToHoldings([nrml, cnc(0, '0', '0')], []);
    expect(s.carried).toEqual([nrml]);
    expect(s.holdings).toEqual([]);
  });

  it('a CNC short beyond the holdings is reported and carried', () => {
    const s = settleCncToHoldings(
      [cnc(-8, '6560.00', '0')],
      [{ symbol: 'SBIN', exchange: 'NSE', quantity: 5, cost: r('3900.00') }],
    );
    expect(s.shortfalls).toEqual([{ symbol: 'SBIN', exchange: 'NSE', quantity: 3 }]);
    expect(s.carried).toMatchObject([{ quantity: -3, cost: r('2460.00') }]);
    expect(s.realised).toBe(r('200.00')); // 5 × (820 − 780)
    expect(s.holdings).toEqual([]);
  });
});
