/**
 * `/broker` (docs/rules/web.md#account-pages): the user's broker app — chosen among the install's
 * (./BrokerAppChooser.tsx, docs/rules/brokers.md#broker-apps) — and its broker, the signed-in user's broker
 * session in words (not connected, connected, expired — with when), "Connect" (a navigation to
 * `/broker/login`: the broker's login page, then its callback, which brings the browser back here
 * with the outcome) or, for a broker that logs in with a form, that form (./BrokerFormLogin.tsx),
 * and "Disconnect" after a confirmation. Never the token.
 */
import {
  Alert,
  Badge,
  Button,
  Card,
  Container,
  Group,
  Modal,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { ErrorState, Loading } from '../../components/states';
import {
  useBrokerStatus,
  useDisconnectBrokerMutation,
  type BrokerStatus as Status,
} from '../../features/account/api/broker';
import { BrokerAppChooser } from './BrokerAppChooser';
import { BrokerFormLogin } from './BrokerFormLogin';
import { brokerLabel, fromNow, when } from './format';

function StateBadge({ state }: { state: Status['state'] }) {
  const [color, label] =
    state === 'connected'
      ? ['teal', 'Connected']
      : state === 'expired'
        ? ['orange', 'Expired']
        : ['gray', 'Not connected'];
  return (
    <Badge color={color} variant="light" size="lg" data-testid="broker-state">
      {label}
    </Badge>
  );
}

/** What the broker's callback said, from the query it sent the browser back with. */
function LoginOutcome() {
  const [params, setParams] = useSearchParams();
  const login = params.get('login');
  if (login !== 'success' && login !== 'failed') return null;
  const close = () => setParams({}, { replace: true });
  return login === 'success' ? (
    <Alert color="green" role="status" title="Broker login complete" withCloseButton onClose={close}>
      The broker session is stored; live orders and quotes use it.
    </Alert>
  ) : (
    <Alert color="red" role="alert" title="Broker login failed" withCloseButton onClose={close}>
      {params.get('message') ?? 'The broker did not complete the login.'}
    </Alert>
  );
}

function SessionFacts({ data }: { data: Status }) {
  const s = data.session;
  if (data.state === 'none' || !s)
    return (
      <Text data-testid="broker-session-text">
        Not connected: no broker session is stored for you. Live orders need one.
      </Text>
    );
  return (
    <Stack gap="xs">
      <Text data-testid="broker-session-text">
        {data.state === 'connected'
          ? `Connected to ${brokerLabel(s.broker)}${s.expires_at ? `, valid until ${when(s.expires_at)} (${fromNow(s.expires_at)})` : ''}.`
          : `The ${brokerLabel(s.broker)} session expired ${s.expires_at ? `${when(s.expires_at)} (${fromNow(s.expires_at)})` : ''}: connect again to trade live.`}
      </Text>
      <Table variant="vertical" withTableBorder maw={560} aria-label="Broker session">
        <Table.Tbody>
          <Table.Tr>
            <Table.Th w={{ base: 130, sm: 200 }}>Broker</Table.Th>
            <Table.Td>{brokerLabel(s.broker)}</Table.Td>
          </Table.Tr>
          {s.broker_user_id && (
            <Table.Tr>
              <Table.Th>Broker account</Table.Th>
              <Table.Td ff="monospace">{s.broker_user_id}</Table.Td>
            </Table.Tr>
          )}
          <Table.Tr>
            <Table.Th>Connected at</Table.Th>
            <Table.Td>{when(s.connected_at)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{data.state === 'expired' ? 'Expired at' : 'Valid until'}</Table.Th>
            <Table.Td>{s.expires_at ? when(s.expires_at) : 'Not stated by the broker'}</Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

export default function BrokerPage() {
  const status = useBrokerStatus();
  const [confirming, setConfirming] = useState(false);
  const disconnect = useDisconnectBrokerMutation({ onSuccess: () => setConfirming(false) });
  const data = status.data;
  return (
    <Container size="lg">
      <Title order={1} size="h2" mb="md">
        Broker
      </Title>
      <Stack gap="lg">
        <LoginOutcome />
        {disconnect.isSuccess && (
          <Alert color="green" role="status" withCloseButton onClose={() => disconnect.reset()}>
            {disconnect.data.message}
          </Alert>
        )}
        {status.isPending && <Loading label="Loading the broker session…" />}
        {status.isError && <ErrorState error={status.error} title="The broker session could not be read" />}
        {data && (
          <Card withBorder>
            <Group justify="space-between" mb="sm">
              <Title order={2} size="h4">
                {data.broker
                  ? brokerLabel(data.broker)
                  : data.apps.length > 0
                    ? 'No broker app chosen'
                    : 'No broker configured'}
              </Title>
              <StateBadge state={data.state} />
            </Group>
            <Stack>
              {data.apps.length > 0 && <BrokerAppChooser data={data} />}
              {data.apps.length === 0 && (
                <Text c="dimmed">
                  The server has no live broker (no broker app, and BROKER_NAME is not set): orders go to the
                  sandbox only.
                </Text>
              )}
              <SessionFacts data={data} />
              {data.broker && !data.login_available && (
                <Alert color="yellow" role="status">
                  {data.app_id === 0
                    ? 'The broker app’s key is not set (BROKER_API_KEY): the login cannot start.'
                    : 'This broker app lacks what its login needs: an administrator completes it on the Broker apps page.'}
                </Alert>
              )}
              {data.login_available && data.login_kind === 'form' && (
                <BrokerFormLogin
                  key={data.app_id ?? 'none'}
                  fields={data.login_fields}
                  again={data.state !== 'none'}
                />
              )}
              <Group>
                {data.login_available && data.login_kind === 'redirect' && (
                  // A navigation, not a request: the broker's login page takes over the tab.
                  <Button component="a" href="/broker/login">
                    {data.state === 'none' ? 'Connect' : 'Connect again'}
                  </Button>
                )}
                {data.state !== 'none' && (
                  <Button color="red" variant="light" onClick={() => setConfirming(true)}>
                    Disconnect
                  </Button>
                )}
              </Group>
            </Stack>
          </Card>
        )}
      </Stack>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title="Disconnect from the broker?">
        <Stack>
          <Text>
            The stored broker session is deleted. Live orders, books and quotes stop working for you until you
            connect again; your account at the broker is not changed.
          </Text>
          {disconnect.isError && <ErrorState error={disconnect.error} title="Not disconnected" />}
          <Group>
            <Button color="red" loading={disconnect.isPending} onClick={() => disconnect.mutate()}>
              Disconnect
            </Button>
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Container>
  );
}
