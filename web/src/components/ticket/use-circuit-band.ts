/**
 * The day's circuit band of the ticket's contract (docs/rules/web.md#order-ticket): the upper and
 * lower limits the broker's quote carries (`/api/v1/quotes`' `upper_circuit`, `lower_circuit`),
 * read once per contract through the desk while the ticket shows it — the feed's ticks carry no
 * band. Null limits (the sandbox's prices, a broker that gives none) warn of nothing.
 */
import { useQuery } from '@tanstack/react-query';
import { desk, useDeskReady } from '../../api/desk';
import { deskKeys } from '../../features/desk/api/keys';
import type { CircuitBand } from './ticket-prices';

export function useCircuitBand(contract: { symbol: string; exchange: string } | undefined, enabled: boolean) {
  const { ready, mode } = useDeskReady();
  const q = useQuery({
    queryKey: deskKeys.band(contract?.exchange ?? '', contract?.symbol ?? '', mode),
    queryFn: () => desk('quotes', { symbol: contract!.symbol, exchange: contract!.exchange }),
    enabled: enabled && ready && contract !== undefined,
    staleTime: 5 * 60_000,
    retry: false,
  });
  const d = q.data?.data;
  return d
    ? ({ upper: d.upper_circuit ?? null, lower: d.lower_circuit ?? null } satisfies CircuitBand)
    : undefined;
}
