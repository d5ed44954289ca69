/**
 * The query keys of the strategies area, in one place. Every strategy query's key starts with
 * ['desk', 'strategy'] (the desk's key, web/src/api/desk.ts): a live order event refreshes the
 * desk's keys (web/src/api/live.ts), so the strategy pages follow each order without a reload
 * (docs/rules/web.md#strategy-pages). The wizard's contract look-ups are keyed apart: an order
 * event changes no contract.
 */
import { DESK_KEY } from '../../../api/desk';

const all = [...DESK_KEY, 'strategy'] as const;
const one = (id: number) => [...all, id] as const;

export const strategyKeys = {
  all: () => all,
  list: () => [...all, 'list'] as const,
  /** Every query of one strategy: its view, runs, events and deliveries. */
  one,
  view: (id: number) => [...one(id), 'view'] as const,
  runs: (id: number, limit: number) => [...one(id), 'runs', limit] as const,
  events: (id: number, kind: string, severity: string) => [...one(id), 'events', kind, severity] as const,
  deliveries: (id: number) => [...one(id), 'deliveries'] as const,
  legSearch: (exchange: string, q: string) => ['strategy-leg-search', exchange, q] as const,
  legUnderlyings: (exchange: string) => ['strategy-leg-underlyings', exchange] as const,
};

/** How often the strategy list asks again, besides live order events. */
export const LIST_REFRESH_MS = 5_000;
/**
 * How often a strategy's page asks again, besides live order events: for what no order event
 * announces (a refused delivery, a stop confirmed flat).
 */
export const ACTIVITY_REFRESH_MS = 3_000;
