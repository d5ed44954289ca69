/**
 * Noren's books mapped to the contract's rows: the README's example records (order book, trade
 * book, holdings, limits) through noren.books.ts, and, for both variants, the day the loopback
 * stub keeps (a filled MARKET order as an order, a trade and a position) through the adapter.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { orderFor } from '../../../../test/helpers/broker-order-stubs.js';
import { closeAfterEach } from '../../../../test/helpers/broker-quote-fixtures.js';
import {
  DOC_HOLDING,
  loadNorenInstruments,
  sessionOf,
  setupNoren,
  teachTokens,
  VARIANTS,
  type NorenSet,
} from '../../../../test/helpers/noren-fixtures.js';
import {
  norenFunds,
  norenHoldings,
  norenOrders,
  norenStatus,
  norenTime,
  norenTrades,
} from './noren.books.js';

let A: NorenSet;
beforeAll(async () => {
  A = await loadNorenInstruments();
});
closeAfterEach();

describe('the README examples', () => {
  it('reads an order book record (statuses in Noren’s spellings)', () => {
    const [open, rejected] = norenOrders([
      {
        stat: 'Ok',
        exch: 'NSE',
        tsym: 'ACC-EQ',
        norenordno: '20062500000001223',
        prc: '127230',
        qty: '100',
        prd: 'C',
        status: 'Open',
        trantype: 'B',
        prctyp: 'LMT',
        fillshares: '0',
        avgprc: '0',
        uid: 'VIDYA',
        actid: 'CLIENT1',
        ret: 'DAY',
        amo: 'Yes',
      },
      {
        stat: 'Ok',
        exch: 'NSE',
        tsym: 'ABB-EQ',
        norenordno: '20062500000002543',
        prc: '127830',
        qty: '50',
        prd: 'C',
        status: 'REJECT',
        trantype: 'B',
        prctyp: 'LMT',
        fillshares: '0',
        avgprc: '0',
        rejreason: 'Insufficient funds',
      },
    ]);
    expect(open).toEqual({
      brsymbol: 'ACC-EQ',
      exchange: 'NSE',
      brexchange: 'NSE',
      token: '',
      orderid: '20062500000001223',
      action: 'BUY',
      quantity: 100,
      price: 127230,
      trigger_price: 0,
      pricetype: 'LIMIT',
      product: 'CNC',
      order_status: 'open',
      average_price: 0,
      filled_quantity: 0,
      pending_quantity: 100,
      rejection_reason: '',
      timestamp: '',
      strategy: '',
    });
    expect(rejected).toMatchObject({
      order_status: 'rejected',
      rejection_reason: 'Insufficient funds',
      pending_quantity: 0,
    });
    expect(
      ['OPEN', 'COMPLETE', 'CANCELED', 'REJECTED', 'TRIGGER_PENDING', 'PENDING'].map(norenStatus),
    ).toEqual(['open', 'complete', 'cancelled', 'rejected', 'trigger pending', 'open']);
  });

  it('reads a trade book record and both of Noren’s time layouts', () => {
    const [t] = norenTrades([
      {
        stat: 'Ok',
        norenordno: '20121300065715',
        exch: 'NSE',
        prctyp: 'LMT',
        prd: 'M',
        flid: '102',
        fltm: '01-01-1980 00:00:00',
        trantype: 'S',
        tsym: 'ACCELYA-EQ',
        qty: '180',
        token: '7053',
        flqty: '180',
        flprc: '800.00',
        remarks: 'WC TEST Order',
      },
    ]);
    expect(t).toEqual({
      brsymbol: 'ACCELYA-EQ',
      exchange: 'NSE',
      brexchange: 'NSE',
      token: '7053',
      tradeid: '102',
      orderid: '20121300065715',
      action: 'SELL',
      quantity: 180,
      average_price: 800,
      product: 'NRML',
      timestamp: '1980-01-01 00:00:00',
      strategy: 'WC TEST Order',
    });
    expect(norenTime('19:59:32 13-12-2020')).toBe('2020-12-13 19:59:32');
  });

  it('reads holdings (the NSE listing) and limits', () => {
    expect(norenHoldings([DOC_HOLDING])).toEqual([
      {
        brsymbol: 'ABB-EQ',
        exchange: 'NSE',
        brexchange: 'NSE',
        token: '13',
        quantity: 2_000_000,
        average_price: 1800,
        ltp: 0,
        pnl: 0,
      },
    ]);
    expect(
      norenFunds({
        stat: 'Ok',
        cash: '1500.00',
        payin: '200.00',
        marginused: '394.50',
        brkcollamt: '50.00',
        collateral: '0.00',
        rpnl: '-12.5',
        urmtom: '30540.00',
      }),
    ).toEqual({
      availablecash: 1305.5,
      collateral: 50,
      m2mrealized: -12.5,
      m2munrealized: 30540,
      utiliseddebits: 394.5,
    });
  });
});

describe.each(VARIANTS)('$variant.name books through the adapter', (v) => {
  const session = sessionOf(v.creds);

  it('a filled MARKET order shows in the order book, the trade book and the positions', async () => {
    const { stub, adapter } = await setupNoren(v);
    teachTokens(stub, A);
    stub.fillMarketOrders = true;
    stub.prices.set('SBIN-EQ', 800);
    await adapter.placeOrder(orderFor(A.sbin, { quantity: 10, product: 'MIS', tag: 't1' }), session);
    stub.prices.set('SBIN-EQ', 805);
    const orders = await adapter.orderBook(session);
    expect(orders).toMatchObject({
      ok: true,
      data: [
        {
          orderid: '26081800000001',
          brsymbol: 'SBIN-EQ',
          token: '3045',
          exchange: 'NSE',
          action: 'BUY',
          pricetype: 'MARKET',
          product: 'MIS',
          order_status: 'complete',
          filled_quantity: 10,
          average_price: 800,
          timestamp: '2026-08-18 09:15:02',
          strategy: 't1',
        },
      ],
    });
    const trades = await adapter.tradeBook(session);
    expect(trades).toMatchObject({
      ok: true,
      data: [
        {
          tradeid: '1',
          orderid: '26081800000001',
          quantity: 10,
          average_price: 800,
          product: 'MIS',
          timestamp: '2026-08-18 09:15:01',
        },
      ],
    });
    const positions = await adapter.positions(session);
    expect(positions).toMatchObject({
      ok: true,
      data: [
        {
          brsymbol: 'SBIN-EQ',
          token: '3045',
          product: 'MIS',
          quantity: 10,
          average_price: 800,
          ltp: 805,
          unrealized_pnl: 50,
          pnl: 50,
        },
      ],
    });
    // Limits' `marginused` is what the fill used (10 × 800), taken off the cash.
    expect((await adapter.funds(session)) as unknown).toMatchObject({
      ok: true,
      data: { availablecash: 242_000, utiliseddebits: 8_000 },
    });
  });

  it('empty books ("no data") are empty; holdings send prd C', async () => {
    const { stub, adapter } = await setupNoren(v);
    expect(await adapter.orderBook(session)).toMatchObject({ ok: true, data: [] });
    expect(await adapter.tradeBook(session)).toMatchObject({ ok: true, data: [] });
    expect(await adapter.positions(session)).toMatchObject({ ok: true, data: [] });
    stub.holdingRows = [DOC_HOLDING];
    expect(await adapter.holdings(session)).toMatchObject({
      ok: true,
      data: [{ brsymbol: 'ABB-EQ', quantity: 2_000_000 }],
    });
    const sent = stub.requests.at(-1)!;
    expect(sent.path).toBe(`${v.base}/Holdings`);
    expect(JSON.parse(new URLSearchParams(sent.body).get('jData')!)).toEqual({
      uid: v.creds.userId,
      actid: v.creds.userId,
      prd: 'C',
    });
  });

  it('a refused book keeps the status and emsg', async () => {
    const { stub, adapter } = await setupNoren(v);
    stub.failNext(200, { stat: 'Not_Ok', emsg: 'Session Expired :  Invalid Session Key' });
    expect(await adapter.positions(session)).toMatchObject({
      ok: false,
      httpStatus: 401,
      message: `${v.variant.label}: Session Expired :  Invalid Session Key`,
    });
  });
});
