/**
 * GTT orders from the console (docs/rules/web.md#gtt-page): the active GTTs (`gttorderbook`) and
 * placing, modifying and cancelling one (`placegttorder`, `modifygttorder`, `cancelgttorder`),
 * each a desk call (docs/rules/web.md#desk-calls) — the sandbox in analyzer mode, the broker in
 * live mode (docs/rules/orders.md#gtt-orders). The book's key is under the desk's, so a live order
 * event (a GTT that fired placed an order) and every change made here refresh it.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { desk, useDeskReady, type DeskAnswer, type DeskBody } from '../../../api/desk';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { deskKeys } from '../../desk/api/keys';

/** One active GTT as `gttorderbook` answers it. */
export type Gtt = DeskAnswer<'gttorderbook'>['data'][number];
/** What placing, modifying or cancelling answers: the trigger id (and `mode: 'analyze'` in the sandbox). */
export type GttAnswer = DeskAnswer<'placegttorder'>;
export type PlaceGttBody = DeskBody<'placegttorder'>;
export type ModifyGttBody = DeskBody<'modifygttorder'>;

export const gttKeys = {
  /** Under the desk's key: order events and the desk's changes refresh it. By mode, as the books. */
  book: (mode: 'analyze' | 'live' | undefined) => deskKeys.book('gttorderbook', mode),
};

/** The active GTTs; not asked while the books cannot be read (live mode without a broker session). */
export function useGttBook(refetchInterval: number | false) {
  const { ready, mode } = useDeskReady();
  return useQuery({
    queryKey: gttKeys.book(mode),
    queryFn: () => desk('gttorderbook', {}),
    refetchInterval,
    enabled: ready,
  });
}

const useRefreshDesk = <T, V>(after?: AfterChange<T, V>) => useRefreshAfter([deskKeys.all()], after);

export function usePlaceGttMutation(after?: AfterChange<GttAnswer, PlaceGttBody>) {
  return useMutation({
    mutationFn: (body: PlaceGttBody) => desk('placegttorder', body),
    onSuccess: useRefreshDesk(after),
  });
}

export function useModifyGttMutation(after?: AfterChange<GttAnswer, ModifyGttBody>) {
  return useMutation({
    mutationFn: (body: ModifyGttBody) => desk('modifygttorder', body),
    onSuccess: useRefreshDesk(after),
  });
}

export function useCancelGttMutation(after?: AfterChange<GttAnswer, Gtt>) {
  return useMutation({
    mutationFn: (g: Gtt) => desk('cancelgttorder', { trigger_id: g.trigger_id }),
    onSuccess: useRefreshDesk(after),
  });
}
