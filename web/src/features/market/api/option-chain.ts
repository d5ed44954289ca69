/**
 * What the option chain page reads and sends, each a desk call (docs/rules/web.md#desk-calls): the
 * underlying's expiries, the chain around ATM (again every 30 s, when ATM may move), the greeks of
 * its options (every 15 s, in batches of 50) and the straddle/strangle basket.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { desk, DESK_KEY, type DeskAnswer } from '../../../api/desk';
import { useRefreshAfter } from '../../../api/refresh';
import { batches, greeksBySymbol, sortExpiries, type GreeksAnswer } from '../option-chain-model';

/** Outside ['desk']: an order event refreshes the books, not the chain (it moves by the clock). */
const KEY = ['optionchain'] as const;
/** ATM re-centres on a refetch of the chain, not on a tick. */
export const CHAIN_REFRESH_MS = 30_000;
export const GREEKS_REFRESH_MS = 15_000;

/** The underlying's option expiries on its options exchange, nearest first. */
export function useExpiries(underlying: string, optionExchange: string) {
  return useQuery({
    queryKey: [...KEY, 'expiry', underlying, optionExchange],
    queryFn: async () => {
      const a = await desk('expiry', {
        symbol: underlying,
        exchange: optionExchange as 'NFO',
        instrumenttype: 'options',
      });
      return sortExpiries(a.data);
    },
    // An underlying without options is an answer (404), not a blip to try again.
    retry: false,
    staleTime: 5 * 60_000,
  });
}

export function useChain(req: {
  underlying: string;
  exchange: string;
  expiry: string | undefined;
  strikeCount: number;
}) {
  const { underlying, exchange, expiry, strikeCount } = req;
  return useQuery({
    queryKey: [...KEY, 'chain', underlying, exchange, expiry, strikeCount],
    queryFn: () =>
      desk('optionchain', { underlying, exchange, expiry_date: expiry!, strike_count: strikeCount }),
    enabled: expiry !== undefined,
    refetchInterval: CHAIN_REFRESH_MS,
    retry: false,
  });
}

/**
 * IV and delta of every option shown, by symbol: one multioptiongreeks call per 50 options. A
 * batch that failed leaves its options without greeks (a dash) rather than blanking the others.
 */
export function useGreeks(symbols: readonly string[], exchange: string) {
  return useQuery({
    queryKey: [...KEY, 'greeks', exchange, symbols],
    queryFn: async () => {
      const settled = await Promise.allSettled(
        batches(symbols).map((b) =>
          desk('multioptiongreeks', { symbols: b.map((symbol) => ({ symbol, exchange })) }),
        ),
      );
      const answered = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (answered.length === 0 && failed) throw failed.reason;
      return greeksBySymbol(answered as GreeksAnswer[]);
    },
    enabled: symbols.length > 0,
    refetchInterval: GREEKS_REFRESH_MS,
    retry: false,
  });
}

export type BasketAnswer = DeskAnswer<'basketorder'>;

/** Sends the builder's legs as one basket, then refreshes every desk query (the books). */
export function useBasket(onSuccess: (a: BasketAnswer) => void) {
  return useMutation({
    mutationFn: (orders: Record<string, unknown>[]) =>
      desk('basketorder', { strategy: 'optionchain', orders }),
    onSuccess: useRefreshAfter([DESK_KEY], { onSuccess }),
  });
}
