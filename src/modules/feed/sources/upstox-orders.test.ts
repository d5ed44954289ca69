import { describe, expect, it } from 'vitest';
import { upstoxOrderUpdate } from './upstox-orders.js';

/** An order update in the shape Upstox documents (webhook page: the same payload as the socket). */
const message = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  update_type: 'order',
  user_id: 'AB1234',
  exchange: 'NSE',
  instrument_token: 'NSE_EQ|INE062A01020',
  instrument_key: 'NSE_EQ|INE062A01020',
  trading_symbol: 'SBIN-EQ',
  tradingsymbol: 'SBIN-EQ',
  product: 'D',
  order_type: 'LIMIT',
  average_price: 0,
  price: 790.5,
  trigger_price: 0,
  quantity: 5,
  pending_quantity: 5,
  transaction_type: 'BUY',
  validity: 'DAY',
  status: 'open',
  status_message: '',
  status_message_raw: null,
  order_id: '240221025997024',
  filled_quantity: 0,
  ...fields,
});

describe('upstoxOrderUpdate', () => {
  it('maps a documented order update to OpenAlgo words, the instrument key as token', () => {
    expect(upstoxOrderUpdate(message())).toEqual({
      orderid: '240221025997024',
      token: 'NSE_EQ|INE062A01020',
      brsymbol: 'SBIN-EQ',
      brexchange: 'NSE',
      action: 'BUY',
      quantity: 5,
      price: 790.5,
      trigger_price: 0,
      pricetype: 'LIMIT',
      product: 'CNC',
      order_status: 'open',
      filled_quantity: 0,
      pending_quantity: 5,
      average_price: 0,
      rejection_reason: '',
    });
  });

  it.each([
    ['put order req received', 'open'],
    ['validation pending', 'open'],
    ['open pending', 'open'],
    ['modify pending', 'open'],
    ['modify validation pending', 'open'],
    ['modified', 'open'],
    ['not modified', 'open'],
    ['cancel pending', 'open'],
    ['not cancelled', 'open'],
    ['after market order req received', 'open'],
    ['open', 'open'],
    ['trigger pending', 'trigger pending'],
    ['complete', 'complete'],
    ['cancelled', 'cancelled'],
    ['cancelled after market order', 'cancelled'],
    ['rejected', 'rejected'],
    ['REJECTED', 'rejected'],
  ])('status %j is %j', (status, expected) => {
    expect(upstoxOrderUpdate(message({ status }))?.order_status).toBe(expected);
  });

  it('gives the rejection reason only for a rejected order', () => {
    expect(
      upstoxOrderUpdate(message({ status: 'rejected', status_message: 'Insufficient funds' }))
        ?.rejection_reason,
    ).toBe('Insufficient funds');
    expect(
      upstoxOrderUpdate(message({ status: 'cancelled', status_message: 'Cancelled by user' }))
        ?.rejection_reason,
    ).toBe('');
  });

  it('reads a fill, the older field names, and Upstox products', () => {
    const u = upstoxOrderUpdate(
      message({
        instrument_key: undefined,
        trading_symbol: undefined,
        exchange: 'NFO',
        instrument_token: 'NSE_FO|35001',
        tradingsymbol: 'NIFTY26JANFUT',
        product: 'I',
        order_type: 'SL',
        transaction_type: 'SELL',
        trigger_price: 101,
        status: 'complete',
        average_price: 100.5,
        filled_quantity: 75,
        pending_quantity: 0,
      }),
    );
    expect(u).toMatchObject({
      token: 'NSE_FO|35001',
      brsymbol: 'NIFTY26JANFUT',
      brexchange: 'NFO',
      action: 'SELL',
      pricetype: 'SL',
      product: 'MIS',
      trigger_price: 101,
      order_status: 'complete',
      average_price: 100.5,
      filled_quantity: 75,
      pending_quantity: 0,
    });
    expect(upstoxOrderUpdate(message({ exchange: 'NFO', product: 'D' }))?.product).toBe('NRML');
    // Upstox sends null for an average price not yet known.
    expect(upstoxOrderUpdate(message({ average_price: null }))?.average_price).toBe(0);
  });

  it('is undefined without the fields that name the order, or for another update type', () => {
    expect(upstoxOrderUpdate(message({ order_id: undefined }))).toBeUndefined();
    expect(upstoxOrderUpdate(message({ status: undefined }))).toBeUndefined();
    expect(upstoxOrderUpdate(message({ status: '' }))).toBeUndefined();
    expect(
      upstoxOrderUpdate(
        message({
          instrument_key: undefined,
          instrument_token: undefined,
          trading_symbol: undefined,
          tradingsymbol: undefined,
        }),
      ),
    ).toBeUndefined();
    expect(upstoxOrderUpdate(message({ update_type: 'position' }))).toBeUndefined();
    expect(upstoxOrderUpdate(null)).toBeUndefined();
    expect(upstoxOrderUpdate('order')).toBeUndefined();
    expect(upstoxOrderUpdate([message()])).toBeUndefined();
  });
});
