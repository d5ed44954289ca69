/**
 * The mutations every webhook source of this area shares: a call that refreshes the source list
 * once it is done, and saving a source (edit or create) from its form.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';

/**
 * A mutation that refreshes the queries under `key` once it succeeded (`on: 'success'`) or
 * whatever its outcome (`on: 'settled'`, for a switch whose refusal must show the stored value).
 */
export function useRefreshing<V, R>(
  mutationFn: (vars: V) => Promise<R>,
  key: readonly unknown[],
  on: 'success' | 'settled' = 'success',
) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  return useMutation({
    mutationFn,
    ...(on === 'success' ? { onSuccess: refresh } : { onSettled: refresh }),
  });
}

/**
 * Saving a source from its form: `update` the source `id`, or without one `create` a new source,
 * whose credentials (issued once) it answers. The list under `key` is refreshed before the form
 * closes, so the new or changed row is there when it does.
 */
export function useSaveSource<B, I>(
  id: number | undefined,
  key: readonly unknown[],
  update: (id: number, body: B) => Promise<unknown>,
  create: (body: B) => Promise<I>,
) {
  return useRefreshing(async (body: B): Promise<I | undefined> => {
    if (id === undefined) return create(body);
    await update(id, body);
    return undefined;
  }, key);
}
