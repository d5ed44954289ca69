/**
 * The facts of the ticket's contract (lot size, tick size, expiry): from the opener, a picked
 * suggestion, or looked up by symbol and exchange (docs/rules/web.md#order-ticket).
 */
import { useDebouncedValue } from '@mantine/hooks';
import { useContractFacts } from '../../features/search/api/search';

/** The facts of a contract the ticket checks against. */
export interface Facts {
  symbol: string;
  exchange: string;
  lotsize: number;
  tick_size: number;
  expiry?: string;
  name?: string;
  /** The exchange's cap on one order's quantity (F&O); null or absent where none is configured. */
  freeze_qty?: number | null;
}

/** The contract's facts: from the opener, a picked suggestion, or looked up by symbol and exchange. */
export function useFacts(symbol: string, exchange: string, known: Facts | undefined) {
  const [s] = useDebouncedValue(symbol.trim().toUpperCase(), 300);
  // Several terms ("NIFTY 26000 CE") are a search, not a symbol: the suggestions answer them.
  const terms = /\s/.test(symbol.trim());
  const matches = known && known.symbol === symbol.trim().toUpperCase() && known.exchange === exchange;
  const lookup = useContractFacts(s, exchange, !matches && !terms && s.length > 0);
  if (matches) return { facts: known, state: 'known' as const };
  if (terms) return { facts: undefined, state: 'terms' as const };
  if (s !== symbol.trim().toUpperCase() || lookup.isPending)
    return { facts: undefined, state: s ? ('looking' as const) : ('none' as const) };
  if (lookup.isError) return { facts: undefined, state: 'error' as const, error: lookup.error };
  const row = lookup.data.data[0];
  return row
    ? { facts: { ...row } as Facts, state: 'known' as const }
    : { facts: undefined, state: 'unknown' as const };
}
