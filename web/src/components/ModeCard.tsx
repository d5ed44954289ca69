/**
 * The trading mode and, for the administrator, the switch (docs/rules/orders.md#analyzer-mode-switch,
 * docs/rules/orders.md#fresh-install-analyzer): on the dashboard and on the Analyzer page, with a
 * confirmation that says what changes. A fresh install starts in analyzer mode; switching to live
 * is always the administrator's act.
 */
import { Alert, Button, Card, Group, Modal, Text } from '@mantine/core';
import { useState } from 'react';
import { useMode } from '../api/auth';
import { sessionsWords, useSandboxAccount, useSwitchModeMutation } from '../features/account/api/sandbox';
import { ErrorState, Loading } from './states';

/** Whether the sandbox keeps the exchanges' sessions (docs/rules/sandbox.md#sessions-and-holidays). */
function SandboxSessions() {
  const account = useSandboxAccount(false);
  const s = account.data?.settings.sessions;
  if (!s) return null;
  return (
    <Text size="sm" c="dimmed" data-testid="dashboard-sessions">
      Market sessions: {sessionsWords(s)}.
    </Text>
  );
}

export function ModeCard({ isAdmin }: { isAdmin: boolean }) {
  const mode = useMode(true);
  const [confirm, setConfirm] = useState(false);
  // The mode the open confirmation is about: its words stay while it closes after the switch.
  const [asked, setAsked] = useState<{ analyze: boolean }>();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string }>();
  // The books follow the mode by themselves (their queries are keyed by it).
  const switching = useSwitchModeMutation({
    onSuccess: (res, analyze) =>
      setOutcome({ ok: true, text: res.message ?? `${analyze ? 'Analyzer' : 'Live'} mode is on` }),
  });
  if (mode.isPending) return <Loading label="Reading the mode…" />;
  if (mode.isError) return <ErrorState error={mode.error} />;
  const analyze = mode.data.analyze_mode;
  const target = analyze ? 'Live' : 'Analyzer';
  const from = asked?.analyze ?? analyze;
  const askedTarget = from ? 'Live' : 'Analyzer';
  const switchMode = async () => {
    setBusy(true);
    try {
      await switching.mutateAsync(!from);
    } catch (err) {
      setOutcome({ ok: false, text: err instanceof Error ? err.message : 'The mode was not switched' });
    } finally {
      setBusy(false);
      setConfirm(false);
    }
  };
  return (
    <Card withBorder padding="md">
      <Group justify="space-between" wrap="wrap">
        <div>
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            Trading mode
          </Text>
          <Text size="xl" fw={700} c={analyze ? 'orange' : 'green'} data-testid="dashboard-mode">
            {analyze ? 'Analyzer' : 'Live'}
          </Text>
          <Text size="sm" c="dimmed">
            {analyze
              ? 'Orders go to the sandbox (paper trading). Connect a broker, then switch to Live when you are ready.'
              : 'Orders go to your broker (real money).'}
          </Text>
          {analyze && <SandboxSessions />}
        </div>
        {isAdmin && (
          <Button
            variant="light"
            color={analyze ? 'green' : 'orange'}
            onClick={() => {
              setAsked({ analyze });
              setConfirm(true);
            }}
          >
            Switch to {target}
          </Button>
        )}
      </Group>
      {outcome && (
        <Alert mt="sm" color={outcome.ok ? 'teal' : 'red'} role="status">
          {outcome.text}
        </Alert>
      )}
      <Modal opened={confirm} onClose={() => setConfirm(false)} title={`Switch to ${askedTarget} mode?`}>
        <Text mb="md">
          {from
            ? 'Every user’s orders — the API, strategies, scanners, flows and this console — will go to the broker and trade real money. The sandbox’s books stay as they are.'
            : 'Every user’s orders will go to the sandbox instead of the broker: nothing reaches the exchange until Live mode is switched on again. Orders already at the broker stay there.'}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setConfirm(false)}>
            Keep {from ? 'Analyzer' : 'Live'}
          </Button>
          <Button color={from ? 'red' : 'orange'} loading={busy} onClick={() => void switchMode()}>
            Switch to {askedTarget}
          </Button>
        </Group>
      </Modal>
    </Card>
  );
}
