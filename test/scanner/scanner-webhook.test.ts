/**
 * Scanner alerts: a Chartink alert posted to `/scanner/webhook/<webhook_id>` places
 * one analyzer order per symbol with the scanner's sizing (docs/rules/scanner.md#scanner-sizing),
 * answers each symbol's outcome and writes its audit row (#scanner-delivery, #scanner-audit); the
 * same alert within 60 s places nothing (#scanner-dedupe); the trading window, the actions
 * (#scanner-action: entries, exits to a zero position, FROM_SCAN_NAME), max_symbols, the live
 * switch and `enabled`, and the order in which the checks decide.
 */
import { afterEach, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import {
  HOLIDAY,
  SATURDAY,
  TRADING_DAY,
  buyScanner,
  chartink,
  startScanner,
  type HookAnswer,
  type ScannerHarness,
  type SymbolResult,
} from '../helpers/scanner.js';

let h: ScannerHarness;
afterEach(async () => {
  await h?.close();
});

type Row = Record<string, unknown>;
const answer = (res: { json(): unknown }) => res.json() as HookAnswer;
/** The analyzer orders as `SIDE SYMBOL×QTY PRODUCT`, oldest first. */
const placed = async () =>
  (await h.orders())
    .map((o) => `${String(o.action)} ${String(o.symbol)}×${String(o.quantity)} ${String(o.product)}`)
    .reverse();

describeEachDb('scanner webhook: an alert becomes orders', (dialect) => {
  it('three symbols, fixed quantity and an override: three analyzer orders, each listed in the answer and the audit', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 10, overrides: { INFY: 3 } }));
    const res = await h.hook(webhookId, chartink());
    expect(res.statusCode).toBe(200);
    const a = answer(res);
    expect(a).toMatchObject({ status: 'success', result: 'ok', scanner_id: id, action: 'BUY' });
    expect(typeof a.message).toBe('string');
    expect(a.results).toHaveLength(3);
    expect(a.results).toMatchObject([
      { symbol: 'SBIN', status: 'success', quantity: 10 },
      { symbol: 'RELIANCE', status: 'success', quantity: 10 },
      { symbol: 'INFY', status: 'success', quantity: 3 },
    ]);
    const book = await h.orders();
    expect(await placed()).toEqual(['BUY SBIN×10 MIS', 'BUY RELIANCE×10 MIS', 'BUY INFY×3 MIS']);
    // Each answered order id is the book's, and MARKET orders on fresh quotes filled.
    for (const r of a.results!) {
      const o = book.find((b) => b.symbol === r.symbol)!;
      expect(String(o.orderid)).toBe(String(r.orderid));
      expect(o).toMatchObject({ exchange: 'NSE', pricetype: 'MARKET', order_status: 'complete' });
    }
    expect(await h.position('SBIN')).toBe(10);
    expect(await h.position('INFY')).toBe(3);
    // The audit: one delivery with each symbol's outcome; each order recorded as an entry.
    const [d, ...rest] = await h.deliveries(id);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({ result: 'ok', http_status: 200, action: 'BUY' });
    expect(d!.results).toEqual(a.results);
    expect(typeof d!.duration_ms).toBe('number');
    const recorded = await h.rows('scanner_orders');
    expect(recorded.map((r) => [r.symbol, r.side, Number(r.quantity), r.kind])).toEqual([
      ['SBIN', 'BUY', 10, 'entry'],
      ['RELIANCE', 'BUY', 10, 'entry'],
      ['INFY', 'BUY', 3, 'entry'],
    ]);
    expect(recorded.every((r) => r.scanner_id === id || Number(r.scanner_id) === id)).toBe(true);
  });

  it('capital sizing is floor(capital ÷ trigger price); an override wins; a size of 0 is that symbol’s error, the others placed', async () => {
    h = await startScanner(dialect);
    // The alert's trigger prices, not the quotes: 10,000 ÷ 750 = 13.3 → 13 (the LTP 800 would give
    // 12); ÷ 1,900 = 5.26 → 5 (the LTP 2,400 would give 4); INFY overridden to 5 (10,000 ÷ 1,500 = 6).
    const rich = await h.create(
      buyScanner({ name: 'rich', quantity: undefined, capital: 10_000, overrides: { INFY: 5 } }),
    );
    const a = answer(await h.hook(rich.webhookId, chartink({ trigger_prices: '750,1900,1500' })));
    expect(a).toMatchObject({ result: 'ok' });
    expect(a.results!.map((r) => [r.symbol, r.status, r.quantity])).toEqual([
      ['SBIN', 'success', 13],
      ['RELIANCE', 'success', 5],
      ['INFY', 'success', 5],
    ]);
    // 2,000 ÷ 2,400.5 < 1: RELIANCE is an error with a message; 2,000 ÷ 800 = 2.5 → 2; ÷ 1,500 → 1.
    const poor = await h.create(buyScanner({ name: 'poor', quantity: undefined, capital: 2_000 }));
    const b = answer(await h.hook(poor.webhookId, chartink()));
    expect(b).toMatchObject({ status: 'success', result: 'ok' });
    expect(b.results).toMatchObject([
      { symbol: 'SBIN', status: 'success', quantity: 2 },
      { symbol: 'RELIANCE', status: 'error', message: expect.any(String) },
      { symbol: 'INFY', status: 'success', quantity: 1 },
    ]);
    expect(b.results![1]!.orderid).toBeUndefined();
    expect(await placed()).toEqual([
      'BUY SBIN×13 MIS',
      'BUY RELIANCE×5 MIS',
      'BUY INFY×5 MIS',
      'BUY SBIN×2 MIS',
      'BUY INFY×1 MIS',
    ]);
  });

  it('an unknown symbol is that symbol’s error; the others are placed; symbols are trimmed, upper-cased and taken once', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 2 }));
    const a = answer(
      await h.hook(
        webhookId,
        chartink({ stocks: ' sbin ,TCS, M&M ,Infy,SBIN', trigger_prices: '800,3500,3000,1500,800' }),
      ),
    );
    expect(a).toMatchObject({ status: 'success', result: 'ok', scanner_id: id });
    expect(a.results).toMatchObject([
      { symbol: 'SBIN', status: 'success', quantity: 2 },
      { symbol: 'TCS', status: 'error', message: expect.any(String) },
      { symbol: 'M&M', status: 'error', message: expect.any(String) },
      { symbol: 'INFY', status: 'success', quantity: 2 },
    ]);
    expect(a.results).toHaveLength(4);
    expect(await placed()).toEqual(['BUY SBIN×2 MIS', 'BUY INFY×2 MIS']);
    expect((await h.deliveries(id))[0]!.results).toEqual(a.results);
  });

  it('symbols past max_symbols are skipped with the reason; the first ones are placed', async () => {
    h = await startScanner(dialect);
    const { webhookId } = await h.create(buyScanner({ quantity: 1, max_symbols: 2 }));
    const a = answer(await h.hook(webhookId, chartink()));
    expect(a.results).toMatchObject([
      { symbol: 'SBIN', status: 'success', quantity: 1 },
      { symbol: 'RELIANCE', status: 'success', quantity: 1 },
      { symbol: 'INFY', status: 'skipped', message: expect.stringContaining('maximum of 2') },
    ]);
    expect(await placed()).toEqual(['BUY SBIN×1 MIS', 'BUY RELIANCE×1 MIS']);
  });

  it('takes the body as text whatever the content type (JSON, text/plain, form, none)', async () => {
    h = await startScanner(dialect);
    const { webhookId } = await h.create(buyScanner({ quantity: 1 }));
    const types = [
      'application/json',
      'text/plain; charset=utf-8',
      'application/x-www-form-urlencoded',
      null,
    ];
    for (const [i, type] of types.entries()) {
      const res = await h.hook(
        webhookId,
        chartink({ stocks: 'SBIN', trigger_prices: '800', triggered_at: `${i}` }),
        {
          contentType: type,
        },
      );
      expect(res.statusCode, String(type)).toBe(200);
      expect(answer(res), String(type)).toMatchObject({ result: 'ok' });
    }
    expect(await placed()).toHaveLength(4);
  });
});

