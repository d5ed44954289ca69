/**
 * docs/rules/sandbox.md#sessions-and-holidays, on both databases, through `/api/v1/placeorder`
 * with `SANDBOX_SESSIONS=enforce`: a week on a fake clock. Outside NSE's session (a Sunday night,
 * before the open, after the close, a holiday) a MARKET order is refused with a reason naming the
 * session and the next open; a LIMIT only as an after-market order (`amo: true`), which waits —
 * no tick fills it — until the session opens; a special session on a Sunday opens the book.
 * `SANDBOX_SESSIONS=ignore` keeps the always-open book.
 */
import { afterEach, expect, it } from 'vitest';
import { ist, MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';

const k = (i: { exchange: string; symbol: string }) => `${i.exchange}:${i.symbol}`;
const SBIN = { symbol: 'SBIN', exchange: 'NSE', product: 'MIS', strategy: 'sessions' };

describeEachDb('sandbox sessions and holidays', (dialect) => {
  let h: SandboxHarness;
  afterEach(() => h?.close());

  const enforced = async () => {
    h = await startSandbox(dialect, { env: { SANDBOX_SESSIONS: 'enforce' } });
  };
  const place = (body: Record<string, unknown>) => h.api('placeorder', { ...SBIN, quantity: 10, ...body });
  const tickAt = async (date: string, hhmm: string, ltp: number) => {
    h.t.clock.set(ist(date, hhmm));
    await h.tick({ [k(MINI.SBIN)]: h.quote(ltp) });
  };
  const status = async (orderid: string) =>
    (await h.ok<{ data: { order_status: string } }>('orderstatus', { orderid })).data.order_status;

  it('refuses a MARKET order on a Sunday night, naming the session and the next open', async () => {
    await enforced();
    await tickAt('2026-01-04', '00:12', 800);
    const res = await place({ action: 'BUY', pricetype: 'MARKET' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      'NSE is closed (Sunday); it opens next Mon, 5 Jan, 09:15 IST. A MARKET order is taken only in the session',
    );
    // Recorded as a rejected order with its reason; no funds blocked.
    const book = await h.ok<{ data: { orders: { order_status: string }[] } }>('orderbook');
    expect(book.data.orders.map((o) => o.order_status)).toEqual(['rejected']);
  });

  it('takes a LIMIT outside the session only as an after-market order, which fills only once the session opens', async () => {
    await enforced();
    await tickAt('2026-01-04', '20:00', 800);
    const plain = await place({ action: 'BUY', pricetype: 'LIMIT', price: '801' });
    expect(plain.statusCode).toBe(400);
    expect(plain.json().message).toMatch(
      /^NSE is closed \(Sunday\); it opens next Mon, 5 Jan, 09:15 IST\. Outside the session a LIMIT order is taken only as an after-market order \(amo: true\)/,
    );

    const amo = await place({ action: 'BUY', pricetype: 'LIMIT', price: '801', amo: true });
    expect(amo.statusCode).toBe(200);
    const orderid = amo.json().orderid as string;
    expect(await status(orderid)).toBe('open');
    // Its margin is blocked now (10 × 801 ÷ 5 for MIS).
    const funds = await h.ok<{ data: { utiliseddebits: number } }>('funds');
    expect(funds.data.utiliseddebits).toBe(1602);

    // A price through the limit outside the session fills nothing: Monday before the open…
    await tickAt('2026-01-05', '09:00', 790);
    expect(await status(orderid)).toBe('open');
    // …and the first tick of the session does.
    await tickAt('2026-01-05', '09:15', 790);
    expect(await status(orderid)).toBe('complete');
  });

  it('an amo flag on a MARKET order is refused as bad input, nothing written', async () => {
    await enforced();
    await tickAt('2026-01-04', '20:00', 800);
    const res = await place({ action: 'BUY', pricetype: 'MARKET', amo: true });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^amo orders must be LIMIT or SL/);
    const book = await h.ok<{ data: { orders: unknown[] } }>('orderbook');
    expect(book.data.orders).toEqual([]);
  });

  it('in session a MARKET order fills; before the open and after the close it is refused', async () => {
    await enforced();
    await tickAt('2026-01-05', '10:00', 800);
    const inSession = await place({ action: 'BUY', pricetype: 'MARKET' });
    expect(inSession.statusCode).toBe(200);
    expect(await status(inSession.json().orderid)).toBe('complete');

    await tickAt('2026-01-05', '15:45', 800);
    const late = await place({ action: 'SELL', pricetype: 'MARKET' });
    expect(late.json().message).toMatch(
      /^NSE is closed \(after its 15:30 IST close\); it opens next Tue, 6 Jan, 09:15 IST/,
    );

    await tickAt('2026-01-06', '08:30', 800);
    const early = await place({ action: 'SELL', pricetype: 'MARKET' });
    expect(early.json().message).toMatch(
      /^NSE is closed \(before its 09:15 IST open\); it opens next Tue, 6 Jan, 09:15 IST/,
    );
  });

  it('is closed on a trading holiday (Republic Day), and opens for a special session on a Sunday', async () => {
    await enforced();
    await tickAt('2026-01-26', '10:00', 800);
    const holiday = await place({ action: 'BUY', pricetype: 'MARKET' });
    expect(holiday.json().message).toBe(
      'NSE is closed (holiday: Republic Day); it opens next Tue, 27 Jan, 09:15 IST. A MARKET order is taken only in the session',
    );

    await h.t.services.marketAdmin.holidays.add({
      holiday_date: '2026-02-01',
      description: 'Union Budget',
      holiday_type: 'SPECIAL_SESSION',
      open_exchanges: [{ exchange: 'NSE', start_time: '09:15', end_time: '15:30' }],
    });
    await tickAt('2026-01-31', '20:00', 800);
    const saturday = await place({ action: 'BUY', pricetype: 'MARKET' });
    expect(saturday.json().message).toMatch(
      /^NSE is closed \(Saturday\); it opens next Sun, 1 Feb, 09:15 IST \(special session: Union Budget\)/,
    );
    await tickAt('2026-02-01', '11:00', 800);
    const special = await place({ action: 'BUY', pricetype: 'MARKET' });
    expect(special.statusCode).toBe(200);
    expect(await status(special.json().orderid)).toBe('complete');
  });

  it('SANDBOX_SESSIONS=ignore keeps the always-open book: a Sunday night MARKET order fills', async () => {
    h = await startSandbox(dialect, { env: { SANDBOX_SESSIONS: 'ignore' } });
    await tickAt('2026-01-04', '00:12', 800);
    const res = await place({ action: 'BUY', pricetype: 'MARKET' });
    expect(res.statusCode).toBe(200);
    expect(await status(res.json().orderid)).toBe('complete');
  });
});
