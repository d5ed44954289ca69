/**
 * The query keys of the market watch's lists (docs/rules/watchlists.md#watchlist-routes), in one
 * place: one query holds every list of the user with its items, so every change refreshes it.
 */
export const watchlistKeys = {
  lists: () => ['watchlists'] as const,
};
