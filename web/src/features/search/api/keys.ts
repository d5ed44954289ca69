/**
 * The query keys of the instrument search (docs/rules/market.md#fno-or-general-search): the
 * search page's lists and lookups, and the order ticket's suggestions and contract facts
 * (docs/rules/web.md#order-ticket). An order event changes no contract: none of these is under
 * the desk's key.
 */
export const searchKeys = {
  underlyings: (exchange: string) => ['search', 'underlyings', exchange] as const,
  expiries: (underlying: string, exchange: string, type: string) =>
    ['search', 'expiries', underlying, exchange, type] as const,
  results: (query: string) => ['search', 'results', query] as const,
  token: (asked: unknown) => ['search', 'token', asked] as const,
  suggestions: (q: string, exchange: string) => ['ticket-suggestions', q, exchange] as const,
  facts: (symbol: string, exchange: string) => ['ticket-facts', symbol, exchange] as const,
};
