/**
 * What the chart page reads (docs/rules/web.md#chart), each a desk call
 * (docs/rules/web.md#desk-calls): the intervals the broker's history offers, and one interval's
 * candles over the page's lookback. Outside the desk's key: an order event changes no candle, and
 * a new history would redraw them.
 */
import { useQuery } from '@tanstack/react-query';
import { desk } from '../../../api/desk';
import { historyRange, type Candle, type HistoryInterval } from '../candles';

const KEY = ['chart'] as const;

export function useIntervals() {
  return useQuery({
    queryKey: [...KEY, 'intervals'],
    queryFn: () => desk('intervals', {}),
    staleTime: Infinity,
  });
}

/** The history's candles, oldest first, one per time (the chart refuses two bars at one time). */
function candlesOf(
  rows: readonly {
    timestamp: number;
    open: number;
    high: number;
    low: number;
    close: number;
    volume: number;
  }[],
): Candle[] {
  const byTime = new Map<number, Candle>();
  for (const r of rows)
    byTime.set(r.timestamp, {
      time: r.timestamp,
      open: r.open,
      high: r.high,
      low: r.low,
      close: r.close,
      volume: r.volume,
    });
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

export function useHistory(symbol: string, exchange: string, interval: HistoryInterval, enabled: boolean) {
  return useQuery({
    queryKey: [...KEY, 'history', exchange, symbol, interval],
    queryFn: async () => {
      const range = historyRange(interval, Date.now());
      const answer = await desk('history', { symbol, exchange, interval, ...range });
      return { candles: candlesOf(answer.data), range };
    },
    enabled: enabled && symbol !== '' && exchange !== '',
    refetchOnWindowFocus: false,
    staleTime: 30_000,
  });
}
