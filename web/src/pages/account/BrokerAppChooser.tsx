/**
 * The `/broker` page's broker app chooser (docs/rules/web.md#account-pages,
 * docs/rules/brokers.md#broker-apps): the install's apps (label and broker), the user's own
 * selected, and "Use this app" (`PUT /broker/api/app`) — after a confirmation when a session
 * exists, since choosing ends it. The page then shows the chosen app's login.
 */
import { Alert, Button, Group, Modal, NativeSelect, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { ErrorState } from '../../components/states';
import { useChooseAppMutation, type BrokerStatus } from '../../features/account/api/broker';
import { brokerLabel } from './format';

type App = BrokerStatus['apps'][number];

const describe = (a: App) => `${a.label} · ${brokerLabel(a.broker)}`;

export function BrokerAppChooser({ data }: { data: BrokerStatus }) {
  const [picked, setPicked] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);
  const choose = useChooseAppMutation({
    onSuccess: () => {
      setConfirming(false);
      setPicked(undefined);
    },
  });
  const current = data.apps.find((a) => a.id === data.app_id);
  const selected = picked ?? (data.app_id === null ? '' : String(data.app_id));
  const target = data.apps.find((a) => String(a.id) === selected);
  const changes = target !== undefined && target.id !== data.app_id;
  const use = () => {
    if (!target) return;
    if (data.state !== 'none') setConfirming(true);
    else choose.mutate(target.id);
  };
  return (
    <Stack gap="xs">
      {data.app_id === null && (
        <Alert color="yellow" role="status" title="No broker app chosen">
          You have not chosen a broker app yet: choose the one you trade through, then log in to it here.
        </Alert>
      )}
      {choose.isSuccess && data.state === 'none' && (
        <Alert color="green" role="status" withCloseButton onClose={() => choose.reset()}>
          {choose.data.message}. Log in to it below.
        </Alert>
      )}
      {choose.isError && !confirming && <ErrorState error={choose.error} title="App not changed" />}
      <Group align="flex-end" gap="sm" wrap="wrap">
        <NativeSelect
          label="Broker app"
          description="The broker and credentials your live orders go through"
          style={{ flex: '1 1 260px', maxWidth: 420 }}
          value={selected}
          onChange={(e) => setPicked(e.currentTarget.value)}
          data={[
            ...(data.app_id === null ? [{ value: '', label: 'Choose a broker app' }] : []),
            ...data.apps.map((a) => ({ value: String(a.id), label: describe(a) })),
          ]}
        />
        <Button variant="light" disabled={!changes} loading={choose.isPending && !confirming} onClick={use}>
          Use this app
        </Button>
      </Group>
      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title={target ? `Use ${target.label}?` : 'Use this app?'}
        centered
      >
        <Stack>
          <Text>
            Your session with {current ? describe(current) : 'your broker'} ends: live orders, books and
            quotes stop until you log in through {target ? describe(target) : 'the new app'}.
          </Text>
          {choose.isError && <ErrorState error={choose.error} title="App not changed" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button loading={choose.isPending} onClick={() => target && choose.mutate(target.id)}>
              Use this app
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
