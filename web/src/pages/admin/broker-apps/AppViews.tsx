/**
 * One broker app on `/admin/brokers` (docs/rules/brokers.md#broker-apps), as a table row on a wide
 * screen and as a card on a phone (docs/rules/web.md#phone-width): its label, broker in words,
 * source (the server configuration's app is read-only), whether its key and secret are set, its
 * redirect URL, whether its login has what it needs, and — for an app added here — "Replace
 * credentials" and "Delete".
 */
import { Button, Card, Group, Stack, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { BrokerApp } from '../../../features/admin/api/broker-apps';
import { brokerLabel, when } from '../../account/format';
import { missingOf, secretState } from './credentials';

export type Dialog = { kind: 'replace' | 'delete'; app: BrokerApp };
type Open = (d: Dialog) => void;

const NOWRAP = { whiteSpace: 'nowrap' } as const;

function Completeness({ app }: { app: BrokerApp }) {
  const missing = missingOf(app);
  return app.complete ? (
    <Text size="sm" c="teal.8" fw={600} style={NOWRAP}>
      Complete
    </Text>
  ) : (
    <Text size="sm" c="orange.8" fw={600}>
      Incomplete: needs {missing.length > 0 ? missing.join(', ') : 'what its broker’s login needs'}
    </Text>
  );
}

function Source({ app }: { app: BrokerApp }) {
  return app.source === 'env' ? (
    <Text size="sm">
      Server configuration
      <Text span size="xs" c="dimmed" display="block">
        read-only (BROKER_* variables)
      </Text>
    </Text>
  ) : (
    <Text size="sm">
      Added here
      <Text span size="xs" c="dimmed" display="block">
        {when(app.created_at === null ? null : new Date(app.created_at).toISOString())}
      </Text>
    </Text>
  );
}

function RedirectUrl({ app }: { app: BrokerApp }) {
  return app.redirect_url === null ? (
    <Text span size="sm" c="dimmed">
      None
    </Text>
  ) : (
    <Text span size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
      {app.redirect_url}
    </Text>
  );
}

function Actions({ app, open }: { app: BrokerApp; open: Open }) {
  if (app.source === 'env')
    return (
      <Text size="xs" c="dimmed">
        Change it in the server’s environment
      </Text>
    );
  return (
    <Group gap="xs">
      <Button
        size="xs"
        variant="light"
        aria-label={`Replace credentials of ${app.label}`}
        onClick={() => open({ kind: 'replace', app })}
      >
        Replace credentials
      </Button>
      <Button
        size="xs"
        variant="light"
        color="red"
        aria-label={`Delete ${app.label}`}
        onClick={() => open({ kind: 'delete', app })}
      >
        Delete
      </Button>
    </Group>
  );
}

export function AppRow({ app, open }: { app: BrokerApp; open: Open }) {
  return (
    <Table.Tr>
      <Table.Td fw={600} style={{ overflowWrap: 'anywhere' }}>
        {app.label}
      </Table.Td>
      <Table.Td style={NOWRAP}>{brokerLabel(app.broker)}</Table.Td>
      <Table.Td>
        <Source app={app} />
      </Table.Td>
      <Table.Td style={NOWRAP}>{secretState(app, 'api_key')}</Table.Td>
      <Table.Td style={NOWRAP}>{secretState(app, 'api_secret')}</Table.Td>
      <Table.Td>
        <RedirectUrl app={app} />
      </Table.Td>
      <Table.Td>
        <Completeness app={app} />
      </Table.Td>
      <Table.Td>
        <Actions app={app} open={open} />
      </Table.Td>
    </Table.Tr>
  );
}

/** A fact of the card: its name, then its value. */
function Fact({ name, children }: { name: string; children: ReactNode }) {
  return (
    <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
      <Text size="sm" c="dimmed" style={NOWRAP}>
        {name}
      </Text>
      <div style={{ textAlign: 'right', minWidth: 0 }}>{children}</div>
    </Group>
  );
}

export function AppCard({ app, open }: { app: BrokerApp; open: Open }) {
  return (
    <Card withBorder component="article" aria-label={`Broker app ${app.label}`}>
      <Stack gap={6}>
        <Group justify="space-between" gap="xs" align="flex-start">
          <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
            {app.label}
          </Text>
          <Completeness app={app} />
        </Group>
        <Fact name="Broker">
          <Text size="sm">{brokerLabel(app.broker)}</Text>
        </Fact>
        <Fact name="Source">
          <Source app={app} />
        </Fact>
        <Fact name="API key">
          <Text size="sm">{secretState(app, 'api_key')}</Text>
        </Fact>
        <Fact name="API secret">
          <Text size="sm">{secretState(app, 'api_secret')}</Text>
        </Fact>
        <Fact name="Redirect URL">
          <RedirectUrl app={app} />
        </Fact>
        <Actions app={app} open={open} />
      </Stack>
    </Card>
  );
}
