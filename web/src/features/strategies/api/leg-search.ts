/**
 * The wizard's contract look-ups (docs/rules/strategies.md#signal-contract-at-signal-time and
 * #batch-leg-resolution): the master contract searched for a leg's symbol as it is typed, and
 * the underlyings an exchange lists derivatives of. Typed from the search routes' schemas.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { strategyKeys } from './keys';

const CONTRACTS_STALE_MS = 60_000;

export const legSearchQueries = {
  /** Contracts on `exchange` matching `q` (asked from two characters on). */
  search: (exchange: string, q: string) =>
    queryOptions({
      queryKey: strategyKeys.legSearch(exchange, q),
      queryFn: () =>
        api<Answer<'/search/api/search'>>(
          'GET',
          `/search/api/search?q=${encodeURIComponent(q)}&exchange=${encodeURIComponent(exchange)}`,
        ),
      enabled: q.length >= 2,
      staleTime: CONTRACTS_STALE_MS,
    }),
  underlyings: (exchange: string) =>
    queryOptions({
      queryKey: strategyKeys.legUnderlyings(exchange),
      queryFn: () =>
        api<Answer<'/search/api/underlyings'>>(
          'GET',
          `/search/api/underlyings?exchange=${encodeURIComponent(exchange)}&include_futures=1`,
        ),
      staleTime: CONTRACTS_STALE_MS,
    }),
};

export const useLegSearch = (exchange: string, q: string) => useQuery(legSearchQueries.search(exchange, q));
export const useUnderlyings = (exchange: string) => useQuery(legSearchQueries.underlyings(exchange));