describeEachDb('scanner webhook: de-duplication', (dialect) => {
  it('the same alert within 60 s (key order aside) is rejected_dedupe and places nothing; after 61 s it places again', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 1 }));
    const alert = chartink();
    expect(answer(await h.hook(webhookId, alert))).toMatchObject({ result: 'ok' });
    const reordered = Object.fromEntries(Object.entries(alert).reverse());
    for (const [after, body] of [
      [1_000, alert],
      [29_000, reordered],
      [29_000, alert],
    ] as const) {
      await h.advance(after);
      const res = await h.hook(webhookId, body);
      expect(res.statusCode).toBe(200);
      expect(answer(res)).toMatchObject({ status: 'error', result: 'rejected_dedupe', scanner_id: id });
    }
    expect(await placed()).toHaveLength(3);
    // A different alert (another triggered_at) within the 60 s is not a duplicate.
    expect(answer(await h.hook(webhookId, chartink({ triggered_at: '10:06 am' })))).toMatchObject({
      result: 'ok',
    });
    expect(await placed()).toHaveLength(6);
    // 61 s after the first was accepted, it places again.
    await h.advance(2_000);
    expect(answer(await h.hook(webhookId, alert))).toMatchObject({ result: 'ok' });
    expect(await placed()).toHaveLength(9);
    const audit = await h.deliveries(id);
    expect(audit.map((d) => [d.result, d.http_status]).reverse()).toEqual([
      ['ok', 200],
      ['rejected_dedupe', 200],
      ['rejected_dedupe', 200],
      ['rejected_dedupe', 200],
      ['ok', 200],
      ['ok', 200],
    ]);
    expect(audit.filter((d) => d.result === 'rejected_dedupe').every((d) => d.results === null)).toBe(true);
  });

  it('de-duplication is per scanner: the same alert to two scanners places on both', async () => {
    h = await startScanner(dialect);
    const a = await h.create(buyScanner({ name: 'a', quantity: 1 }));
    const b = await h.create(buyScanner({ name: 'b', quantity: 2 }));
    const alert = chartink({ stocks: 'SBIN', trigger_prices: '800' });
    expect(answer(await h.hook(a.webhookId, alert))).toMatchObject({ result: 'ok' });
    expect(answer(await h.hook(b.webhookId, alert))).toMatchObject({ result: 'ok' });
    expect(await placed()).toEqual(['BUY SBIN×1 MIS', 'BUY SBIN×2 MIS']);
  });
});

