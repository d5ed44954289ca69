/** Kite Connect v3 book records (the documented samples' fields) → the contract's neutral rows. */
import { describe, expect, it } from 'vitest';
import { kiteFunds, kiteHoldings, kiteOrders, kitePositions, kiteTrades } from './zerodha.books.js';

const ORDER = {
  placed_by: 'XXXXXX',
  order_id: '100000000000000',
  exchange_order_id: '200000000000000',
  status: 'CANCELLED',
  tradingsymbol: 'SBIN',
  exchange: 'NSE',
  instrument_token: 779521,
  transaction_type: 'SELL',
  order_type: 'SL-M',
  product: 'MIS',
  price: 805.5,
  quantity: 5,
  trigger_price: 790,
  average_price: 0,
  filled_quantity: 0,
  pending_quantity: 5,
  status_message: 'Cancelled by user',
  order_timestamp: '2026-08-18 09:15:02',
  tags: ['alpha'],
};

describe('Kite books', () => {
  it('orders: OpenAlgo’s status words, price 0 for SL-M, the token as digits, the first tag', () => {
    expect(kiteOrders([ORDER, 'junk'])).toEqual([
      {
        brsymbol: 'SBIN',
        exchange: 'NSE',
        brexchange: 'NSE',
        token: '779521',
        orderid: '100000000000000',
        action: 'SELL',
        quantity: 5,
        price: 0,
        trigger_price: 790,
        pricetype: 'SL-M',
        product: 'MIS',
        order_status: 'cancelled',
        average_price: 0,
        filled_quantity: 0,
        pending_quantity: 0,
        rejection_reason: 'Cancelled by user',
        timestamp: '2026-08-18 09:15:02',
        strategy: 'alpha',
      },
    ]);
    const pending = kiteOrders([{ ...ORDER, status: 'MODIFY PENDING', order_type: 'LIMIT' }])[0]!;
    expect(pending).toMatchObject({
      order_status: 'open',
      price: 805.5,
      trigger_price: 0,
      pending_quantity: 5,
    });
    expect(kiteOrders([{ ...ORDER, status: 'TRIGGER PENDING' }])[0]!.order_status).toBe('trigger pending');
  });

  it('trades, net positions, holdings with T1 shares', () => {
    const trade = {
      trade_id: '10000000',
      order_id: '200000000000000',
      exchange: 'NFO',
      tradingsymbol: 'NIFTY26AUGFUT',
      instrument_token: 12345,
      product: 'NRML',
      average_price: 24_500.05,
      quantity: 75,
      transaction_type: 'BUY',
      fill_timestamp: '2026-08-18 09:16:00',
    };
    expect(kiteTrades([trade])[0]).toMatchObject({
      tradeid: '10000000',
      exchange: 'NFO',
      product: 'NRML',
      quantity: 75,
      average_price: 24_500.05,
      timestamp: '2026-08-18 09:16:00',
    });
    const net = { tradingsymbol: 'SBIN', exchange: 'NSE', product: 'CNC', quantity: -3, average_price: 800 };
    const p = kitePositions({
      net: [{ ...net, last_price: 790, pnl: 30, realised: 0, unrealised: 30 }],
      day: [],
    });
    expect(p).toEqual([
      expect.objectContaining({
        quantity: -3,
        ltp: 790,
        pnl: 30,
        realized_pnl: 0,
        unrealized_pnl: 30,
        token: '',
      }),
    ]);
    const h = kiteHoldings([
      { tradingsymbol: 'SBIN', exchange: 'NSE', quantity: 4, t1_quantity: 1, average_price: 700 },
    ]);
    expect(h[0]).toMatchObject({ quantity: 5, average_price: 700, ltp: 0, pnl: 0 });
  });

  it('funds: equity and commodity summed', () => {
    const seg = (net: number, debits: number, realised: number) => ({
      net,
      available: { cash: net + debits, collateral: 10 },
      utilised: { debits, m2m_realised: realised, m2m_unrealised: -2 },
    });
    expect(kiteFunds({ equity: seg(1000.5, 200, 5), commodity: seg(50, 0, 1) })).toEqual({
      availablecash: 1050.5,
      collateral: 20,
      m2mrealized: 6,
      m2munrealized: -4,
      utiliseddebits: 200,
    });
    expect(kiteFunds(null)).toEqual({
      availablecash: 0,
      collateral: 0,
      m2mrealized: 0,
      m2munrealized: 0,
      utiliseddebits: 0,
    });
  });
});
