/**
 * `/admin/brokers`: the install's broker apps (docs/rules/brokers.md#broker-apps) — each with its
 * broker, where it comes from (the server configuration's `BROKER_*` app is read-only), whether
 * its API key and secret are set (never their values), its redirect URL and whether it has what
 * its broker's login needs; "Add a broker app"; and per app added here "Replace credentials" and
 * "Delete" (after a confirmation: its users must choose again). Users choose among them on
 * `/broker` (docs/rules/web.md#account-pages).
 */
import { Alert, Box, Container, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { SectionCard } from '../../components/Section';
import { Empty, ErrorState, Loading } from '../../components/states';
import { useBrokerApps } from '../../features/admin/api/broker-apps';
import { AppCard, AppRow, type Dialog } from './broker-apps/AppViews';
import { DeleteDialog, ReplaceDialog } from './broker-apps/BrokerAppDialogs';
import { NewBrokerApp } from './broker-apps/NewBrokerApp';

export default function BrokerAppsPage() {
  const apps = useBrokerApps();
  const [dialog, setDialog] = useState<Dialog | undefined>();
  const [deleted, setDeleted] = useState<string | undefined>();
  const close = () => setDialog(undefined);
  return (
    <Container size="xl">
      <Title order={1} size="h2" mb="md">
        Broker apps
      </Title>
      <Stack gap="lg">
        <Text c="dimmed" size="sm">
          A broker app is a broker with the credentials its developer console issued. Each user chooses one on
          their Broker page and logs in there; keys and secrets are stored sealed and never shown again.
        </Text>
        {deleted && (
          <Alert color="green" role="status" withCloseButton onClose={() => setDeleted(undefined)}>
            {deleted}
          </Alert>
        )}
        <section aria-label="Broker apps">
          {apps.isPending ? (
            <Loading label="Loading the broker apps…" />
          ) : apps.isError ? (
            <ErrorState error={apps.error} title="The broker apps could not be read" />
          ) : apps.data.data.length === 0 ? (
            <Empty>No broker app yet: add one below. Until then orders go to the sandbox only.</Empty>
          ) : (
            <>
              <Box visibleFrom="sm">
                <Table.ScrollContainer minWidth={900}>
                  <Table withTableBorder verticalSpacing="sm" aria-label="Broker apps">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Label</Table.Th>
                        <Table.Th>Broker</Table.Th>
                        <Table.Th>Source</Table.Th>
                        <Table.Th>API key</Table.Th>
                        <Table.Th>API secret</Table.Th>
                        <Table.Th>Redirect URL</Table.Th>
                        <Table.Th>Login</Table.Th>
                        <Table.Th>Actions</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {apps.data.data.map((a) => (
                        <AppRow key={a.id} app={a} open={setDialog} />
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
              </Box>
              {/* A phone: one card per app (docs/rules/web.md#phone-width). */}
              <Stack gap="sm" hiddenFrom="sm">
                {apps.data.data.map((a) => (
                  <AppCard key={a.id} app={a} open={setDialog} />
                ))}
              </Stack>
            </>
          )}
        </section>
        <SectionCard title="Add a broker app">
          <NewBrokerApp />
        </SectionCard>
      </Stack>
      {dialog?.kind === 'replace' && <ReplaceDialog app={dialog.app} onClose={close} />}
      {dialog?.kind === 'delete' && (
        <DeleteDialog app={dialog.app} onClose={close} onDeleted={(m) => setDeleted(m)} />
      )}
    </Container>
  );
}
