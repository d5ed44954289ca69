/**
 * `/scanners` (and OpenAlgo's `/chartink`): the user's scanner alerts (docs/rules/scanner.md) —
 * list, create, edit, delete, rotate the webhook id (its URL shown once, with a copy button, at
 * creation and rotation: #scanner-webhook-id) and each scanner's deliveries with every symbol's
 * outcome (#scanner-audit). The administrator also allows or forbids live orders per scanner.
 */
import {
  Alert,
  Button,
  Card,
  Container,
  Group,
  Modal,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useSession } from '../../api/auth';
import { Empty, ErrorState, Loading } from '../../components/states';
import { Confirm, CopyLine, ShownOnce, usePhone } from './common';
import { RowActions, useWebhookList } from './webhook-list';
import { modeBadge, sizingCell, windowCell } from './scanners/cells';
import { Deliveries } from './scanners/Deliveries';
import { LiveSwitch } from './scanners/LiveSwitch';
import { ScannerForm } from './scanners/ScannerForm';
import { BASE, KEY, type Issued, type Scanner } from './scanners/scanner';

export default function ScannersPage() {
  const user = useSession().data;
  const phone = usePhone();
  const page = useWebhookList<Scanner, Issued>(KEY, BASE);
  const { list, rows, issued, setIssued, formOpen, setFormOpen, editing, openForm } = page;
  const { deleting, setDeleting, rotating, setRotating, setViewing, remove, rotate } = page;
  const shownScanner = page.shown;

  const liveCell = (s: Scanner) =>
    user?.is_admin ? <LiveSwitch scanner={s} /> : s.live_enabled ? 'Yes' : 'No';
  const actions = (s: Scanner) => <RowActions row={s} audit="Deliveries" list={page} />;

  return (
    <Container size="xl" px={0}>
      <Group justify="space-between" mb="md">
        <Title order={1} size="h2">
          Scanners
        </Title>
        <Button onClick={() => openForm('new')}>New scanner</Button>
      </Group>
      <Text c="dimmed" size="sm" mb="md">
        Chartink alerts turn into orders: each scanner has a webhook URL to paste into a Chartink alert. Each
        stock of an alert is bought or sold with the scanner’s sizing, within its trading window.
      </Text>
      <Stack gap="lg">
        {issued && (
          <ShownOnce title={`Webhook URL of ${issued.name}`} onDone={() => setIssued(undefined)}>
            <CopyLine label="Webhook URL" value={issued.webhook_url} testId="scanner-webhook-url" />
          </ShownOnce>
        )}
        <Card withBorder>
          {list.isPending && <Loading label="Loading scanners…" />}
          {list.isError && <ErrorState error={list.error} />}
          {list.data && rows.length === 0 && <Empty>No scanner yet: create one to get a webhook URL.</Empty>}
          {rows.length > 0 && phone && (
            <Stack gap="sm" role="list" aria-label="Scanners">
              {rows.map((s) => (
                <Card key={s.id} withBorder role="listitem" aria-label={s.name} p="sm">
                  <Group justify="space-between" mb="xs" wrap="nowrap">
                    <Text fw={700}>{s.name}</Text>
                    {modeBadge(s)}
                  </Group>
                  <SimpleGrid cols={2} spacing="xs" verticalSpacing={4} mb="sm">
                    <Text size="sm" c="dimmed">
                      Action
                    </Text>
                    <Text size="sm">{s.action}</Text>
                    <Text size="sm" c="dimmed">
                      Exchange / product
                    </Text>
                    <Text size="sm">
                      {s.exchange} / {s.product}
                    </Text>
                    <Text size="sm" c="dimmed">
                      Sizing
                    </Text>
                    <Text size="sm">{sizingCell(s)}</Text>
                    <Text size="sm" c="dimmed">
                      Window (IST)
                    </Text>
                    <Text size="sm">{windowCell(s)}</Text>
                    <Text size="sm" c="dimmed">
                      Enabled
                    </Text>
                    <Text size="sm">{s.enabled ? 'Yes' : 'No'}</Text>
                    <Text size="sm" c="dimmed">
                      Live allowed
                    </Text>
                    <div>{liveCell(s)}</div>
                  </SimpleGrid>
                  {actions(s)}
                </Card>
              ))}
            </Stack>
          )}
          {rows.length > 0 && !phone && (
            <Table.ScrollContainer minWidth={860}>
              <Table aria-label="Scanners" striped highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Action</Table.Th>
                    <Table.Th>Exchange / product</Table.Th>
                    <Table.Th>Sizing</Table.Th>
                    <Table.Th>Window (IST)</Table.Th>
                    <Table.Th>Mode</Table.Th>
                    <Table.Th>Enabled</Table.Th>
                    <Table.Th>Live allowed</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((s) => (
                    <Table.Tr key={s.id}>
                      <Table.Td fw={600}>{s.name}</Table.Td>
                      <Table.Td>{s.action}</Table.Td>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>
                        {s.exchange} / {s.product}
                      </Table.Td>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>{sizingCell(s)}</Table.Td>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>{windowCell(s)}</Table.Td>
                      <Table.Td>{modeBadge(s)}</Table.Td>
                      <Table.Td>{s.enabled ? 'Yes' : 'No'}</Table.Td>
                      <Table.Td>{liveCell(s)}</Table.Td>
                      <Table.Td>{actions(s)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </Card>
        {shownScanner && (
          <Deliveries key={shownScanner.id} scanner={shownScanner} onClose={() => setViewing(undefined)} />
        )}
      </Stack>
      <Modal
        opened={formOpen}
        onClose={() => setFormOpen(false)}
        title={editing === 'new' ? 'New scanner' : `Edit ${editing.name}`}
        size="lg"
        fullScreen={phone}
      >
        <ScannerForm
          key={editing === 'new' ? 'new' : editing.id}
          scanner={editing === 'new' ? undefined : editing}
          onCancel={() => setFormOpen(false)}
          onSaved={(made) => {
            setFormOpen(false);
            if (made) setIssued(made);
          }}
        />
      </Modal>
      <Confirm
        opened={deleting !== undefined}
        title="Delete the scanner?"
        confirm="Delete"
        pending={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        onClose={() => setDeleting(undefined)}
        error={remove.error && <ErrorState error={remove.error} title="Not deleted" />}
      >
        <Text>
          Delete {deleting?.name}? Its webhook URL stops working at once; its deliveries stay in the audit,
          and positions it opened are left to you.
        </Text>
      </Confirm>
      <Confirm
        opened={rotating !== undefined}
        title="Rotate the webhook URL?"
        confirm="Rotate"
        pending={rotate.isPending}
        onConfirm={() => rotating && rotate.mutate(rotating)}
        onClose={() => setRotating(undefined)}
        error={rotate.error && <ErrorState error={rotate.error} title="Not rotated" />}
      >
        <Text>
          {rotating?.name} gets a new webhook URL, shown once. The current one stops working at once: update
          your Chartink alert.
        </Text>
      </Confirm>
      {user && !user.is_admin && rows.some((s) => s.mode === 'live' && !s.live_enabled) && (
        <Alert color="yellow" mt="md">
          A live scanner’s alerts are refused until an administrator allows live orders for it.
        </Alert>
      )}
    </Container>
  );
}
