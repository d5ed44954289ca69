/**
 * Open positions and holdings marked at live prices (docs/rules/web.md#live-prices), for every page
 * that shows them (/positions, the dashboard, /holdings): the book's answer, each open position's
 * (each holding's) LTP following the feed and its P&L moving with it, the totals too.
 */
import { useMemo } from 'react';
import type { DeskAnswer } from '../../api/desk';
import { tickKey, useLiveTicks } from '../../api/live-ticks';

export type Position = DeskAnswer<'positionbook'>['data'][number];

const cents = (v: number) => Math.round(v * 100) / 100;

/**
 * A position marked at a live price: the unrealised P&L moves by the price's change times the
 * quantity from what the positionbook answered (an unmarked one, LTP 0, from the average price),
 * and the P&L with it. A closed position, or no price yet, is left as answered.
 */
export function markedAt(p: Position, ltp: number | undefined): Position {
  if (ltp === undefined || p.quantity === 0 || ltp === p.ltp) return p;
  const unrealized = cents(
    p.ltp ? p.unrealized_pnl + (ltp - p.ltp) * p.quantity : (ltp - p.average_price) * p.quantity,
  );
  return { ...p, ltp, unrealized_pnl: unrealized, pnl: cents(p.realized_pnl + unrealized) };
}

/**
 * The positions answered, the open ones marked at the feed's prices (subscribed in LTP mode while
 * the calling page is shown; it must hold the live socket, `useLive`), and whether the feed is
 * stale for any of them. `undefined` while there is no answer.
 */
export function useMarkedPositions(answered: readonly Position[] | undefined): {
  rows: Position[] | undefined;
  stale: boolean;
} {
  const refs = useMemo(
    () =>
      (answered ?? [])
        .filter((p) => p.quantity !== 0)
        .map((p) => ({ symbol: p.symbol, exchange: p.exchange })),
    [answered],
  );
  const ticks = useLiveTicks(refs);
  const rows = useMemo(
    () => answered?.map((p) => markedAt(p, ticks.ltp.get(tickKey(p)))),
    [answered, ticks.ltp],
  );
  return { rows, stale: ticks.stale };
}

export type Holding = DeskAnswer<'holdings'>['data']['holdings'][number];
export type HoldingStatistics = DeskAnswer<'holdings'>['data']['statistics'];

/**
 * A holding marked at a live price: its P&L is the price's distance from the average cost times the
 * quantity, and its P&L % that distance over the cost. No price yet, or the one answered, leaves
 * it as answered.
 */
export function markedHolding(h: Holding, ltp: number | undefined): Holding {
  if (ltp === undefined || ltp === h.ltp) return h;
  const pnl = cents((ltp - h.average_price) * h.quantity);
  const pnlpercent =
    h.average_price > 0 ? cents(((ltp - h.average_price) / h.average_price) * 100) : h.pnlpercent;
  return { ...h, ltp, pnl, pnlpercent };
}

/**
 * The holdings' totals moved by what the live prices changed: the holding value and the P&L by
 * each marked holding's difference from its answered figures (so an unmoved book keeps the
 * server's figures exactly), the P&L % of the invested value.
 */
export function markedStatistics(
  s: HoldingStatistics,
  answered: readonly Holding[],
  marked: readonly Holding[],
): HoldingStatistics {
  let value = 0;
  let pnl = 0;
  answered.forEach((a, i) => {
    const m = marked[i]!;
    if (m === a) return;
    value += (m.ltp - a.ltp) * a.quantity;
    pnl += m.pnl - a.pnl;
  });
  if (value === 0 && pnl === 0) return s;
  const totalprofitandloss = cents(s.totalprofitandloss + pnl);
  return {
    ...s,
    totalholdingvalue: cents(s.totalholdingvalue + value),
    totalprofitandloss,
    totalpnlpercentage:
      s.totalinvvalue > 0 ? cents((totalprofitandloss / s.totalinvvalue) * 100) : s.totalpnlpercentage,
  };
}

/** The holdings answered, marked at the feed's prices (LTP mode), their totals with them. */
export function useMarkedHoldings(answered: DeskAnswer<'holdings'>['data'] | undefined): {
  rows: Holding[] | undefined;
  statistics: HoldingStatistics | undefined;
  stale: boolean;
} {
  const refs = useMemo(
    () => (answered?.holdings ?? []).map((h) => ({ symbol: h.symbol, exchange: h.exchange })),
    [answered],
  );
  const ticks = useLiveTicks(refs);
  return useMemo(() => {
    if (!answered) return { rows: undefined, statistics: undefined, stale: ticks.stale };
    const rows = answered.holdings.map((h) => markedHolding(h, ticks.ltp.get(tickKey(h))));
    return {
      rows,
      statistics: markedStatistics(answered.statistics, answered.holdings, rows),
      stale: ticks.stale,
    };
  }, [answered, ticks.ltp, ticks.stale]);
}
