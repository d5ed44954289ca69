/**
 * Adds an instrument to a market watch list (docs/rules/web.md#market-watch): the symbol typed is
 * looked up in the master contract as the ticket's suggestions are (indices too), and the one
 * picked is added at the end of the list; the server's refusal (already in the list, the list
 * full, not in the master contract) is said under the field. `/` anywhere on the page focuses it
 * (docs/rules/web.md#keyboard).
 */
import { Group, NativeSelect, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { INDEX_EXCHANGES, ORDER_EXCHANGES } from '../../../../../src/domain/exchanges';
import { ApiError } from '../../../api/client';
import { Suggestions } from '../../../components/ticket/Suggestions';
import { useAddItem, type WatchList } from '../../../features/watchlist/api/watchlists';

/** The exchanges a watch list searches: every exchange orders go to, and the index exchanges. */
export const WATCH_EXCHANGES: readonly string[] = [...ORDER_EXCHANGES, ...INDEX_EXCHANGES];
const watchable = (e: string) => WATCH_EXCHANGES.includes(e);

export function AddSymbol({ list, full }: { list: WatchList; full: boolean }) {
  const [text, setText] = useState('');
  const [exchange, setExchange] = useState<string>('NSE');
  const add = useAddItem();
  const error = add.error
    ? add.error instanceof ApiError
      ? add.error.message
      : 'The server could not be reached.'
    : undefined;
  return (
    <Stack gap={4}>
      <Group align="flex-end" gap="xs" wrap="nowrap">
        <TextInput
          label={`Add a symbol to ${list.name}`}
          placeholder={full ? 'The list is full (100 symbols)' : 'Search: SBIN, NIFTY 50, NIFTY 26000 CE…'}
          value={text}
          disabled={full}
          autoComplete="off"
          data-hotkey-search
          onChange={(e) => {
            setText(e.currentTarget.value);
            add.reset();
          }}
          error={error}
          style={{ flex: '1 1 auto' }}
        />
        <NativeSelect
          label="Exchange"
          data={[...WATCH_EXCHANGES]}
          value={exchange}
          onChange={(e) => setExchange(e.currentTarget.value)}
          w={120}
        />
      </Group>
      {!full && (
        <Suggestions
          text={text}
          exchange={exchange}
          accept={watchable}
          onPick={(item) =>
            add.mutate(
              { listId: list.id, item: { symbol: item.symbol, exchange: item.exchange } },
              { onSuccess: () => setText('') },
            )
          }
        />
      )}
    </Stack>
  );
}
