/**
 * What the order benches (`placeorder-analyze`, `placeorder-live`) share: the Kite NSE snapshot
 * that holds SBIN, the placeorder bodies, and the after-run checks of the server's log and
 * database (events dropped, log rows written).
 */
import { sharedData } from '../lib/shared-data.js';
import { readRunDatabase } from '../lib/processes.js';

/** Zerodha's NSE instrument dump (8,320 rows, SBIN among them): a small, real master contract. */
export const kiteNseSnapshot = (): string => sharedData('zerodha', 'kite_instruments_NSE_2025-10-06.csv');

/** The bench user (the first user, hence the administrator) and its password. */
export const BENCH_USER = { username: 'bench', password: 'bench-password-1' } as const;

/** The warning the order event bus logs for each event it drops (order-events.ts). */
export const DROPPED_MSG = 'order event dropped: dispatch queue full';
/** The warning the latency service logs when a batch of latency rows could not be written. */
export const LATENCY_WRITE_FAILED_MSG = 'latency write failed';

/** A placeorder body: SBIN on NSE, MARKET, MIS, quantity 1. */
export function sbinOrder(apikey: string, action: 'BUY' | 'SELL'): string {
  return JSON.stringify({
    apikey,
    strategy: 'bench',
    symbol: 'SBIN',
    exchange: 'NSE',
    action,
    quantity: 1,
    pricetype: 'MARKET',
    product: 'MIS',
  });
}

/** Lines of a (pino JSON) server log whose `msg` contains `text`. */
export function countLogLines(log: string, text: string): number {
  let n = 0;
  for (const line of log.split('\n')) if (line.includes(text)) n++;
  return n;
}

/** Row counts of the order tables of a stopped server's database. */
export interface OrderRows {
  /** `sandbox_orders` by status (analyzer mode). */
  sandboxOrders: Record<string, number>;
  /** `analyzer_logs` / `order_logs` rows by event name (one per order event delivered). */
  analyzerLogs: Record<string, number>;
  orderLogs: Record<string, number>;
  /** `order_latency` rows (one per placement, written in batches off the request path). */
  latencyRows: number;
  /** Algodesk's own overhead per placement (`overhead_ms` = total − broker − validation), ms. */
  overheadMs: { p50: number; p99: number } | null;
}

export function readOrderRows(dataDir: string): Promise<OrderRows> {
  return readRunDatabase(dataDir, async (all) => {
    const grouped = async (sql: string): Promise<Record<string, number>> =>
      Object.fromEntries((await all(sql)).map((r) => [String(r.k), Number(r.n)] as const));
    const overhead = (await all('select overhead_ms as v from order_latency order by v')).map((r) =>
      Number(r.v),
    );
    const at = (p: number) =>
      overhead[Math.min(overhead.length - 1, Math.ceil((p / 100) * overhead.length) - 1)]!;
    return {
      sandboxOrders: await grouped('select status as k, count(*) as n from sandbox_orders group by status'),
      analyzerLogs: await grouped('select event as k, count(*) as n from analyzer_logs group by event'),
      orderLogs: await grouped('select event as k, count(*) as n from order_logs group by event'),
      latencyRows: overhead.length,
      overheadMs: overhead.length > 0 ? { p50: round3(at(50)), p99: round3(at(99)) } : null,
    };
  });
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

export const sum = (counts: Record<string, number>): number =>
  Object.values(counts).reduce((a, b) => a + b, 0);

/** `complete 120, rejected 2` */
export const describeCounts = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || 'none';
