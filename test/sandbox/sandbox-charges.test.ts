/**
 * docs/rules/sandbox.md#charges-booked and #contract-note, on both databases: every fill books
 * its contract-note charges (brokerage under the default plan, STT, exchange charges with NSE's
 * IPFT, SEBI fee, stamp duty, GST), out of available funds; funds, positions and trades show gross,
 * charges and net; the day's contract note and the fills export carry them. The figures are
 * worked by hand from the rates in src/domain/charges.ts (June 2026: the Apr-2026 STT), and the
 * ledger check (run when each harness closes) proves the books still balance with them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { k } from '../helpers/sandbox-api-fixtures.js';
import { describeEachDb, login } from '../helpers/test-app.js';

type Row = Record<string, unknown>;
const START = 10_000_000;
/** Money as the API writes it: to the paisa. */
const p = (x: number) => Math.round(x * 100) / 100;

describeEachDb('sandbox charges', (dialect) => {
  let h: SandboxHarness;
  afterEach(() => h?.close());

  async function open(env: Record<string, string> = {}) {
    h = await startSandbox(dialect, { env: { SANDBOX_CHARGES: 'book', ...env } });
    h.t.clock.set(Date.parse('2026-06-01T10:00:00+05:30')); // a Monday, after the Apr-2026 STT
    h.admin = await login(h.t); // the session of the clock's old time has expired
    return h;
  }
  const get = (url: string) => h.t.app.inject({ method: 'GET', url, headers: { cookie: h.admin.cookie } });
  const funds = async () => (await h.ok<{ data: Row }>('funds')).data;
  const trades = async () => (await h.ok<{ data: Row[] }>('tradebook')).data;
  const position = async (symbol: string) =>
    (await h.ok<{ data: Row[] }>('positionbook')).data.find((r) => r.symbol === symbol);
  const place = async (req: Row) => {
    const r = await h.place(req);
    if (!r.ok) throw new Error(r.message);
    return r;
  };

  describe('an equity intraday round trip (hand-worked)', () => {
    it('books ₹29.00 on the buy and ₹46.63 on the sell: net P&L ₹914.37 on ₹990 gross', async () => {
      await open();
      await h.tick({ [k(MINI.SBIN)]: h.quote(800) }); // ask 800.05
      await place({ ...MINI.SBIN, side: 'BUY', quantity: 100, product: 'MIS' });
      // Buy ₹80,005.00: brokerage 0.03 % = 24.00 capped at ₹20; NSE ₹307 per crore = 2.46; SEBI
      // 0.08; stamp 0.003 % = 2.40; GST 18 % of 22.54 = 4.06; no STT on an intraday buy: ₹29.00.
      expect(await trades()).toMatchObject([{ action: 'BUY', price: 800.05, charges: 29 }]);
      expect(await funds()).toMatchObject({
        availablecash: p(START - 80_005 / 5 - 29),
        utiliseddebits: 16_001,
        charges: 29,
      });

      await h.tick({ [k(MINI.SBIN)]: h.quote(810) }); // bid 809.95
      await place({ ...MINI.SBIN, side: 'SELL', quantity: 100, product: 'MIS' });
      // Sell ₹80,995.00: brokerage ₹20; STT 0.025 % = 20.25 → ₹20 (to the rupee); NSE 2.49; SEBI
      // 0.08; GST 18 % of 22.57 = 4.06; no stamp duty on a sale: ₹46.63.
      const [sell] = await trades();
      expect(sell).toMatchObject({ action: 'SELL', price: 809.95, charges: 46.63 });
      expect(await funds()).toMatchObject({
        availablecash: p(START + 990 - 75.63),
        utiliseddebits: 0,
        m2mrealized: 990,
        charges: 75.63,
        netrealized: 914.37,
      });
      expect(await position('SBIN')).toMatchObject({ realized_pnl: 990, charges: 75.63, net_pnl: 914.37 });

      const account = (await get('/sandbox/api/account')).json() as { funds: Row };
      expect(account.funds).toMatchObject({ realised_pnl: 990, charges: 75.63, net_realised_pnl: 914.37 });

      // The trade rows hold each charge, as a contract note lists them.
      const fills = (await get('/sandbox/api/fills')).json() as { data: Row[] };
      expect(fills.data).toMatchObject([
        {
          action: 'BUY',
          brokerage: 20,
          stt: 0,
          exchange_charges: 2.46,
          sebi_fee: 0.08,
          stamp_duty: 2.4,
          gst: 4.06,
        },
        {
          action: 'SELL',
          brokerage: 20,
          stt: 20,
          exchange_charges: 2.49,
          sebi_fee: 0.08,
          stamp_duty: 0,
          gst: 4.06,
        },
      ]);
    });
  });

  describe('an options round trip (hand-worked)', () => {
    it('books ₹28.00 on the buy and ₹43.97 on the sell: net ₹571.53 on ₹643.50 gross', async () => {
      await open();
      await h.tick({ [k(MINI.NIFTY_CE)]: h.quote(150) }); // ask 150.05
      await place({ ...MINI.NIFTY_CE, side: 'BUY', quantity: 65, product: 'NRML' });
      // Premium ₹9,753.25: brokerage ₹20 flat; NSE ₹3,553 per crore = 3.47; SEBI 0.01; stamp
      // 0.003 % = 0.29; GST 18 % of 23.48 = 4.23: ₹28.00.
      await h.tick({ [k(MINI.NIFTY_CE)]: h.quote(160) }); // bid 159.95
      await place({ ...MINI.NIFTY_CE, side: 'SELL', quantity: 65, product: 'NRML' });
      // Premium ₹10,396.75: brokerage ₹20; STT 0.15 % = 15.60 → ₹16; NSE 3.69; SEBI 0.01; GST
      // 18 % of 23.70 = 4.27: ₹43.97.
      expect((await trades()).map((t) => t.charges)).toEqual([43.97, 28]);
      expect(await funds()).toMatchObject({
        availablecash: p(START + 643.5 - 71.97),
        m2mrealized: 643.5,
        charges: 71.97,
        netrealized: 571.53,
      });
    });
  });

  describe('delivery: a CNC buy, settled T+1 into holdings, then sold from them', () => {
    it('pays STT on both sides and no brokerage; the sale of holdings books its charges', async () => {
      await open();
      await h.tick({ [k(MINI.SBIN)]: h.quote(800) });
      await place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' });
      // ₹8,000.50: STT 0.1 % = 8.00 → ₹8; NSE 0.25; SEBI 0.01; stamp 0.015 % = 1.20; GST 18 % of
      // 0.26 = 0.05; delivery brokerage free: ₹9.51.
      expect((await trades())[0]).toMatchObject({ charges: 9.51 });
      await h.at('2026-06-02', '10:00');
      expect((await h.ok<{ data: { holdings: Row[] } }>('holdings')).data.holdings).toMatchObject([
        { symbol: 'SBIN', quantity: 10 },
      ]);
      await h.tick({ [k(MINI.SBIN)]: h.quote(810) });
      await place({ ...MINI.SBIN, side: 'SELL', quantity: 10, product: 'CNC' });
      // ₹8,099.50: STT ₹8; NSE 0.25; SEBI 0.01; GST 0.05: ₹8.31.
      expect((await trades())[0]).toMatchObject({ action: 'SELL', charges: 8.31 });
      await h.at('2026-06-03', '09:00');
      expect(await funds()).toMatchObject({
        availablecash: p(START + 99 - 17.82),
        m2mrealized: 99,
        charges: 17.82,
        netrealized: 81.18,
      });
    });
  });

  describe('the brokerage plan and SANDBOX_CHARGES', () => {
    it('a flat ₹10 plan charges ₹10 per executed order, delivery free', async () => {
      await open({ SANDBOX_BROKERAGE: 'flat:10:delivery-free' });
      await h.tick({ [k(MINI.SBIN)]: h.quote(800) });
      await place({ ...MINI.SBIN, side: 'BUY', quantity: 100, product: 'MIS' });
      expect((await get('/sandbox/api/fills')).json()).toMatchObject({ data: [{ brokerage: 10 }] });
    });

    it('off books nothing: funds move by margins and P&L alone', async () => {
      await open({ SANDBOX_CHARGES: 'off' });
      await h.tick({ [k(MINI.SBIN)]: h.quote(800) });
      await place({ ...MINI.SBIN, side: 'BUY', quantity: 100, product: 'MIS' });
      expect(await funds()).toMatchObject({ availablecash: p(START - 16_001), charges: 0 });
      expect((await trades())[0]).toMatchObject({ charges: 0 });
    });
  });

  describe('the contract note (docs/rules/sandbox.md#contract-note)', () => {
    async function dayOfTrades() {
      await open();
      await h.tick({ [k(MINI.SBIN)]: h.quote(800), [k(MINI.NIFTY_CE)]: h.quote(150) });
      await place({ ...MINI.SBIN, side: 'BUY', quantity: 100, product: 'MIS', strategy: '=HYPERLINK("x")' });
      await place({ ...MINI.NIFTY_CE, side: 'BUY', quantity: 65, product: 'NRML' });
      await h.tick({ [k(MINI.SBIN)]: h.quote(810), [k(MINI.NIFTY_CE)]: h.quote(160) });
      await place({ ...MINI.SBIN, side: 'SELL', quantity: 100, product: 'MIS' });
      await place({ ...MINI.NIFTY_CE, side: 'SELL', quantity: 65, product: 'NRML' });
    }

    it('groups the day’s trades by exchange with every charge and the net obligation', async () => {
      await dayOfTrades();
      const res = await get('/sandbox/api/contract-note?day=2026-06-01');
      expect(res.statusCode).toBe(200);
      const note = (res.json() as { data: { day: string; exchanges: Row[]; totals: Row } }).data;
      expect(note.day).toBe('2026-06-01');
      expect(note.exchanges.map((e) => e.exchange)).toEqual(['NFO', 'NSE']);
      expect(note.exchanges[0]).toMatchObject({
        totals: {
          trades: 2,
          buy_value: 9_753.25,
          sell_value: 10_396.75,
          charges: 71.97,
          net_obligation: 571.53,
        },
      });
      expect(note.exchanges[1]).toMatchObject({
        totals: {
          trades: 2,
          buy_value: 80_005,
          sell_value: 80_995,
          brokerage: 40,
          stt: 20,
          exchange_charges: 4.95,
          sebi_fee: 0.16,
          stamp_duty: 2.4,
          gst: 8.12,
          charges: 75.63,
          net_obligation: 914.37,
        },
      });
      expect(note.totals).toMatchObject({
        trades: 4,
        charges: p(71.97 + 75.63),
        net_obligation: p(571.53 + 914.37),
      });
      // Today is the default day; a day without trades is an empty note.
      expect((await get('/sandbox/api/contract-note')).json()).toMatchObject({ data: { day: '2026-06-01' } });
      expect((await get('/sandbox/api/contract-note?day=2026-05-29')).json()).toMatchObject({
        data: { exchanges: [], totals: { trades: 0, charges: 0 } },
      });
    });

    it('downloads as CSV: the trades, then a summary per exchange and for the day; user text cannot be a formula', async () => {
      await dayOfTrades();
      const res = await get('/sandbox/api/contract-note?day=2026-06-01&format=csv');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      expect(res.headers['content-disposition']).toBe('attachment; filename="contract-note-2026-06-01.csv"');
      const [trades, summary] = res.body.split('\r\n\r\n') as [string, string];
      const lines = trades.split('\r\n');
      expect(lines[0]).toBe(
        'day,time,exchange,trade_id,order_id,symbol,product,side,quantity,price,value,brokerage,stt,exchange_charges,sebi_fee,stamp_duty,gst,total_charges,strategy',
      );
      expect(lines.slice(1).map((l) => l.split(',').slice(2, 3)[0])).toEqual(['NFO', 'NFO', 'NSE', 'NSE']);
      // The strategy name starting with "=" is written as text, quoted.
      expect(trades).toContain(`,"'=HYPERLINK(""x"")"`);
      expect(summary.split('\r\n')).toEqual([
        'day,exchange,trades,buy_value,sell_value,brokerage,stt,exchange_charges,sebi_fee,stamp_duty,gst,total_charges,net_obligation',
        '2026-06-01,NFO,2,9753.25,10396.75,40,16,7.16,0.02,0.29,8.5,71.97,571.53',
        '2026-06-01,NSE,2,80005,80995,40,20,4.95,0.16,2.4,8.12,75.63,914.37',
        '2026-06-01,ALL,4,89758.25,91391.75,80,36,12.11,0.18,2.69,16.62,147.6,1485.9',
        '',
      ]);
      const fills = await get('/sandbox/api/fills?format=csv');
      expect(fills.headers['content-disposition']).toBe('attachment; filename="fills-2026-06-01.csv"');
      expect(fills.body.trim().split('\r\n')).toHaveLength(5);
    });

    it('refuses a day that is no date and an unknown format with a 400 naming the field; needs a session', async () => {
      await open();
      for (const q of ['day=2026-02-31', 'day=2026-6-1', 'day=%3Cscript%3E', 'format=xml']) {
        const res = await get(`/sandbox/api/contract-note?${q}`);
        expect(res.statusCode, q).toBe(400);
        expect((res.json() as { message: string }).message, q).toMatch(/day|format/);
      }
      expect((await get('/sandbox/api/fills?format=pdf')).statusCode).toBe(400);
      for (const url of ['/sandbox/api/contract-note', '/sandbox/api/fills', '/sandbox/api/equity']) {
        const res = await h.t.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(401);
      }
    });
  });
});
