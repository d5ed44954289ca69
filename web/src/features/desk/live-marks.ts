/**
 * Open positions marked at live prices (docs/rules/web.md#live-prices), for every page that shows
 * them (/positions, the dashboard): the positionbook's answer, each open position's LTP following
 * the feed and its unrealised P&L and P&L moving with it.
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
