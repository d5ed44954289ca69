/**
 * The query keys of the trader's desk, in one place (docs/rules/web.md#desk-live-updates): every
 * book's key starts with `['desk']` and the Action Center's with `['action-center']`; a live order
 * event refreshes both (web/src/api/live.ts), a change of the Action Center's queue the latter.
 * The books are keyed by mode, so the sandbox's figures are never shown as the broker's
 * (docs/rules/web.md#dashboard).
 */
const desk = ['desk'] as const;
const actionCenter = ['action-center'] as const;

/** Every desk query's key starts with this: a live order event refreshes them all. */
export const DESK_KEY = desk;

export const deskKeys = {
  all: () => desk,
  book: (call: string, mode: 'analyze' | 'live' | undefined) => [...desk, call, mode] as const,
  orderStatus: (orderid: string) => [...desk, 'orderstatus', orderid] as const,
  /** A contract's quote, read once for its circuit band (the feed's ticks carry none). */
  band: (exchange: string, symbol: string, mode: 'analyze' | 'live' | undefined) =>
    ['quote-band', mode, exchange, symbol] as const,
  /** The margin one order as typed needs (under the desk: fills change the account it is priced against). */
  margin: (order: unknown, mode: 'analyze' | 'live' | undefined) => [...desk, 'margin', mode, order] as const,
  /** The broker session of the signed-in user (null when none). */
  brokerSession: () => ['broker-session'] as const,
};

export const actionCenterKeys = {
  all: () => actionCenter,
  list: (status: 'pending' | 'approved' | 'rejected') => [...actionCenter, status] as const,
};
