/**
 * The order ticket's live prices for its contract (docs/rules/web.md#order-ticket and
 * #live-prices): LTP, the book's best bid and ask, and the day's change from the previous close,
 * absolute and in percent, following the live feed (the ticket subscribes its contract in Depth
 * mode, use-ticket-form.ts), and the book's five levels on demand. A price the feed does not have
 * is a dash, never 0.
 */
import { Button, Collapse, Group, Paper, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { LiveQuote } from '../../api/live-ticks';
import { NO_NUMBER, formatPrice, formatSignedMoney, formatSignedPercent } from '../../format-number';
import { DepthTable } from '../depth/DepthLadder';
import { PricesStale } from '../LiveStatus';

function Price({
  label,
  value,
  testId,
  color,
}: {
  label: string;
  value: string;
  testId: string;
  color?: string;
}) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" fw={600} c={color} data-testid={testId} style={{ fontVariantNumeric: 'tabular-nums' }}>
        {value}
      </Text>
    </Stack>
  );
}

const toneOf = (v: number | null | undefined) =>
  typeof v !== 'number' || v === 0 ? undefined : v > 0 ? 'teal.8' : 'red.8';

export function TicketQuote({
  symbol,
  exchange,
  quote: q,
  stale,
}: {
  symbol: string;
  exchange: string;
  quote: LiveQuote | undefined;
  stale: boolean;
}) {
  const [depth, { toggle }] = useDisclosure(false);
  const change =
    q?.change == null
      ? NO_NUMBER
      : `${formatSignedMoney(q.change)}${q.change_percent == null ? '' : ` (${formatSignedPercent(q.change_percent)})`}`;
  return (
    <Paper withBorder px="sm" py={6} aria-label={`Live prices of ${symbol} ${exchange}`} role="group">
      <Group gap="xs" justify="space-between" wrap="wrap">
        {/* On a phone the day's change wraps under the prices, close to them. */}
        <Group gap="lg" wrap="wrap" style={{ rowGap: 'var(--mantine-spacing-xs)' }}>
          <Price label="LTP" value={formatPrice(q?.ltp)} testId="ticket-ltp" />
          <Price label="Bid" value={formatPrice(q?.bid)} testId="ticket-bid" />
          <Price label="Ask" value={formatPrice(q?.ask)} testId="ticket-ask" />
          <Price label="Day's change" value={change} testId="ticket-change" color={toneOf(q?.change)} />
        </Group>
        <Group gap="xs">
          {stale && <PricesStale />}
          <Button variant="subtle" size="compact-xs" onClick={toggle} aria-expanded={depth}>
            {depth ? 'Hide depth' : 'Depth'}
          </Button>
        </Group>
      </Group>
      <Collapse expanded={depth}>
        <DepthTable quote={q} label={`Market depth of ${symbol} ${exchange}`} />
      </Collapse>
    </Paper>
  );
}
