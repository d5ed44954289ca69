/**
 * What a change does after the server took it, shared by the console's mutation hooks
 * (`web/src/features/<area>/api`): the page's own reaction first (a form emptied, a dialog
 * closed), then the queries the change touches are fetched again, then what the page does once
 * they show the change (a dialog that closes on the refreshed list). The mutation stays pending
 * until all of it is done, so its button keeps spinning while the list refreshes.
 */
import { useQueryClient, type QueryKey } from '@tanstack/react-query';

/** A page's reactions to a change the server accepted. */
export interface AfterChange<TData, TVars> {
  /** At once, with the answer (before the queries are fetched again). */
  onSuccess?: (data: TData, vars: TVars) => unknown;
  /** Once the touched queries are fetched again. */
  onRefreshed?: (data: TData, vars: TVars) => unknown;
}

/**
 * The `onSuccess` of a mutation that refreshes `keys` (each in turn, every query under it), with
 * the page's reactions around it.
 */
export function useRefreshAfter<TData, TVars>(
  keys: readonly QueryKey[],
  after: AfterChange<TData, TVars> = {},
): (data: TData, vars: TVars) => Promise<void> {
  const queryClient = useQueryClient();
  return async (data, vars) => {
    await after.onSuccess?.(data, vars);
    for (const queryKey of keys) await queryClient.invalidateQueries({ queryKey });
    await after.onRefreshed?.(data, vars);
  };
}
