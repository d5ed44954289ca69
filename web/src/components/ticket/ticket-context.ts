/**
 * The order ticket, opened from anywhere in the console (a search result, a position, a button):
 * `useOrderTicket().open(prefill)` shows it over the current page. The ticket itself is
 * OrderTicket.tsx, provided once by the layout (TicketProvider.tsx).
 */
import { createContext, useContext } from 'react';

/** What the opener knows already; the person fills in or changes the rest. */
export interface TicketPrefill {
  symbol?: string;
  exchange?: string;
  action?: 'BUY' | 'SELL';
  quantity?: number;
  product?: 'CNC' | 'NRML' | 'MIS';
  pricetype?: 'MARKET' | 'LIMIT' | 'SL' | 'SL-M';
  price?: number;
  /** The contract's lot size, when the opener knows it (a search result); else the ticket looks it up. */
  lotsize?: number;
  /** The contract's tick size, when the opener knows it. */
  tick_size?: number;
  /** The contract's freeze quantity, when the opener knows it. */
  freeze_qty?: number | null;
}

export interface OrderTicketApi {
  open(prefill?: TicketPrefill): void;
}

export const OrderTicketContext = createContext<OrderTicketApi>({ open: () => undefined });

export const useOrderTicket = (): OrderTicketApi => useContext(OrderTicketContext);
