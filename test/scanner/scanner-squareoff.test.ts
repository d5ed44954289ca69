/**
 * The scanner's square-off at the window's end (docs/rules/scanner.md#scanner-squareoff): at
 * an MIS scanner's squareoff_time the pass closes, per symbol, the net of what the scanner itself
 * recorded that day (entries, exits, square-offs) with an opposite MARKET order; positions it did
 * not open are left alone; the day's square-off runs once; one audit row per pass.
 *
 * The square-off times are before 15:15 so the sandbox's own MIS square-off (NSE 15:15, run by
 * the engine's ticks) never interferes.
 */
import { afterEach, expect, it } from 'vitest';
import { MINI } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';
import {
  TRADING_DAY,
  buyScanner,
  chartink,
  startScanner,
  type HookAnswer,
  type ScannerHarness,
} from '../helpers/scanner.js';

let h: ScannerHarness;
afterEach(async () => {
  await h?.close();
});

const answer = (res: { json(): unknown }) => res.json() as HookAnswer;
/** The analyzer orders as `SIDE SYMBOL×QTY PRODUCT`, oldest first. */
const placed = async () =>
  (await h.orders())
    .map((o) => `${String(o.action)} ${String(o.symbol)}×${String(o.quantity)} ${String(o.product)}`)
    .reverse();

