/**
 * The market watch beside the dashboard (docs/rules/web.md#market-watch): the user's first list,
 * ticking, with B / S to trade and a link to the full page; without a list, a link to make one.
 */
import { Anchor, Card, Group, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { PAGE_PATHS } from '../../../../../src/modules/web/web-pages';
import { ErrorState, Loading } from '../../../components/states';
import { useWatchlists } from '../../../features/watchlist/api/watchlists';
import { WatchTable } from './WatchTable';

export function WatchPanel() {
  const lists = useWatchlists();
  const list = lists.data?.[0];
  return (
    <Card withBorder component="section" aria-label="Market watch panel" padding="sm">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {list ? list.name : 'Market watch'}
        </Title>
        <Anchor component={Link} to={PAGE_PATHS.watchlist} size="sm">
          Market watch
        </Anchor>
      </Group>
      {lists.isPending ? (
        <Loading label="Reading your lists…" />
      ) : lists.isError ? (
        <ErrorState error={lists.error} title="The lists could not be read" />
      ) : !list || list.items.length === 0 ? (
        <Text size="sm" c="dimmed">
          No symbol to watch yet:{' '}
          <Anchor component={Link} to={PAGE_PATHS.watchlist}>
            add some on the market watch
          </Anchor>
          .
        </Text>
      ) : (
        <WatchTable label={`Market watch ${list.name}`} items={list.items} compact />
      )}
    </Card>
  );
}
