/**
 * The watch-list routes (docs/rules/watchlists.md#watchlist-routes) as a query and mutations: the
 * user's lists with their items; create, rename and delete a list; add and remove an instrument;
 * reorder a list's instruments. Each change refreshes the lists. A reorder shows the new order at
 * once and puts the old one back when the server refuses it (docs/rules/watchlists.md#watchlist-order).
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { watchlistKeys } from './keys';

const BASE = '/watchlist/api/lists';

type ListsAnswer = Answer<'/watchlist/api/lists'>;
/** The user's lists, each with its instruments, in their order. */
export type WatchLists = ListsAnswer['data'];
/** One list with its instruments. */
export type WatchList = WatchLists[number];
/** One instrument of a list. */
export type WatchItem = WatchList['items'][number];
/** What a new item names: a symbol of the live master contract and its exchange. */
export type NewWatchItem = { symbol: string; exchange: string };

export const watchlistQueries = {
  lists: () =>
    queryOptions({
      queryKey: watchlistKeys.lists(),
      queryFn: async (): Promise<WatchLists> => (await api<ListsAnswer>('GET', BASE)).data,
    }),
};

export const useWatchlists = () => useQuery(watchlistQueries.lists());

/** A mutation that refreshes the lists once it succeeded. */
function useListsChange<V, R>(mutationFn: (vars: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: watchlistKeys.lists() }),
  });
}

/** A new, empty list at the end (409 when the name is taken or the user has 20 lists). */
export const useCreateList = () =>
  useListsChange(
    async (name: string) => (await api<Answer<'/watchlist/api/lists', 'post'>>('POST', BASE, { name })).data,
  );

export const useRenameList = () =>
  useListsChange(
    async ({ id, name }: { id: number; name: string }) =>
      (await api<Answer<'/watchlist/api/lists/{id}', 'patch'>>('PATCH', `${BASE}/${id}`, { name })).data,
  );

export const useDeleteList = () =>
  useListsChange(
    async (id: number) =>
      (await api<Answer<'/watchlist/api/lists/{id}', 'delete'>>('DELETE', `${BASE}/${id}`)).data,
  );

/** Appends an instrument (404 when the master contract lacks it, 409 when the list holds it or 100 already). */
export const useAddItem = () =>
  useListsChange(
    async ({ listId, item }: { listId: number; item: NewWatchItem }) =>
      (
        await api<Answer<'/watchlist/api/lists/{id}/items', 'post'>>('POST', `${BASE}/${listId}/items`, {
          symbol: item.symbol,
          exchange: item.exchange,
        })
      ).data,
  );

export const useRemoveItem = () =>
  useListsChange(
    async ({ listId, itemId }: { listId: number; itemId: number }) =>
      (
        await api<Answer<'/watchlist/api/lists/{id}/items/{itemId}', 'delete'>>(
          'DELETE',
          `${BASE}/${listId}/items/${itemId}`,
        )
      ).data,
  );

/** The list's items in the order of `itemIds` (ids it does not hold are left out). */
export function reordered(list: WatchList, itemIds: readonly number[]): WatchList {
  const byId = new Map(list.items.map((i) => [i.id, i]));
  const items = itemIds.flatMap((id) => {
    const item = byId.get(id);
    return item ? [item] : [];
  });
  return { ...list, items };
}

/**
 * Reorders a list's instruments: every item id of the list once, in the new order. The cached
 * lists show the new order at once; a refusal (or a failure) puts the previous lists back, and
 * either way the lists are read again once the server has answered.
 */
export const useReorderItems = () => {
  const queryClient = useQueryClient();
  const key = watchlistKeys.lists();
  return useMutation({
    mutationFn: async ({ listId, itemIds }: { listId: number; itemIds: number[] }) =>
      (
        await api<Answer<'/watchlist/api/lists/{id}/order', 'put'>>('PUT', `${BASE}/${listId}/order`, {
          item_ids: itemIds,
        })
      ).data,
    onMutate: async ({ listId, itemIds }) => {
      // A read on its way would overwrite the optimistic order with the old one.
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<WatchLists>(key);
      if (previous)
        queryClient.setQueryData<WatchLists>(
          key,
          previous.map((l) => (l.id === listId ? reordered(l, itemIds) : l)),
        );
      return { previous };
    },
    onError: (_err, _vars, context) => {
      if (context?.previous) queryClient.setQueryData<WatchLists>(key, context.previous);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
};