describeEachDb('scanner webhook: the trading window', (dialect) => {
  it('before window_start, after window_end, on a Saturday and on a holiday: 409 rejected_window, audited, nothing placed', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(
      buyScanner({ quantity: 1, window_start: '09:30', window_end: '14:00' }),
    );
    let n = 0;
    const refused = async (date: string, time: string) => {
      await h.moveTo(date, time);
      const res = await h.hook(webhookId, chartink({ triggered_at: `refused ${n++}` }));
      expect(res.statusCode, `${date} ${time}`).toBe(409);
      expect(answer(res), `${date} ${time}`).toMatchObject({
        status: 'error',
        result: 'rejected_window',
        scanner_id: id,
        message: expect.any(String),
      });
    };
    const accepted = async (date: string, time: string, stocks: string, prices: string) => {
      await h.moveTo(date, time);
      const res = await h.hook(webhookId, chartink({ stocks, trigger_prices: prices }));
      expect(answer(res), `${date} ${time}`).toMatchObject({ status: 'success', result: 'ok' });
    };
    await refused(TRADING_DAY, '09:29');
    await accepted(TRADING_DAY, '09:30', 'SBIN', '800');
    await accepted(TRADING_DAY, '13:59', 'INFY', '1500');
    await refused(TRADING_DAY, '14:01');
    expect(await placed()).toEqual(['BUY SBIN×1 MIS', 'BUY INFY×1 MIS']);
    await refused(TRADING_DAY, '15:20');
    await refused(SATURDAY, '10:00');
    await refused(HOLIDAY, '10:00');
    expect(await h.rows('scanner_orders')).toHaveLength(2);
    const audit = (await h.deliveries(id)).reverse();
    expect(audit.map((d) => [d.result, d.http_status])).toEqual([
      ['rejected_window', 409],
      ['ok', 200],
      ['ok', 200],
      ['rejected_window', 409],
      ['rejected_window', 409],
      ['rejected_window', 409],
      ['rejected_window', 409],
    ]);
    expect(audit.filter((d) => d.result === 'rejected_window').every((d) => d.results === null)).toBe(true);
  });
});

