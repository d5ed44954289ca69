import { Badge } from '@mantine/core';
import type { LiveState } from '../api/live';

/** The live socket's state in words (docs/rules/web.md#desk-live-updates). */
export function LiveStatus({ state }: { state: LiveState }) {
  if (state === 'open')
    return (
      <Badge color="teal" variant="dot" role="status" aria-label="Live updates on">
        Live updates
      </Badge>
    );
  return (
    <Badge color="yellow" variant="light" role="status" aria-label="Reconnecting">
      {state === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
    </Badge>
  );
}

/** The server says the live feed is stale for one of the page's instruments (docs/rules/web.md#live-prices). */
export function PricesStale() {
  return (
    <Badge color="orange" variant="light" role="status" aria-label="Prices stale">
      Prices stale: reconnecting the feed
    </Badge>
  );
}
