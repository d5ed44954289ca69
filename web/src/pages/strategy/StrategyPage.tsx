/**
 * `/strategy/<id>`: one strategy (docs/rules/strategies.md) — its settings and legs; the webhook
 * URL and token shown once after creation or rotation (only a digest is stored:
 * #webhook-token), with copy buttons and ready-to-paste TradingView alert messages; the kill
 * switch (#webhook-pipeline), the live batch start switch behind a confirmation that names the
 * risk (#batch-start-mode), start and stop (#stop, #cooling-off), deletion; then its runs, event
 * trail and delivery audit (StrategyActivity.tsx), refreshed live (docs/rules/web.md#strategy-pages).
 * The settings (SettingsCard.tsx), alert messages (WebhookCard.tsx) and confirmations
 * (StrategyDialogs.tsx) are beside it.
 */
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Container,
  Group,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { PAGE_PATHS } from '../../../../src/modules/web/web-pages';
import { ApiError } from '../../api/client';
import { useLive } from '../../api/live';
import { LiveStatus } from '../../components/LiveStatus';
import { ErrorState, Loading } from '../../components/states';
import { IssuedCredentials } from '../../components/webhooks/credentials';
import {
  useStrategy,
  useStrategyAction,
  useStrategyRuns,
  type ActionAnswer,
  type StrategyAction,
} from '../../features/strategies/api/strategies';
import type { Issued } from '../../features/strategies/api/types';
import { RunStateBadge } from './badges';
import { dropIssued, KIND_LABEL, peekIssued } from './model';
import { SettingsCard } from './SettingsCard';
import { DeliveriesCard, EventsCard, RunsCard } from './StrategyActivity';
import { StrategyDialogs, type Dialog } from './StrategyDialogs';
import { WebhookCard } from './WebhookCard';

/** What the last action answered, in the server's words. */
interface Outcome {
  ok: boolean;
  title: string;
  message: string;
}

export default function StrategyPage() {
  const { id: raw } = useParams();
  const id = Number(raw);
  // One page per strategy: another id starts afresh (no token of the previous one carried over).
  return Number.isInteger(id) && id >= 1 ? <StrategyView key={id} id={id} /> : null;
}

/** The server's call behind a dialog's confirmation. */
function actionOf(d: Dialog, startMode: 'sandbox' | 'live'): StrategyAction {
  switch (d) {
    case 'lock':
    case 'unlock':
      return { call: 'lock', locked: d === 'lock' };
    case 'live-on':
    case 'live-off':
      return { call: 'live', enabled: d === 'live-on' };
    case 'start':
      return { call: 'start', mode: startMode };
    default:
      return { call: d };
  }
}

/** What a confirmed action's answer says, in the server's words where it has some. */
function outcomeOf(a: StrategyAction, answer: ActionAnswer): Outcome {
  if ('run' in answer) {
    const r = answer.run;
    // The server says what was done (exits placed, the run stopping until flat).
    const title =
      a.call === 'start'
        ? `Start: ${r.result}`
        : `Stop: ${r.result}${r.stop_pending ? ' (stop_pending)' : ''}`;
    return { ok: r.result === 'ok', title, message: r.message };
  }
  switch (a.call) {
    case 'rotate':
      return {
        ok: true,
        title: 'Token rotated',
        message: 'The old webhook URL is dead; the new one is shown once below.',
      };
    case 'lock':
      return {
        ok: true,
        title: a.locked ? 'Webhook locked' : 'Webhook unlocked',
        message: a.locked ? 'Every delivery is refused (rejected_locked).' : 'Deliveries are taken again.',
      };
    case 'live':
      return {
        ok: true,
        title: a.enabled ? 'Live batch start enabled' : 'Live batch start disabled',
        message: a.enabled
          ? 'A start in live mode now sends real orders to the broker.'
          : 'Only sandbox starts are taken.',
      };
    default:
      return { ok: true, title: 'Deleted', message: 'Strategy deleted' };
  }
}

function StrategyView({ id }: { id: number }) {
  const navigate = useNavigate();
  const live = useLive();
  const strategy = useStrategy(id);
  const s = strategy.data?.data;
  const runs = useStrategyRuns(id);
  const activeRun = runs.data?.data.find((r) => r.id === s?.active_run_id);

  // The token just issued (creation's hand-off, or a rotation): this page's memory only.
  const [issued, setIssued] = useState<Issued | undefined>(() => peekIssued(id));
  useEffect(() => {
    dropIssued();
  }, []);
  const [dialog, setDialog] = useState<Dialog | undefined>();
  const [startMode, setStartMode] = useState<'sandbox' | 'live'>('sandbox');
  const [outcome, setOutcome] = useState<Outcome | undefined>();

  const act = useStrategyAction(id, (a, answer) => {
    if ('issued' in answer) setIssued(answer.issued);
    setDialog(undefined);
    act.reset();
    if (a.call === 'delete') {
      void navigate(PAGE_PATHS.strategies);
      return;
    }
    setOutcome(outcomeOf(a, answer));
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
          <IssuedCredentials
            title={`Webhook of ${s.name}`}
            lines={[
              { label: 'Webhook URL', value: issued.webhook_url, testId: 'strategy-webhook-url' },
              { label: 'Token', value: issued.webhook_token, testId: 'strategy-webhook-token' },
            ]}
            onDone={() => setIssued(undefined)}
          />
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

      <StrategyDialogs
        strategy={s}
        activeRun={activeRun}
        dialog={dialog}
        startMode={startMode}
        onStartMode={setStartMode}
        pending={act.isPending}
        error={act.error}
        onConfirm={(d) => act.mutate(actionOf(d, startMode))}
        onClose={() => setDialog(undefined)}
      />
    </Container>
  );
}