describeEachDb('scanner webhook: actions', (dialect) => {
  it('FROM_SCAN_NAME takes the first of BUY/SELL/SHORT/COVER in scan_name as a whole word, any case; none is rejected_action', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ action: 'FROM_SCAN_NAME', quantity: 5 }));
    const buy = answer(
      await h.hook(
        webhookId,
        chartink({ stocks: 'SBIN', trigger_prices: '800', scan_name: 'Breakout buy 15m' }),
      ),
    );
    expect(buy).toMatchObject({
      result: 'ok',
      action: 'BUY',
      results: [{ symbol: 'SBIN', status: 'success', quantity: 5 }],
    });
    // "Short sell setup": SHORT is the first word found → a SELL entry of the size.
    const short = answer(
      await h.hook(
        webhookId,
        chartink({ stocks: 'INFY', trigger_prices: '1500', scan_name: 'Short sell setup' }),
      ),
    );
    expect(short).toMatchObject({
      result: 'ok',
      action: 'SHORT',
      results: [{ symbol: 'INFY', status: 'success', quantity: 5 }],
    });
    expect(await h.position('INFY')).toBe(-5);
    // Words only: "Shortlist" and "buyers" are not SHORT or BUY.
    const nameless = ['Shortlist of buyers', 'Momentum', '', 'BUYSELL', 'covered calls'];
    for (const scan_name of nameless) {
      const res = await h.hook(
        webhookId,
        chartink({ stocks: 'RELIANCE', trigger_prices: '2400', scan_name }),
      );
      expect(res.statusCode, scan_name).toBe(400);
      expect(answer(res), scan_name).toMatchObject({
        status: 'error',
        result: 'rejected_action',
        scanner_id: id,
      });
    }
    const { scan_name: _none, ...unnamed } = chartink({ stocks: 'RELIANCE', trigger_prices: '2400' });
    expect(answer(await h.hook(webhookId, unnamed))).toMatchObject({ result: 'rejected_action' });
    // COVER in any case, as a word: the short is closed.
    const cover = answer(
      await h.hook(
        webhookId,
        chartink({ stocks: 'INFY', trigger_prices: '1500', scan_name: 'eod cOvEr scan' }),
      ),
    );
    expect(cover).toMatchObject({
      result: 'ok',
      action: 'COVER',
      results: [{ symbol: 'INFY', status: 'success', quantity: 5 }],
    });
    expect(await h.position('INFY')).toBe(0);
    expect(await placed()).toEqual(['BUY SBIN×5 MIS', 'SELL INFY×5 MIS', 'BUY INFY×5 MIS']);
    const audit = (await h.deliveries(id)).reverse();
    expect(audit.filter((d) => d.result === 'rejected_action').map((d) => d.http_status)).toEqual(
      Array(nameless.length + 1).fill(400),
    );
  });

  it('SELL closes an existing long to zero whatever the sizing; with no long the symbol is skipped', async () => {
    h = await startScanner(dialect);
    const buy = await h.create(buyScanner({ name: 'entries', quantity: 10 }));
    const sell = await h.create(buyScanner({ name: 'exits', action: 'SELL', quantity: 1 }));
    expect(
      answer(await h.hook(buy.webhookId, chartink({ stocks: 'SBIN,INFY', trigger_prices: '800,1500' }))),
    ).toMatchObject({ result: 'ok' });
    expect(await h.position('SBIN')).toBe(10);
    const a = answer(
      await h.hook(sell.webhookId, chartink({ stocks: 'SBIN,RELIANCE', trigger_prices: '801,2400' })),
    );
    expect(a).toMatchObject({ status: 'success', result: 'ok', action: 'SELL', scanner_id: sell.id });
    expect(a.results).toMatchObject([
      { symbol: 'SBIN', status: 'success', quantity: 10 },
      { symbol: 'RELIANCE', status: 'skipped', message: 'No open position to exit' },
    ]);
    expect(await h.position('SBIN')).toBe(0);
    expect(await h.position('INFY')).toBe(10);
    expect(await placed()).toEqual(['BUY SBIN×10 MIS', 'BUY INFY×10 MIS', 'SELL SBIN×10 MIS']);
    expect(
      (await h.rows('scanner_orders')).map((r) => [r.symbol, r.side, Number(r.quantity), r.kind]),
    ).toEqual([
      ['SBIN', 'BUY', 10, 'entry'],
      ['INFY', 'BUY', 10, 'entry'],
      ['SBIN', 'SELL', 10, 'exit'],
    ]);
    // A second SELL alert: the position is flat now → skipped, nothing placed.
    await h.advance(1_000);
    const again = answer(await h.hook(sell.webhookId, chartink({ stocks: 'SBIN', trigger_prices: '802' })));
    expect(again.results).toMatchObject([{ symbol: 'SBIN', status: 'skipped' }]);
    expect(await placed()).toHaveLength(3);
  });

  it('SHORT enters a short of the size; COVER closes it; SELL does not touch a short, COVER not a long; the product is the scanner’s', async () => {
    h = await startScanner(dialect);
    const short = await h.create(buyScanner({ name: 'shorts', action: 'SHORT', quantity: 4 }));
    const cover = await h.create(buyScanner({ name: 'covers', action: 'COVER', quantity: 1 }));
    const sell = await h.create(buyScanner({ name: 'sells', action: 'SELL', quantity: 1 }));
    const cnc = await h.create(buyScanner({ name: 'cnc buys', product: 'CNC', quantity: 2 }));
    expect(
      answer(await h.hook(short.webhookId, chartink({ stocks: 'INFY', trigger_prices: '1500' }))),
    ).toMatchObject({
      result: 'ok',
      action: 'SHORT',
    });
    expect(
      answer(await h.hook(cnc.webhookId, chartink({ stocks: 'SBIN', trigger_prices: '800' }))),
    ).toMatchObject({
      result: 'ok',
    });
    expect(await h.position('INFY')).toBe(-4);
    expect(await h.position('SBIN', 'CNC')).toBe(2);
    // SELL of INFY (a short, not a long) and COVER of SBIN (a CNC long; the scanners are MIS): skipped.
    expect(
      answer(await h.hook(sell.webhookId, chartink({ stocks: 'INFY', trigger_prices: '1500' }))).results,
    ).toMatchObject([{ symbol: 'INFY', status: 'skipped' }]);
    expect(
      answer(await h.hook(cover.webhookId, chartink({ stocks: 'SBIN,INFY', trigger_prices: '800,1500' })))
        .results,
    ).toMatchObject([
      { symbol: 'SBIN', status: 'skipped', message: 'No open position to exit' },
      { symbol: 'INFY', status: 'success', quantity: 4 },
    ]);
    expect(await h.position('INFY')).toBe(0);
    expect(await h.position('SBIN', 'CNC')).toBe(2);
    expect(await placed()).toEqual(['SELL INFY×4 MIS', 'BUY SBIN×2 CNC', 'BUY INFY×4 MIS']);
  });
});

