/**
 * `/strategy/<id>`: one strategy (docs/rules/strategies.md) — its settings and legs; the webhook
 * URL and token shown once after creation or rotation (only a digest is stored:
 * #webhook-token), with copy buttons and ready-to-paste TradingView alert messages; the kill
 * switch (#webhook-pipeline), the live batch start switch behind a confirmation that names the
 * risk (#batch-start-mode), start and stop (#stop, #cooling-off), deletion; then its runs, event
 * trail and delivery audit (StrategyActivity.tsx), refreshed live (docs/rules/web.md#strategy-pages).
 */
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Container,
  Group,
  List,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/List.css';
import '@mantine/core/styles/SegmentedControl.css';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { PAGE_PATHS } from '../../../../src/modules/web/web-pages';
import { api, ApiError, type Answer } from '../../api/client';
import { useLive } from '../../api/live';
import { LiveStatus } from '../../components/LiveStatus';
import { ErrorState, Loading } from '../../components/states';
import { Confirm, CopyLine, ShownOnce } from '../integrations/shared';
import { RunStateBadge } from './badges';
import {
  alertMessages,
  DIRECTION_LABEL,
  dropIssued,
  KIND_LABEL,
  legText,
  peekIssued,
  STRATEGY_KEY,
  strategyKey,
  type Issued,
  type Run,
  type RunAnswer,
  type Strategy,
} from './model';
import { ACTIVITY_REFRESH_MS, DeliveriesCard, EventsCard, RunsCard } from './StrategyActivity';

type Dialog = 'rotate' | 'lock' | 'unlock' | 'live-on' | 'live-off' | 'start' | 'stop' | 'delete';

/** What the last action answered, in the server's words. */
interface Outcome {
  ok: boolean;
  title: string;
  message: string;
}

function WebhookCard({ strategy }: { strategy: Strategy }) {
  const host = useQuery({
    queryKey: ['config-host'],
    queryFn: () => api<Answer<'/api/config/host'>>('GET', '/api/config/host'),
    staleTime: 60_000,
  });
  const base = host.data ? (host.data.public_url ?? host.data.host_server) : undefined;
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        TradingView alerts
      </Title>
      <Stack gap="sm">
        <Text size="sm">
          In the TradingView alert, set the webhook URL to this strategy’s URL
          {base ? (
            <>
              {' '}
              (
              <Text
                span
                ff="monospace"
                size="sm"
                style={{ wordBreak: 'break-all' }}
              >{`${base}/strategy/webhook/whk_…`}</Text>
              )
            </>
          ) : null}{' '}
          and paste one of these messages. The URL was shown once; rotate the token for a new one.
        </Text>
        {host.data?.is_localhost && (
          <Alert color="yellow" title="Not reachable from TradingView">
            Webhook URLs use {host.data.host_server}, this machine’s own address: TradingView cannot reach it.
            Set HOST_SERVER to the public address, or start the tunnel.
          </Alert>
        )}
        {host.isError && <ErrorState error={host.error} title="The public address is unknown" />}
        <SimpleGrid cols={1} spacing="xs">
          {alertMessages(strategy).map((m) => (
            <CopyLine key={m.label} label={`Alert message: ${m.label}`} value={m.body} />
          ))}
        </SimpleGrid>
        {strategy.kind === 'signal' && strategy.legs.length > 1 && (
          <Text size="xs" c="dimmed">
            With several legs each message names its leg by symbol and exchange.
          </Text>
        )}
      </Stack>
    </Card>
  );
}

