/**
 * Provides the order ticket to every page (the layout wraps them in it): `useOrderTicket().open()`
 * shows OrderTicket.tsx over the current page. The ticket is its own chunk, loaded when first
 * opened (docs/rules/web.md#first-load-budget).
 */
import { lazy, Suspense, useCallback, useMemo, useState, type ReactNode } from 'react';
import { Loading } from '../states';
import { OrderTicketContext, type TicketPrefill } from './ticket-context';

const OrderTicket = lazy(() => import('./OrderTicket'));

export function TicketProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<{ opened: boolean; prefill: TicketPrefill; seq: number }>({
    opened: false,
    prefill: {},
    seq: 0,
  });
  const open = useCallback(
    (prefill: TicketPrefill = {}) => setState((s) => ({ opened: true, prefill, seq: s.seq + 1 })),
    [],
  );
  const close = useCallback(() => setState((s) => ({ ...s, opened: false })), []);
  const value = useMemo(() => ({ open }), [open]);
  return (
    <OrderTicketContext.Provider value={value}>
      {children}
      {state.seq > 0 && (
        <Suspense fallback={<Loading label="Loading the order ticket…" />}>
          {/* A new opening starts a fresh form (its prefill), not the last one's leftovers. */}
          <OrderTicket key={state.seq} opened={state.opened} prefill={state.prefill} onClose={close} />
        </Suspense>
      )}
    </OrderTicketContext.Provider>
  );
}