describeEachDb('scanner MIS square-off', (dialect) => {
  it('closes what the scanner opened at squareoff_time, once; a position it did not open is left alone', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(
      buyScanner({ quantity: 10, window_end: '14:00', squareoff_time: '14:30' }),
    );
    // 10:00: the scanner buys SBIN and INFY; by hand, 5 more SBIN and 3 RELIANCE.
    const a = answer(await h.hook(webhookId, chartink({ stocks: 'SBIN,INFY', trigger_prices: '800,1500' })));
    expect(a).toMatchObject({ result: 'ok' });
    expect((await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 5 })).ok).toBe(true);
    expect((await h.place({ ...MINI.RELIANCE, side: 'BUY', quantity: 3 })).ok).toBe(true);
    expect(await h.position('SBIN')).toBe(15);
    // Before the time the pass does nothing.
    await h.moveTo(TRADING_DAY, '14:29');
    await h.scanner().squareOff.run();
    expect(await h.orders()).toHaveLength(4);
    // At squareoff_time: a SELL of the scanner's own net per symbol.
    await h.moveTo(TRADING_DAY, '14:30');
    await h.scanner().squareOff.run();
    expect(await placed()).toEqual([
      'BUY SBIN×10 MIS',
      'BUY INFY×10 MIS',
      'BUY SBIN×5 MIS',
      'BUY RELIANCE×3 MIS',
      'SELL SBIN×10 MIS',
      'SELL INFY×10 MIS',
    ]);
    const sells = (await h.orders()).filter((o) => o.action === 'SELL');
    expect(sells.every((o) => o.pricetype === 'MARKET' && o.order_status === 'complete')).toBe(true);
    expect(await h.position('SBIN')).toBe(5);
    expect(await h.position('INFY')).toBe(0);
    expect(await h.position('RELIANCE')).toBe(3);
    // Twice (and later the same day): placed once.
    await h.scanner().squareOff.run();
    await h.moveTo(TRADING_DAY, '14:45');
    await h.scanner().squareOff.run();
    expect(await h.orders()).toHaveLength(6);
    // Recorded as square-offs; the pass wrote one audit row.
    const recorded = await h.rows('scanner_orders');
    expect(recorded.map((r) => [r.symbol, r.side, Number(r.quantity), r.kind])).toEqual([
      ['SBIN', 'BUY', 10, 'entry'],
      ['INFY', 'BUY', 10, 'entry'],
      ['SBIN', 'SELL', 10, 'squareoff'],
      ['INFY', 'SELL', 10, 'squareoff'],
    ]);
    const audit = await h.deliveries(id);
    expect(audit.map((d) => d.result)).toEqual(['squareoff', 'ok']);
    expect(audit[0]!.results).toMatchObject([
      { symbol: 'SBIN', status: 'success', quantity: 10 },
      { symbol: 'INFY', status: 'success', quantity: 10 },
    ]);
    // Alerts after the window are refused anyway.
    const late = await h.hook(webhookId, chartink({ triggered_at: '2:50 pm' }));
    expect(late.statusCode).toBe(409);
    expect(answer(late)).toMatchObject({ result: 'rejected_window' });
  });

  it('the net counts the scanner’s exits and shorts: an exited symbol is not sold again, a short is bought back', async () => {
    h = await startScanner(dialect);
    const { webhookId } = await h.create(
      buyScanner({ action: 'FROM_SCAN_NAME', quantity: 4, window_end: '14:00', squareoff_time: '14:15' }),
    );
    const hook = async (stocks: string, prices: string, scan_name: string) => {
      const a = answer(await h.hook(webhookId, chartink({ stocks, trigger_prices: prices, scan_name })));
      expect(a, scan_name).toMatchObject({ result: 'ok' });
      expect(
        a.results!.every((r) => r.status === 'success'),
        scan_name,
      ).toBe(true);
    };
    await hook('SBIN,INFY', '800,1500', 'momentum buy');
    await h.advance(1_000);
    await hook('INFY', '1510', 'profit sell');
    await h.advance(1_000);
    await hook('RELIANCE', '2400', 'breakdown short');
    await h.advance(1_000);
    await hook('SBIN', '805', 'add more BUY');
    expect(await h.position('SBIN')).toBe(8);
    expect(await h.position('INFY')).toBe(0);
    expect(await h.position('RELIANCE')).toBe(-4);
    await h.moveTo(TRADING_DAY, '14:15');
    await h.scanner().squareOff.run();
    const closing = (await placed()).slice(5);
    expect(closing.sort()).toEqual(['BUY RELIANCE×4 MIS', 'SELL SBIN×8 MIS']);
    expect(await h.position('SBIN')).toBe(0);
    expect(await h.position('RELIANCE')).toBe(0);
  });

  it('each scanner squares off its own share at its own time; CNC scanners are never squared off', async () => {
    h = await startScanner(dialect);
    const early = await h.create(
      buyScanner({ name: 'early', quantity: 10, window_end: '14:00', squareoff_time: '14:30' }),
    );
    const late = await h.create(
      buyScanner({ name: 'late', quantity: 5, window_end: '14:00', squareoff_time: '14:45' }),
    );
    const cnc = await h.create(buyScanner({ name: 'cnc', product: 'CNC', quantity: 2 }));
    const sbin = chartink({ stocks: 'SBIN', trigger_prices: '800' });
    for (const s of [early, late, cnc])
      expect(answer(await h.hook(s.webhookId, sbin))).toMatchObject({ result: 'ok' });
    expect(await h.position('SBIN')).toBe(15);
    expect(await h.position('SBIN', 'CNC')).toBe(2);
    await h.moveTo(TRADING_DAY, '14:30');
    await h.scanner().squareOff.run();
    expect(await h.position('SBIN')).toBe(5);
    await h.moveTo(TRADING_DAY, '14:45');
    await h.scanner().squareOff.run();
    expect(await h.position('SBIN')).toBe(0);
    await h.moveTo(TRADING_DAY, '15:05');
    await h.scanner().squareOff.run();
    expect(await h.position('SBIN', 'CNC')).toBe(2);
    expect((await placed()).slice(3)).toEqual(['SELL SBIN×10 MIS', 'SELL SBIN×5 MIS']);
    expect((await h.deliveries(early.id)).map((d) => d.result)).toEqual(['squareoff', 'ok']);
    expect((await h.deliveries(late.id)).map((d) => d.result)).toEqual(['squareoff', 'ok']);
    expect((await h.deliveries(cnc.id)).map((d) => d.result)).toEqual(['ok']);
  });

  it('a scanner that opened nothing today places nothing at its square-off', async () => {
    h = await startScanner(dialect);
    const { id } = await h.create(buyScanner({ quantity: 10, window_end: '14:00', squareoff_time: '14:30' }));
    expect((await h.place({ ...MINI.INFY, side: 'BUY', quantity: 2 })).ok).toBe(true);
    await h.moveTo(TRADING_DAY, '14:30');
    await h.scanner().squareOff.run();
    expect(await placed()).toEqual(['BUY INFY×2 MIS']);
    expect(await h.position('INFY')).toBe(2);
    expect(await h.rows('scanner_orders')).toEqual([]);
    expect((await h.deliveries(id)).every((d) => d.result === 'squareoff')).toBe(true);
  });

  it('a disabled scanner still closes what it opened; a position already closed by another scanner is not reversed', async () => {
    h = await startScanner(dialect);
    const a = await h.create(
      buyScanner({ name: 'a', quantity: 6, window_end: '14:00', squareoff_time: '14:30' }),
    );
    const exits = await h.create(buyScanner({ name: 'exits', action: 'SELL', quantity: 1 }));
    expect(
      answer(await h.hook(a.webhookId, chartink({ stocks: 'SBIN,INFY', trigger_prices: '800,1500' }))),
    ).toMatchObject({ result: 'ok' });
    // Another scanner exits SBIN; then `a` is disabled.
    expect(
      answer(await h.hook(exits.webhookId, chartink({ stocks: 'SBIN', trigger_prices: '800' }))),
    ).toMatchObject({
      result: 'ok',
      results: [{ symbol: 'SBIN', status: 'success', quantity: 6 }],
    });
    expect((await h.manage('PUT', `/${a.id}`, { enabled: false })).statusCode).toBe(200);
    await h.moveTo(TRADING_DAY, '14:30');
    await h.scanner().squareOff.run();
    // INFY is closed; SBIN (flat already) is not sold again into a short.
    expect((await placed()).slice(3)).toEqual(['SELL INFY×6 MIS']);
    expect(await h.position('INFY')).toBe(0);
    expect(await h.position('SBIN')).toBe(0);
    const [pass] = await h.deliveries(a.id);
    expect(pass).toMatchObject({ result: 'squareoff' });
    expect(pass!.results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ symbol: 'INFY', status: 'success', quantity: 6 }),
        expect.objectContaining({ symbol: 'SBIN', status: 'skipped' }),
      ]),
    );
  });
});
