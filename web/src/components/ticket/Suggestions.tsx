/**
 * The order ticket's symbol suggestions from the session search, as the person types
 * (docs/rules/web.md#order-ticket).
 */
import { Group, Paper, Text, UnstyledButton } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useSuggestions, type SearchItem } from '../../features/search/api/search';
import { isOrderExchange } from './ticket-fields';

export type { SearchItem };

/** Symbol suggestions from the session search, as the person types (debounced). */
export function Suggestions({
  text,
  exchange,
  onPick,
  accept = isOrderExchange,
}: {
  text: string;
  exchange: string;
  onPick: (item: SearchItem) => void;
  /** The exchanges offered: those orders go to by default (the market watch also takes indices). */
  accept?: (exchange: string) => boolean;
}) {
  const [q] = useDebouncedValue(text.trim(), 250);
  const found = useSuggestions(q, exchange);
  if (q.length < 2) return null;
  if (found.isPending)
    return (
      <Text size="sm" c="dimmed" role="status">
        Looking for “{q}”…
      </Text>
    );
  if (found.isError)
    return (
      <Text size="sm" c="red" role="alert">
        Suggestions failed: {found.error.message}
      </Text>
    );
  const items = found.data.results.filter((r) => accept(r.exchange)).slice(0, 8);
  if (items.length === 0)
    return (
      <Text size="sm" c="dimmed" role="status">
        No {exchange} symbol matches “{q}”.
      </Text>
    );
  return (
    <Paper withBorder p={4} role="list" aria-label="Symbol suggestions">
      {items.map((r) => (
        <UnstyledButton
          key={`${r.exchange}:${r.symbol}`}
          role="listitem"
          onClick={() => onPick(r)}
          display="block"
          w="100%"
          px="xs"
          py={4}
          aria-label={`${r.symbol} ${r.exchange}`}
        >
          <Group gap="xs" wrap="nowrap" justify="space-between">
            <Text size="sm" ff="monospace">
              {r.symbol}
            </Text>
            <Text size="xs" c="dimmed">
              {r.exchange} · lot {r.lotsize}
              {r.expiry ? ` · ${r.expiry}` : ''}
            </Text>
          </Group>
        </UnstyledButton>
      ))}
    </Paper>
  );
}
