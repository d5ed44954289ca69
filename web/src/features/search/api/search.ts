/**
 * The master contract's instruments (docs/rules/market.md#fno-or-general-search): the session
 * search with its F&O filters, the underlyings and expiries those filters offer, OpenAlgo's token
 * lookup (`/search/token`), and the order ticket's suggestions and contract facts
 * (docs/rules/web.md#order-ticket).
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { searchKeys } from './keys';

export type SearchAnswer = Answer<'/search/api/search'>;
export type SearchItem = SearchAnswer['results'][number];
export type TokenAnswer = Answer<'/search/token'>;

/** A query string of the filled-in parameters only. */
export function searchQuery(params: Record<string, string | number | undefined>): string {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') out.set(k, String(v));
  return out.toString();
}

/** The underlyings of a derivative exchange (every one when none), futures' included. */
export function useUnderlyings(exchange: string | undefined) {
  return useQuery({
    queryKey: searchKeys.underlyings(exchange ?? ''),
    queryFn: () =>
      api<Answer<'/search/api/underlyings'>>(
        'GET',
        '/search/api/underlyings?' + searchQuery({ exchange, include_futures: '1' }),
      ),
    staleTime: 60_000,
  });
}

/** The expiries of one underlying (asked once one is chosen). */
export function useExpiries(underlying: string, exchange: string | undefined, type: string) {
  return useQuery({
    queryKey: searchKeys.expiries(underlying, exchange ?? '', type),
    queryFn: () =>
      api<Answer<'/search/api/expiries'>>(
        'GET',
        '/search/api/expiries?' + searchQuery({ underlying, exchange, instrumenttype: type }),
      ),
    enabled: underlying !== '',
    staleTime: 60_000,
  });
}

/**
 * The instruments matching a query string (`searchQuery`); asked only when `enabled`
 * (docs/rules/market.md#empty-session-search), the last results shown while the next load.
 */
export function useInstrumentSearch(query: string, enabled: boolean) {
  return useQuery({
    queryKey: searchKeys.results(query),
    queryFn: () => api<SearchAnswer>('GET', '/search/api/search?' + query),
    enabled,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}

/** What the token page asks: a symbol on an exchange, or the broker's token (on an exchange, optionally). */
export interface TokenQuestion {
  by: 'symbol' | 'token';
  symbol: string;
  exchange: string;
  token: string;
}

export function useTokenLookup(asked: TokenQuestion | undefined) {
  return useQuery({
    queryKey: searchKeys.token(asked),
    queryFn: () => {
      const a = asked!;
      const params =
        a.by === 'symbol'
          ? new URLSearchParams({ symbol: a.symbol, exchange: a.exchange })
          : new URLSearchParams(a.exchange ? { token: a.token, exchange: a.exchange } : { token: a.token });
      return api<TokenAnswer>('GET', '/search/token?' + params.toString());
    },
    enabled: asked !== undefined,
  });
}

/** The ticket's suggestions for what is typed (two characters at least). */
export function useSuggestions(q: string, exchange: string) {
  return useQuery({
    queryKey: searchKeys.suggestions(q, exchange),
    queryFn: () =>
      api<SearchAnswer>('GET', '/search/api/search?' + new URLSearchParams({ q, exchange }).toString()),
    enabled: q.length >= 2,
    staleTime: 30_000,
  });
}

/**
 * A contract's facts by symbol and exchange, for the ticket; `/search/token` answers an empty list
 * for an unknown symbol (no error to log).
 */
export function useContractFacts(symbol: string, exchange: string, enabled: boolean) {
  return useQuery({
    queryKey: searchKeys.facts(symbol, exchange),
    queryFn: () =>
      api<TokenAnswer>('GET', '/search/token?' + new URLSearchParams({ symbol, exchange }).toString()),
    enabled,
    staleTime: 60_000,
  });
}
