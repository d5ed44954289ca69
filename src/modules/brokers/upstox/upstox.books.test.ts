/** Upstox v2 book records (the documented samples' fields) → the contract's neutral rows. */
import { describe, expect, it } from 'vitest';
import { upstoxFunds, upstoxHoldings, upstoxOrders, upstoxPositions, upstoxTrades } from './upstox.books.js';

describe('Upstox books', () => {
  it('orders: exchange from the instrument key, D on F&O is NRML, I is MIS, lower-case statuses', () => {
    const order = {
      exchange: 'NFO',
      product: 'D',
      price: 0,
      quantity: 75,
      status: 'after market order req received',
      tag: 'alpha',
      instrument_token: 'NSE_FO|54321',
      trading_symbol: 'NIFTY26AUG24500CE',
      order_type: 'MARKET',
      transaction_type: 'BUY',
      trigger_price: 0,
      average_price: 0,
      filled_quantity: 0,
      pending_quantity: 75,
      status_message: null,
      order_id: '240108010918222',
      order_timestamp: '2026-02-05 10:12:01',
    };
    expect(upstoxOrders([order])).toEqual([
      {
        brsymbol: 'NIFTY26AUG24500CE',
        exchange: 'NFO',
        brexchange: 'NSE_FO',
        token: 'NSE_FO|54321',
        orderid: '240108010918222',
        action: 'BUY',
        quantity: 75,
        price: 0,
        trigger_price: 0,
        pricetype: 'MARKET',
        product: 'NRML',
        order_status: 'open',
        average_price: 0,
        filled_quantity: 0,
        pending_quantity: 75,
        rejection_reason: '',
        timestamp: '2026-02-05 10:12:01',
        strategy: 'alpha',
      },
    ]);
    const eq = upstoxOrders([
      { ...order, instrument_token: 'NSE_EQ|INE062A01020', status: 'rejected', status_message: 'RMS' },
    ]);
    expect(eq[0]).toMatchObject({
      exchange: 'NSE',
      product: 'CNC',
      order_status: 'rejected',
      rejection_reason: 'RMS',
      pending_quantity: 0,
    });
    expect(upstoxOrders([{ ...order, product: 'I' }])[0]!.product).toBe('MIS');
  });

  it('trades, positions, holdings (T1 included)', () => {
    const t = upstoxTrades([
      {
        exchange: 'NSE',
        product: 'I',
        trading_symbol: 'SBIN',
        instrument_token: 'NSE_EQ|INE062A01020',
        transaction_type: 'SELL',
        quantity: 2,
        average_price: 801.25,
        trade_id: '50000001',
        order_id: '1',
        exchange_timestamp: '2026-02-05 10:12:02',
      },
    ]);
    expect(t[0]).toMatchObject({
      tradeid: '50000001',
      action: 'SELL',
      product: 'MIS',
      average_price: 801.25,
      exchange: 'NSE',
    });
    const p = upstoxPositions([
      {
        instrument_token: 'MCX_FO|472789',
        trading_symbol: 'CRUDEOIL',
        product: 'D',
        quantity: 100,
        average_price: 5000,
        last_price: 5010,
        pnl: 1000,
        realised: 0,
        unrealised: 1000,
      },
    ]);
    expect(p[0]).toMatchObject({
      exchange: 'MCX',
      product: 'NRML',
      quantity: 100,
      ltp: 5010,
      unrealized_pnl: 1000,
    });
    const h = upstoxHoldings([
      {
        instrument_token: 'NSE_EQ|INE062A01020',
        tradingsymbol: 'SBIN',
        quantity: '3',
        t1_quantity: 2,
        average_price: 700,
        last_price: 800,
        pnl: 500,
      },
    ]);
    expect(h[0]).toMatchObject({ brsymbol: 'SBIN', quantity: 5, ltp: 800, pnl: 500 });
  });

  it('funds: available and used margin summed; M2M from the positions', () => {
    const seg = (available: number, used: number) => ({ available_margin: available, used_margin: used });
    const pos = upstoxPositions([{ instrument_token: 'NSE_EQ|X', realised: 12.5, unrealised: -2.5 }]);
    expect(upstoxFunds({ equity: seg(1000, 200), commodity: seg(10, 0) }, pos)).toEqual({
      availablecash: 1010,
      collateral: 0,
      m2mrealized: 12.5,
      m2munrealized: -2.5,
      utiliseddebits: 200,
    });
  });
});