function SettingsCard({ strategy, run }: { strategy: Strategy; run: Run | undefined }) {
  const row = (label: string, value: ReactNode) => (
    <>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      {typeof value === 'string' ? <Text size="sm">{value}</Text> : <div>{value}</div>}
    </>
  );
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        Settings
      </Title>
      <SimpleGrid
        cols={2}
        spacing="xs"
        verticalSpacing={6}
        mb="md"
        style={{ gridTemplateColumns: 'max-content 1fr' }}
      >
        {row('Kind', KIND_LABEL[strategy.kind])}
        {row('Product', strategy.product)}
        {strategy.kind === 'signal' && row('Direction', DIRECTION_LABEL[strategy.direction])}
        {row(
          'Active run',
          strategy.active_run_id === null ? (
            'None'
          ) : (
            <Group gap="xs">
              <Text size="sm">#{strategy.active_run_id}</Text>
              <RunStateBadge status={run?.status ?? 'running'} />
            </Group>
          ),
        )}
        {row(
          'Webhook',
          strategy.webhook_locked ? (
            <Badge color="red" style={{ textTransform: 'none' }}>
              Locked: every delivery refused
            </Badge>
          ) : (
            <Text size="sm">Open</Text>
          ),
        )}
        {strategy.kind === 'batch' &&
          row(
            'Live start',
            strategy.live_enabled ? (
              <Badge color="red" style={{ textTransform: 'none' }}>
                Allowed: a live start sends real orders
              </Badge>
            ) : (
              <Text size="sm">Not allowed (sandbox only)</Text>
            ),
          )}
        {row(
          'Allowed senders',
          strategy.ip_allowlist.length === 0 ? (
            <Text size="sm">Any address</Text>
          ) : (
            <Text size="sm" ff="monospace">
              {strategy.ip_allowlist.join(', ')}
            </Text>
          ),
        )}
      </SimpleGrid>
      <Text fw={600} size="sm" mb={4}>
        Legs
      </Text>
      <List size="sm" spacing={2} aria-label="Legs">
        {strategy.legs.map((l) => (
          <List.Item key={l.id}>
            {legText(l)}{' '}
            <Text span size="xs" c="dimmed">
              (leg_id {l.id})
            </Text>
          </List.Item>
        ))}
      </List>
    </Card>
  );
}

export default function StrategyPage() {
  const { id: raw } = useParams();
  const id = Number(raw);
  // One page per strategy: another id starts afresh (no token of the previous one carried over).
  return Number.isInteger(id) && id >= 1 ? <StrategyView key={id} id={id} /> : null;
}

