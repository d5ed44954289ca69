/**
 * `/flows`: the user's flow workflows (docs/rules/flow.md) — list, create and edit with the
 * definition as JSON (parsed in the browser first, then the server's faults, each naming the node
 * and the field, listed under it: #flow-management), the enabled switch, delete, rotate (the
 * webhook token, secret and URL shown once with copy buttons: #flow-webhook) and each flow's runs
 * with every node's outcome (#flow-runs). The form, the runs and the shapes are in `flows/`.
 */
import {
  Alert,
  Button,
  Card,
  Code,
  Container,
  Group,
  Modal,
  Stack,
  Switch,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { Empty, ErrorState, Loading } from '../../components/states';
import { FlowForm } from './flows/FlowForm';
import { Runs } from './flows/FlowRuns';
import { BASE, KEY, nodeCount, type Flow, type Issued } from './flows/model';
import { Confirm, CopyLine, ShownOnce, usePhone, when } from './common';
import { RowActions, useWebhookList } from './webhook-list';

function EnabledSwitch({ flow }: { flow: Flow }) {
  const queryClient = useQueryClient();
  const set = useMutation({
    mutationFn: (enabled: boolean) => api('PUT', `${BASE}/${flow.id}`, { enabled }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
  return (
    <Stack gap={2}>
      <Switch
        aria-label={`${flow.name} enabled`}
        checked={flow.enabled}
        disabled={set.isPending}
        onChange={(e) => set.mutate(e.currentTarget.checked)}
      />
      {set.error && (
        <Text size="xs" c="red" role="alert">
          {set.error.message}
        </Text>
      )}
    </Stack>
  );
}

export default function FlowsPage() {
  const phone = usePhone();
  const page = useWebhookList<Flow, Issued>(KEY, BASE);
  const { list, rows, issued, setIssued, formOpen, setFormOpen, editing, openForm } = page;
  const { deleting, setDeleting, rotating, setRotating, setViewing, remove, rotate } = page;
  const shownFlow = page.shown;
  const actions = (f: Flow) => <RowActions row={f} audit="Runs" list={page} />;

  return (
    <Container size="xl" px={0}>
      <Group justify="space-between" mb="md">
        <Title order={1} size="h2">
          Flows
        </Title>
        <Button onClick={() => openForm('new')}>New flow</Button>
      </Group>
      <Text c="dimmed" size="sm" mb="md">
        A flow is a short list of steps — conditions, orders, notifications — that a webhook starts. POST a
        JSON body with the flow’s secret to its URL, for example{' '}
        <Code>{'{"secret": "…", "action": "BUY"}'}</Code>; add <Code>/SYMBOL</Code> to the URL to set{' '}
        <Code>{'{{symbol}}'}</Code>.
      </Text>
      <Stack gap="lg">
        {issued && (
          <ShownOnce title={`Webhook of ${issued.name}`} onDone={() => setIssued(undefined)}>
            <CopyLine label="Webhook URL" value={issued.webhook_url} testId="flow-webhook-url" />
            <CopyLine label="Token" value={issued.webhook_token} testId="flow-webhook-token" />
            <CopyLine label="Secret" value={issued.secret} testId="flow-webhook-secret" />
          </ShownOnce>
        )}
        <Card withBorder>
          {list.isPending && <Loading label="Loading flows…" />}
          {list.isError && <ErrorState error={list.error} />}
          {list.data && rows.length === 0 && (
            <Empty>No flow yet: create one from the starter definition to get a webhook.</Empty>
          )}
          {rows.length > 0 && phone && (
            <Stack gap="sm" role="list" aria-label="Flows">
              {rows.map((f) => (
                <Card key={f.id} withBorder role="listitem" aria-label={f.name} p="sm">
                  <Group justify="space-between" mb="xs" wrap="nowrap">
                    <Text fw={700}>{f.name}</Text>
                    <EnabledSwitch flow={f} />
                  </Group>
                  <Text size="sm" c="dimmed" mb="sm">
                    {nodeCount(f.definition)} nodes · updated {when(f.updated_at)}
                  </Text>
                  {actions(f)}
                </Card>
              ))}
            </Stack>
          )}
          {rows.length > 0 && !phone && (
            <Table.ScrollContainer minWidth={720}>
              <Table aria-label="Flows" striped highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Nodes</Table.Th>
                    <Table.Th>Updated (IST)</Table.Th>
                    <Table.Th>Enabled</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((f) => (
                    <Table.Tr key={f.id}>
                      <Table.Td fw={600}>{f.name}</Table.Td>
                      <Table.Td>{nodeCount(f.definition)}</Table.Td>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(f.updated_at)}</Table.Td>
                      <Table.Td>
                        <EnabledSwitch flow={f} />
                      </Table.Td>
                      <Table.Td>{actions(f)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </Card>
        {shownFlow && <Runs key={shownFlow.id} flow={shownFlow} onClose={() => setViewing(undefined)} />}
      </Stack>
      <Modal
        opened={formOpen}
        onClose={() => setFormOpen(false)}
        title={editing === 'new' ? 'New flow' : `Edit ${editing.name}`}
        size="xl"
        fullScreen={phone}
      >
        <FlowForm
          key={editing === 'new' ? 'new' : editing.id}
          flow={editing === 'new' ? undefined : editing}
          onCancel={() => setFormOpen(false)}
          onSaved={(made) => {
            setFormOpen(false);
            if (made) setIssued(made);
          }}
        />
      </Modal>
      <Confirm
        opened={deleting !== undefined}
        title="Delete the flow?"
        confirm="Delete"
        pending={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        onClose={() => setDeleting(undefined)}
        error={remove.error && <ErrorState error={remove.error} title="Not deleted" />}
      >
        <Text>Delete {deleting?.name}? Its webhook stops working at once; its runs stay in the audit.</Text>
      </Confirm>
      <Confirm
        opened={rotating !== undefined}
        title="Rotate the webhook token and secret?"
        confirm="Rotate"
        pending={rotate.isPending}
        onConfirm={() => rotating && rotate.mutate(rotating)}
        onClose={() => setRotating(undefined)}
        error={rotate.error && <ErrorState error={rotate.error} title="Not rotated" />}
      >
        <Text>
          {rotating?.name} gets a new token and secret, shown once. The current ones stop working at once.
        </Text>
      </Confirm>
      {rows.length > 0 && !rows.some((f) => f.enabled) && (
        <Alert color="yellow" mt="md">
          Every flow is disabled: their webhooks are refused.
        </Alert>
      )}
    </Container>
  );
}
