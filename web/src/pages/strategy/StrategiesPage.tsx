/**
 * `/strategy`: the user's strategies (docs/rules/strategies.md#strategy-management) — kind,
 * product, the active run's mode and state (`stop_pending` shown as stopping until its fills prove
 * it flat, #stop), the webhook's kill switch and the live switch — each a link to its page.
 * Refreshed by live order events (keys under ['desk', 'strategy']) and every few seconds
 * (docs/rules/web.md#strategy-pages).
 */
import {
  Anchor,
  Badge,
  Button,
  Card,
  Container,
  Group,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useQueries, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { PAGE_PATHS, strategyPagePath } from '../../../../src/modules/web/web-pages';
import { api } from '../../api/client';
import { useLive } from '../../api/live';
import { LiveStatus } from '../../components/LiveStatus';
import { Empty, ErrorState, Loading } from '../../components/states';
import { KIND_LABEL, STRATEGY_KEY, strategyKey, type Run, type Strategy } from './model';
import { usePhone } from '../integrations/common';
import { ModeBadge, RunStateBadge } from './badges';

const REFRESH_MS = 5_000;

export default function StrategiesPage() {
  const live = useLive();
  const phone = usePhone();
  const list = useQuery({
    queryKey: [...STRATEGY_KEY, 'list'],
    queryFn: () => api<{ data: Strategy[] }>('GET', '/strategy/api/strategies'),
    refetchInterval: REFRESH_MS,
  });
  const rows = list.data?.data ?? [];
  // The active run of each running strategy: its mode and whether it is stopping.
  const running = rows.filter((s) => s.active_run_id !== null);
  const runs = useQueries({
    queries: running.map((s) => ({
      queryKey: [...strategyKey(s.id), 'runs', 1],
      queryFn: () => api<{ data: Run[] }>('GET', `/strategy/api/strategies/${s.id}/runs?limit=1`),
      refetchInterval: REFRESH_MS,
    })),
  });
  const activeRun = (s: Strategy): Run | undefined => {
    const i = running.indexOf(s);
    return i < 0 ? undefined : runs[i]?.data?.data.find((r) => r.id === s.active_run_id);
  };

  const runCell = (s: Strategy) =>
    s.active_run_id === null ? (
      <Text size="sm" c="dimmed">
        No active run
      </Text>
    ) : (
      <RunStateBadge status={activeRun(s)?.status ?? 'running'} />
    );
  const modeCell = (s: Strategy) => {
    const run = activeRun(s);
    return run ? <ModeBadge mode={run.mode} /> : '—';
  };
  const webhookCell = (s: Strategy) =>
    s.webhook_locked ? (
      <Badge color="red" variant="light">
        Locked
      </Badge>
    ) : (
      <Badge color="gray" variant="light">
        Open
      </Badge>
    );
  const liveCell = (s: Strategy) =>
    s.kind === 'signal' ? (
      <Text size="sm" c="dimmed">
        Follows the mode
      </Text>
    ) : s.live_enabled ? (
      <Badge color="red" variant="light">
        Allowed
      </Badge>
    ) : (
      <Text size="sm">Not allowed</Text>
    );
  const nameLink = (s: Strategy) => (
    <Anchor component={Link} to={strategyPagePath(s.id)} fw={600}>
      {s.name}
    </Anchor>
  );

  return (
    <Container size="xl" px={0}>
      <Group justify="space-between" mb="md">
        <Group gap="sm">
          <Title order={1} size="h2">
            Strategies
          </Title>
          <LiveStatus state={live.state} />
        </Group>
        <Button component={Link} to={PAGE_PATHS.strategyNew}>
          New strategy
        </Button>
      </Group>
      <Text c="dimmed" size="sm" mb="md">
        Each strategy has a webhook URL for TradingView alerts. Signal strategies enter and exit their legs on
        each alert; batch strategies place all their legs on a start and exit them on a stop.
      </Text>
      <Card withBorder>
        {list.isPending && <Loading label="Loading strategies…" />}
        {list.isError && <ErrorState error={list.error} />}
        {list.data && rows.length === 0 && (
          <Stack align="center" gap="xs">
            <Empty>No strategy yet: create one to get a webhook URL for your TradingView alerts.</Empty>
            <Button component={Link} to={PAGE_PATHS.strategyNew} variant="light">
              New strategy
            </Button>
          </Stack>
        )}
        {rows.length > 0 && phone && (
          <Stack gap="sm" role="list" aria-label="Strategies">
            {rows.map((s) => (
              <Card key={s.id} withBorder role="listitem" aria-label={s.name} p="sm">
                <Group justify="space-between" mb="xs" wrap="nowrap">
                  {nameLink(s)}
                  {runCell(s)}
                </Group>
                <SimpleGrid cols={2} spacing="xs" verticalSpacing={4}>
                  <Text size="sm" c="dimmed">
                    Kind / product
                  </Text>
                  <Text size="sm">
                    {KIND_LABEL[s.kind]} / {s.product}
                  </Text>
                  <Text size="sm" c="dimmed">
                    Legs
                  </Text>
                  <Text size="sm">{s.legs.length}</Text>
                  <Text size="sm" c="dimmed">
                    Mode
                  </Text>
                  <div>{modeCell(s)}</div>
                  <Text size="sm" c="dimmed">
                    Webhook
                  </Text>
                  <div>{webhookCell(s)}</div>
                  <Text size="sm" c="dimmed">
                    Live start
                  </Text>
                  <div>{liveCell(s)}</div>
                </SimpleGrid>
              </Card>
            ))}
          </Stack>
        )}
        {rows.length > 0 && !phone && (
          <Table.ScrollContainer minWidth={820}>
            <Table aria-label="Strategies" striped highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Kind</Table.Th>
                  <Table.Th>Product</Table.Th>
                  <Table.Th>Legs</Table.Th>
                  <Table.Th>Run</Table.Th>
                  <Table.Th>Mode</Table.Th>
                  <Table.Th>Webhook</Table.Th>
                  <Table.Th>Live start</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((s) => (
                  <Table.Tr key={s.id}>
                    <Table.Td>{nameLink(s)}</Table.Td>
                    <Table.Td>{KIND_LABEL[s.kind]}</Table.Td>
                    <Table.Td>{s.product}</Table.Td>
                    <Table.Td>{s.legs.length}</Table.Td>
                    <Table.Td>{runCell(s)}</Table.Td>
                    <Table.Td>{modeCell(s)}</Table.Td>
                    <Table.Td>{webhookCell(s)}</Table.Td>
                    <Table.Td>{liveCell(s)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Card>
    </Container>
  );
}