describeEachDb('scanner webhook: enabled, live and the order of the checks', (dialect) => {
  it('a disabled scanner is rejected_disabled (403), audited; enabled again it places', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 1, enabled: false }));
    const res = await h.hook(webhookId, chartink());
    expect(res.statusCode).toBe(403);
    expect(answer(res)).toMatchObject({ status: 'error', result: 'rejected_disabled', scanner_id: id });
    expect(await h.orders()).toEqual([]);
    expect((await h.manage('PUT', `/${id}`, { enabled: true })).statusCode).toBe(200);
    expect(answer(await h.hook(webhookId, chartink()))).toMatchObject({ result: 'ok' });
    expect(await placed()).toHaveLength(3);
    expect((await h.deliveries(id)).map((d) => [d.result, d.http_status]).reverse()).toEqual([
      ['rejected_disabled', 403],
      ['ok', 200],
    ]);
  });

  it('a live scanner is rejected_live_disabled (403) until the administrator enables it; then its orders never go to the sandbox', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 1, mode: 'live' }));
    const res = await h.hook(webhookId, chartink());
    expect(res.statusCode).toBe(403);
    expect(answer(res)).toMatchObject({ status: 'error', result: 'rejected_live_disabled', scanner_id: id });
    expect((await h.manage('POST', `/${id}/live`, { enabled: true })).statusCode).toBe(200);
    // Enabled: accepted; no broker is logged in, so each live order is an error — and the
    // service's analyzer switch (on) does not send them to the sandbox.
    const live = await h.hook(webhookId, chartink());
    expect(live.statusCode).toBe(200);
    const a = answer(live);
    expect(a).toMatchObject({ status: 'success', result: 'ok', scanner_id: id });
    expect(a.results!.map((r: SymbolResult) => r.status)).toEqual(['error', 'error', 'error']);
    expect(await h.orders()).toEqual([]);
    expect(await h.t.db.database.db.selectFrom('sandbox_orders').selectAll().execute()).toEqual([]);
    expect((await h.deliveries(id)).map((d) => [d.result, d.http_status]).reverse()).toEqual([
      ['rejected_live_disabled', 403],
      ['ok', 200],
    ]);
  });

  it('an analyze scanner trades in the sandbox even with the service’s analyzer switch off', async () => {
    h = await startScanner(dialect);
    const { webhookId } = await h.create(buyScanner({ quantity: 7 }));
    const off = await h.t.app.inject({
      method: 'POST',
      url: '/settings/analyze-mode/0',
      headers: { cookie: h.admin.cookie, 'x-csrf-token': h.admin.csrf },
    });
    expect(off.statusCode).toBe(200);
    const a = answer(await h.hook(webhookId, chartink({ stocks: 'SBIN', trigger_prices: '800' })));
    expect(a).toMatchObject({ result: 'ok', results: [{ symbol: 'SBIN', status: 'success', quantity: 7 }] });
    const rows = (await h.t.db.database.db.selectFrom('sandbox_orders').selectAll().execute()) as Row[];
    expect(rows.map((o) => [o.symbol, o.side, o.quantity, o.product])).toEqual([['SBIN', 'BUY', 7, 'MIS']]);
  });

  it('checks in the documented order: enabled → body → action → live → window → dedupe, every refusal audited', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(
      buyScanner({
        action: 'FROM_SCAN_NAME',
        quantity: 1,
        mode: 'live',
        window_end: '09:45',
        enabled: false,
      }),
    );
    // 10:00 IST: after the window. Disabled wins over a body that is not JSON.
    const steps: [unknown, string, number][] = [];
    const step = async (body: unknown, result: string, status: number) => {
      const res = await h.hook(webhookId, body);
      expect(res.statusCode, result).toBe(status);
      expect(answer(res), result).toMatchObject({ status: 'error', result });
      steps.push([body, result, status]);
    };
    await step('{"stocks":', 'rejected_disabled', 403);
    await h.manage('PUT', `/${id}`, { enabled: true });
    // A bad body wins over a scan name without an action.
    await step({ stocks: 'SBIN', trigger_prices: '0', scan_name: 'Momentum' }, 'rejected_payload', 400);
    // No action wins over live being off.
    await step(chartink({ scan_name: 'Momentum' }), 'rejected_action', 400);
    // Live off wins over the window.
    await step(chartink({ scan_name: 'Breakout buy' }), 'rejected_live_disabled', 403);
    await h.manage('POST', `/${id}/live`, { enabled: true });
    await step(chartink({ scan_name: 'Breakout buy' }), 'rejected_window', 409);
    expect((await h.deliveries(id)).map((d) => [d.result, d.http_status]).reverse()).toEqual(
      steps.map(([, r, s]) => [r, s]),
    );
    // A duplicate of an accepted alert on a disabled scanner: disabled is the answer.
    const other = await h.create(buyScanner({ name: 'plain', quantity: 1 }));
    const alert = chartink({ stocks: 'SBIN', trigger_prices: '800' });
    expect(answer(await h.hook(other.webhookId, alert))).toMatchObject({ result: 'ok' });
    await h.manage('PUT', `/${other.id}`, { enabled: false });
    expect(answer(await h.hook(other.webhookId, alert))).toMatchObject({ result: 'rejected_disabled' });
    await h.manage('PUT', `/${other.id}`, { enabled: true });
    expect(answer(await h.hook(other.webhookId, alert))).toMatchObject({ result: 'rejected_dedupe' });
    expect(await placed()).toEqual(['BUY SBIN×1 MIS']);
  });
});