function StrategyView({ id }: { id: number }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const live = useLive();
  const key = strategyKey(id);
  const strategy = useQuery({
    queryKey: [...key, 'view'],
    queryFn: () => api<{ data: Strategy }>('GET', `/strategy/api/strategies/${id}`),
    refetchInterval: ACTIVITY_REFRESH_MS,
  });
  const s = strategy.data?.data;
  const runs = useQuery({
    queryKey: [...key, 'runs', 50],
    queryFn: () => api<{ data: Run[] }>('GET', `/strategy/api/strategies/${id}/runs?limit=50`),
    refetchInterval: ACTIVITY_REFRESH_MS,
  });
  const activeRun = runs.data?.data.find((r) => r.id === s?.active_run_id);

  // The token just issued (creation's hand-off, or a rotation): this page's memory only.
  const [issued, setIssued] = useState<Issued | undefined>(() => peekIssued(id));
  useEffect(() => {
    dropIssued();
  }, []);
  const [dialog, setDialog] = useState<Dialog | undefined>();
  const [startMode, setStartMode] = useState<'sandbox' | 'live'>('sandbox');
  const [outcome, setOutcome] = useState<Outcome | undefined>();

  const refresh = () => queryClient.invalidateQueries({ queryKey: STRATEGY_KEY });
  const act = useMutation({
    mutationFn: async (d: Dialog): Promise<Outcome> => {
      switch (d) {
        case 'rotate': {
          const r = await api<{ data: Issued }>('POST', `/strategy/api/strategies/${id}/rotate-token`);
          setIssued({ webhook_token: r.data.webhook_token, webhook_url: r.data.webhook_url });
          return {
            ok: true,
            title: 'Token rotated',
            message: 'The old webhook URL is dead; the new one is shown once below.',
          };
        }
        case 'lock':
        case 'unlock':
          await api('POST', `/strategy/api/strategies/${id}/lock`, { locked: d === 'lock' });
          return {
            ok: true,
            title: d === 'lock' ? 'Webhook locked' : 'Webhook unlocked',
            message:
              d === 'lock' ? 'Every delivery is refused (rejected_locked).' : 'Deliveries are taken again.',
          };
        case 'live-on':
        case 'live-off':
          await api('POST', `/strategy/api/strategies/${id}/live`, { enabled: d === 'live-on' });
          return {
            ok: true,
            title: d === 'live-on' ? 'Live batch start enabled' : 'Live batch start disabled',
            message:
              d === 'live-on'
                ? 'A start in live mode now sends real orders to the broker.'
                : 'Only sandbox starts are taken.',
          };
        case 'start': {
          const r = await api<RunAnswer>('POST', `/strategy/api/strategies/${id}/start`, { mode: startMode });
          return { ok: r.result === 'ok', title: `Start: ${r.result}`, message: r.message };
        }
        case 'stop': {
          // The server says what was done (exits placed, the run stopping until flat).
          const r = await api<RunAnswer>('POST', `/strategy/api/strategies/${id}/stop`);
          return {
            ok: r.result === 'ok',
            title: `Stop: ${r.result}${r.stop_pending ? ' (stop_pending)' : ''}`,
            message: r.message,
          };
        }
        case 'delete':
          await api('DELETE', `/strategy/api/strategies/${id}`);
          return { ok: true, title: 'Deleted', message: 'Strategy deleted' };
      }
    },
    onSuccess: async (out, d) => {
      setDialog(undefined);
      act.reset();
      if (d === 'delete') {
        await queryClient.invalidateQueries({ queryKey: STRATEGY_KEY });
        void navigate(PAGE_PATHS.strategies);
        return;
      }
      setOutcome(out);
      await refresh();
    },
  });
  const open = (d: Dialog) => {
    act.reset();
    setDialog(d);
  };

  if (strategy.isPending) return <Loading label="Loading the strategy…" />;
  if (strategy.isError || !s)
    return (
      <Container size="md" px={0}>
        <ErrorState
          error={strategy.error}
          title={
            strategy.error instanceof ApiError && strategy.error.status === 404 ? 'Not found' : 'Not loaded'
          }
        />
        <Anchor component={Link} to={PAGE_PATHS.strategies} mt="md" display="block">
          Back to strategies
        </Anchor>
      </Container>
    );

  const running = s.active_run_id !== null;
  const stopping = activeRun?.status === 'stop_pending';

  return (
    <Container size="xl" px={0}>
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Group gap="sm">
          <Title order={1} size="h2">
            {s.name}
          </Title>
          <Badge variant="light">{KIND_LABEL[s.kind]}</Badge>
          {running ? (
            <RunStateBadge status={activeRun?.status ?? 'running'} />
          ) : (
            <Badge color="gray" variant="light">
              Idle
            </Badge>
          )}
          <LiveStatus state={live.state} />
        </Group>
        <Anchor component={Link} to={PAGE_PATHS.strategies}>
          All strategies
        </Anchor>
      </Group>
      <Stack gap="lg" mt="md">
        {issued && (
          <ShownOnce title={`Webhook of ${s.name}`} onDone={() => setIssued(undefined)}>
            <CopyLine label="Webhook URL" value={issued.webhook_url} testId="strategy-webhook-url" />
            <CopyLine label="Token" value={issued.webhook_token} testId="strategy-webhook-token" />
          </ShownOnce>
        )}
        {outcome && (
          <Alert
            color={outcome.ok ? 'green' : 'orange'}
            title={outcome.title}
            withCloseButton
            onClose={() => setOutcome(undefined)}
            role="status"
            data-testid="action-outcome"
          >
            {outcome.message}
          </Alert>
        )}
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Controls
          </Title>
          <Group gap="sm">
            {s.kind === 'batch' && (
              <Button onClick={() => open('start')} disabled={running}>
                Start a run
              </Button>
            )}
            <Button color="red" onClick={() => open('stop')} disabled={!running}>
              {stopping ? 'Stop again' : 'Stop the run'}
            </Button>
            {s.webhook_locked ? (
              <Button variant="light" onClick={() => open('unlock')}>
                Unlock the webhook
              </Button>
            ) : (
              <Button variant="light" color="orange" onClick={() => open('lock')}>
                Lock the webhook
              </Button>
            )}
            {s.kind === 'batch' &&
              (s.live_enabled ? (
                <Button variant="light" onClick={() => open('live-off')}>
                  Disable live start
                </Button>
              ) : (
                <Button variant="light" color="red" onClick={() => open('live-on')}>
                  Enable live start
                </Button>
              ))}
            <Button variant="light" color="orange" onClick={() => open('rotate')}>
              Rotate the token
            </Button>
            <Button variant="subtle" color="red" onClick={() => open('delete')} disabled={running}>
              Delete
            </Button>
          </Group>
          {running && (
            <Text size="xs" c="dimmed" mt="xs">
              A strategy with an active run cannot be deleted, nor its product, direction or legs changed.
            </Text>
          )}
        </Card>
        <SimpleGrid cols={{ base: 1, lg: 2 }}>
          <SettingsCard strategy={s} run={activeRun} />
          <WebhookCard strategy={s} />
        </SimpleGrid>
        <RunsCard strategy={s} />
        <EventsCard strategy={s} />
        <DeliveriesCard strategy={s} />
      </Stack>

      <Confirm
        opened={dialog === 'rotate'}
        title="Rotate the webhook token?"
        confirm="Rotate"
        pending={act.isPending}
        onConfirm={() => act.mutate('rotate')}
        onClose={() => setDialog(undefined)}
        error={act.error && <ErrorState error={act.error} title="Not rotated" />}
      >
        <Text>
          {s.name} gets a new webhook URL, shown once. The current URL stops working at once: update your
          TradingView alerts.
        </Text>
      </Confirm>
      <Confirm
        opened={dialog === 'lock' || dialog === 'unlock'}
        title={dialog === 'unlock' ? 'Unlock the webhook?' : 'Lock the webhook?'}
        confirm={dialog === 'unlock' ? 'Unlock' : 'Lock'}
        pending={act.isPending}
        onConfirm={() => dialog && act.mutate(dialog)}
        onClose={() => setDialog(undefined)}
        error={act.error && <ErrorState error={act.error} title="Not changed" />}
      >
        <Text>
          {dialog === 'unlock'
            ? `Alerts reach ${s.name} again and may open runs and place orders.`
            : `Every alert to ${s.name} is refused (rejected_locked) until you unlock it. A run already open is not stopped: stop it from this page.`}
        </Text>
      </Confirm>
      <Confirm
        opened={dialog === 'live-on'}
        title="Enable live batch start?"
        confirm="Enable live start"
        pending={act.isPending}
        onConfirm={() => act.mutate('live-on')}
        onClose={() => setDialog(undefined)}
        error={act.error && <ErrorState error={act.error} title="Not enabled" />}
      >
        <Text>
          A start in live mode — from this page, the webhook (
          <Text span ff="monospace">
            {'"mode": "live"'}
          </Text>
          ) or the API — will send <b>real orders to your broker</b>, with real money, for every leg of{' '}
          {s.name}. Anyone holding the webhook URL can then trigger them.
        </Text>
      </Confirm>
      <Confirm
        opened={dialog === 'live-off'}
        title="Disable live batch start?"
        confirm="Disable"
        pending={act.isPending}
        onConfirm={() => act.mutate('live-off')}
        onClose={() => setDialog(undefined)}
        error={act.error && <ErrorState error={act.error} title="Not disabled" />}
      >
        <Text>Live starts are refused (rejected_live_disabled); a live run already open is not stopped.</Text>
      </Confirm>
      <Confirm
        opened={dialog === 'start'}
        title="Start a run?"
        confirm="Start"
        pending={act.isPending}
        onConfirm={() => act.mutate('start')}
        onClose={() => setDialog(undefined)}
        error={act.error && <ErrorState error={act.error} title="Not started" />}
      >
        <Stack gap="sm">
          <SegmentedControl
            aria-label="Run mode"
            value={startMode}
            onChange={(v) => setStartMode(v as 'sandbox' | 'live')}
            data={[
              { value: 'sandbox', label: 'Sandbox' },
              { value: 'live', label: 'Live (broker)', disabled: !s.live_enabled },
            ]}
          />
          <Text>
            Every leg of {s.name} is placed now as a MARKET order, BUY legs before SELL legs,{' '}
            {startMode === 'live' ? <b>as real orders at your broker</b> : 'in the sandbox'}.
          </Text>
          {!s.live_enabled && (
            <Text size="sm" c="dimmed">
              Live mode needs live start enabled first.
            </Text>
          )}
        </Stack>
      </Confirm>
      <Confirm
        opened={dialog === 'stop'}
        title="Stop the run?"
        confirm="Stop the run"
        pending={act.isPending}
        onConfirm={() => act.mutate('stop')}
        onClose={() => setDialog(undefined)}
        error={act.error && <ErrorState error={act.error} title="Not stopped" />}
      >
        <Text>
          Working entries of run #{s.active_run_id} are cancelled and what each leg filled is exited with a
          MARKET order{activeRun?.mode === 'live' ? ' at your broker' : ' in the sandbox'}. The run shows as
          stopping (stop_pending) until its fills prove it flat; for 30 seconds after, no new run opens.
        </Text>
      </Confirm>
      <Confirm
        opened={dialog === 'delete'}
        title="Delete the strategy?"
        confirm="Delete"
        pending={act.isPending}
        onConfirm={() => act.mutate('delete')}
        onClose={() => setDialog(undefined)}
        error={act.error && <ErrorState error={act.error} title="Not deleted" />}
      >
        <Text>
          Delete {s.name}? Its webhook URL stops working at once; its runs, event trail and delivery audit are
          kept, and its name is free again.
        </Text>
      </Confirm>
    </Container>
  );
}
