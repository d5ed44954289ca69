/**
 * `/strategy`: the user's strategies (docs/rules/strategies.md#strategy-management) — kind,
 * product, the active run's mode and state (`stop_pending` shown as stopping until its fills prove
 * it flat, #stop), the webhook's kill switch and the live switch — each a link to its page.
 * Refreshed by live order events (keys under ['desk', 'strategy']) and every few seconds
 * (docs/rules/web.md#strategy-pages). The page is the webhook sources' page (components/webhooks)
 * configured for strategies: a new one is made by the wizard, and each is managed on its own page.
 */
import { Anchor, Badge, Button, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { PAGE_PATHS, strategyPagePath } from '../../../../src/modules/web/web-pages';
import { useLive } from '../../api/live';
import { LiveStatus } from '../../components/LiveStatus';
import { Empty } from '../../components/states';
import type { Column } from '../../components/webhooks/columns';
import { WebhookSourcePage } from '../../components/webhooks/WebhookSourcePage';
import { useActiveRuns, useStrategies } from '../../features/strategies/api/strategies';
import type { Strategy } from '../../features/strategies/api/types';
import { ModeBadge, RunStateBadge } from './badges';
import { KIND_LABEL } from './model';

const nameLink = (s: Strategy) => (
  <Anchor component={Link} to={strategyPagePath(s.id)} fw={600}>
    {s.name}
  </Anchor>
);

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

const LEGS: Column<Strategy> = { header: 'Legs', cell: (s) => s.legs.length };
const WEBHOOK: Column<Strategy> = { header: 'Webhook', cell: webhookCell };
const LIVE_START: Column<Strategy> = { header: 'Live start', cell: liveCell };

export default function StrategiesPage() {
  const live = useLive();
  const list = useStrategies();
  // The active run of each running strategy: its mode and whether it is stopping.
  const activeRun = useActiveRuns(list.data?.data ?? []);

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
  const columns: Column<Strategy>[] = [
    { header: 'Name', cell: nameLink },
    { header: 'Kind', cell: (s) => KIND_LABEL[s.kind] },
    { header: 'Product', cell: (s) => s.product },
    LEGS,
    { header: 'Run', cell: runCell },
    { header: 'Mode', cell: modeCell },
    WEBHOOK,
    LIVE_START,
  ];

  return (
    <WebhookSourcePage
      title="Strategies"
      titleAside={<LiveStatus state={live.state} />}
      create={{ label: 'New strategy', to: PAGE_PATHS.strategyNew }}
      intro="Each strategy has a webhook URL for TradingView alerts. Signal strategies enter and exit their legs on each alert; batch strategies place all their legs on a start and exit them on a stop."
      list={list}
      loading="Loading strategies…"
      empty={
        <Stack align="center" gap="xs">
          <Empty>No strategy yet: create one to get a webhook URL for your TradingView alerts.</Empty>
          <Button component={Link} to={PAGE_PATHS.strategyNew} variant="light">
            New strategy
          </Button>
        </Stack>
      }
      columns={columns}
      minWidth={820}
      card={{
        title: nameLink,
        aside: runCell,
        // On a phone the kind and product share a row; the name and run are the card's top.
        fields: [
          {
            header: 'Kind / product',
            cell: (s) => (
              <>
                {KIND_LABEL[s.kind]} / {s.product}
              </>
            ),
            card: 'text',
          },
          LEGS,
          { header: 'Mode', cell: modeCell, card: 'block' },
          WEBHOOK,
          LIVE_START,
        ],
      }}
    />
  );
}
