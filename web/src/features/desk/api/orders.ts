/**
 * The desk's changes to orders and positions (docs/rules/web.md#desk-books,
 * docs/rules/web.md#order-ticket), each a desk call (docs/rules/web.md#desk-calls) that refreshes
 * every desk query once it is answered: cancel one working order or all, modify one, close one
 * position (`placesmartorder` to a target size of 0, docs/rules/orders.md#smart-and-basket-orders)
 * or all, place an order; and the placed order's status.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { closingAction } from '../../../../../src/domain/orders';
import { api, type Answer } from '../../../api/client';
import { desk, type DeskAnswer, type DeskBody } from '../../../api/desk';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { deskKeys } from './keys';

export type Order = DeskAnswer<'orderbook'>['data']['orders'][number];
export type Position = DeskAnswer<'positionbook'>['data'][number];

const useRefreshDesk = <T, V>(after?: AfterChange<T, V>) => useRefreshAfter([deskKeys.all()], after);

export function useCancelOrderMutation(after?: AfterChange<DeskAnswer<'cancelorder'>, Order>) {
  return useMutation({
    mutationFn: (o: Order) => desk('cancelorder', { orderid: o.orderid }),
    onSuccess: useRefreshDesk(after),
  });
}

export function useCancelAllOrdersMutation(after?: AfterChange<DeskAnswer<'cancelallorder'>, void>) {
  return useMutation({
    mutationFn: () => desk('cancelallorder', {}),
    onSuccess: useRefreshDesk(after),
  });
}

export function useModifyOrderMutation(
  after?: AfterChange<DeskAnswer<'modifyorder'>, DeskBody<'modifyorder'>>,
) {
  return useMutation({
    mutationFn: (body: DeskBody<'modifyorder'>) => desk('modifyorder', body),
    onSuccess: useRefreshDesk(after),
  });
}

/** Closes one position at market: a smart order to a position size of 0. */
export function useClosePositionMutation(after?: AfterChange<DeskAnswer<'placesmartorder'>, Position>) {
  return useMutation({
    mutationFn: (p: Position) =>
      desk('placesmartorder', {
        strategy: '',
        symbol: p.symbol,
        exchange: p.exchange,
        action: closingAction(p.quantity),
        product: p.product,
        pricetype: 'MARKET',
        quantity: Math.abs(p.quantity),
        position_size: 0,
      } as DeskBody<'placesmartorder'>),
    onSuccess: useRefreshDesk(after),
  });
}

export function useCloseAllPositionsMutation(after?: AfterChange<DeskAnswer<'closeposition'>, void>) {
  return useMutation({
    mutationFn: () => desk('closeposition', {}),
    onSuccess: useRefreshDesk(after),
  });
}

/**
 * The order ticket's order, as the ticket's fields say it when it is sent (`bodyOf`); `onSettled`
 * runs whatever the answer (the confirmation closes).
 */
export function usePlaceOrderMutation(bodyOf: () => DeskBody<'placeorder'>, onSettled: () => void) {
  return useMutation({
    mutationFn: () => desk('placeorder', bodyOf()),
    onSettled,
    onSuccess: useRefreshDesk(),
  });
}

/** A placed order's state as the order book has it (refreshed with the books). */
export function useOrderStatus(orderid: string) {
  return useQuery({
    queryKey: deskKeys.orderStatus(orderid),
    queryFn: () => desk('orderstatus', { orderid }),
  });
}

/** The broker of the session, read when a live order is confirmed. */
export function useConfirmingBrokerSession() {
  return useQuery({
    queryKey: deskKeys.brokerSession(),
    queryFn: () => api<Answer<'/broker/session'>>('GET', '/broker/session'),
  });
}
