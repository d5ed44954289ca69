/**
 * `/flows`: the user's flow workflows (docs/rules/flow.md) — list, create and edit with the
 * definition as JSON (parsed in the browser first, then the server's faults, each naming the node
 * and the field, listed under it: #flow-management), the enabled switch, delete, rotate (the
 * webhook token, secret and URL shown once with copy buttons: #flow-webhook) and each flow's runs
 * with every node's outcome (#flow-runs).
 */
import {
  Alert,
  Button,
  Card,
  Code,
  Container,
  Group,
  List,
  Modal,
  Stack,
  Switch,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/List.css';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState, type FormEvent } from 'react';
import { api, ApiError, fieldError } from '../../api/client';
import { Empty, ErrorState, Loading } from '../../components/states';
import { allShown, Confirm, CopyLine, OutcomeBadge, ResultBadge, ShownOnce, usePhone, when } from './shared';

interface Flow {
  id: number;
  name: string;
  definition: unknown;
  enabled: boolean;
  created_at: number;
  updated_at: number;
}
interface NodeOutcome {
  id: string;
  type: string;
  status: 'done' | 'skipped' | 'failed';
  result?: boolean;
  orderid?: string;
  message?: string;
}
interface Run {
  id: number;
  ts: number;
  ip: string;
  result: string;
  http_status: number;
  symbol: string | null;
  message: string;
  nodes: NodeOutcome[] | null;
  duration_ms: number;
}
interface Issued {
  webhook_token: string;
  webhook_url: string;
  secret: string;
}

const KEY = ['flows'] as const;
const BASE = '/flow/api/flows';
const FIELDS = ['name', 'definition', 'enabled'];

/** What a new flow starts from: buy or sell the webhook's action, within market hours. */
const STARTER_DEFINITION = JSON.stringify(
  {
    exchange: 'NSE',
    symbol: 'SBIN',
    nodes: [
      {
        id: 'market_hours',
        type: 'condition',
        when: { kind: 'time_window', start: '09:20', end: '15:10' },
      },
      {
        id: 'order',
        type: 'place_order',
        symbol: '{{symbol}}',
        action: '{{webhook.action}}',
        quantity: 1,
        product: 'MIS',
      },
    ],
  },
  null,
  2,
);

const nodeCount = (def: unknown) => {
  const nodes = (def as { nodes?: unknown } | null)?.nodes;
  return Array.isArray(nodes) ? nodes.length : 0;
};

/** The server's faults of the definition: one line each (node, place, field). */
function definitionFaults(err: unknown): string[] {
  if (!(err instanceof ApiError)) return [];
  return err.fields.definition ?? [];
}

function FlowForm({
  flow,
  onSaved,
  onCancel,
}: {
  flow?: Flow;
  onSaved: (issued?: Issued & { name: string }) => void;
  onCancel: () => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(flow?.name ?? '');
  const [enabled, setEnabled] = useState(flow?.enabled ?? true);
  const [text, setText] = useState(flow ? JSON.stringify(flow.definition, null, 2) : STARTER_DEFINITION);
  const [parseError, setParseError] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: async (definition: unknown) => {
      const body = { name: name.trim(), definition, enabled };
      if (flow) {
        await api<{ data: Flow }>('PUT', `${BASE}/${flow.id}`, body);
        return undefined;
      }
      const made = await api<{ data: Flow } & Issued>('POST', '/flow/api/flows', body);
      return {
        name: made.data.name,
        webhook_token: made.webhook_token,
        webhook_url: made.webhook_url,
        secret: made.secret,
      };
    },
    onSuccess: async (issued) => {
      await queryClient.invalidateQueries({ queryKey: KEY });
      onSaved(issued);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    let definition: unknown;
    try {
      definition = JSON.parse(text);
    } catch (err) {
      save.reset();
      setParseError(`Not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    setParseError(undefined);
    save.mutate(definition);
  };
  const err = save.error;
  const faults = definitionFaults(err);
  return (
    <form onSubmit={submit} noValidate aria-label={flow ? `Edit flow ${flow.name}` : 'New flow'}>
      <Stack>
        {err && !allShown(err, FIELDS) && <ErrorState error={err} title="Not saved" />}
        <TextInput
          label="Name"
          required
          withAsterisk={false}
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fieldError(err, 'name')}
        />
        <Switch
          label="Enabled"
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
          error={fieldError(err, 'enabled')}
        />
        <Textarea
          label="Definition (JSON)"
          description={
            <>
              Nodes run in order: <Code>condition</Code>, <Code>place_order</Code>, <Code>smart_order</Code>,{' '}
              <Code>close_position</Code>, <Code>cancel_all</Code>, <Code>notify</Code>, <Code>wait</Code>.
              Text fields may use <Code>{'{{symbol}}'}</Code>, <Code>{'{{webhook.<field>}}'}</Code> and{' '}
              <Code>{'{{quote.ltp}}'}</Code>.
            </>
          }
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          autosize
          minRows={12}
          maxRows={28}
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
          error={parseError ?? (faults.length > 0 ? 'The server refused this definition:' : undefined)}
        />
        {faults.length > 0 && (
          <List size="sm" c="red" spacing={4} aria-label="Faults of the definition" data-testid="flow-faults">
            {faults.map((f) => (
              <List.Item key={f}>{f}</List.Item>
            ))}
          </List>
        )}
        <Group>
          <Button type="submit" loading={save.isPending}>
            {flow ? 'Save changes' : 'Create flow'}
          </Button>
          <Button variant="default" onClick={() => setText(STARTER_DEFINITION)}>
            Use the starter definition
          </Button>
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

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

function NodeDetail({ n }: { n: NodeOutcome }) {
  if (n.orderid) return <>order {n.orderid}</>;
  if (n.message) return <>{n.message}</>;
  if (n.result !== undefined) return <>condition {n.result ? 'held' : 'did not hold'}</>;
  return <>—</>;
}

function Runs({ flow, onClose }: { flow: Flow; onClose: () => void }) {
  const list = useQuery({
    queryKey: [...KEY, flow.id, 'runs'],
    queryFn: () => api<{ data: Run[] }>('GET', `${BASE}/${flow.id}/runs?limit=100`),
    refetchInterval: 10_000,
  });
  const [open, setOpen] = useState<Set<number>>(new Set());
  const toggle = (id: number) =>
    setOpen((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Runs of {flow.name}
        </Title>
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={() => void list.refetch()}>
            Refresh
          </Button>
          <Button size="xs" variant="default" onClick={onClose}>
            Close
          </Button>
        </Group>
      </Group>
      {list.isPending && <Loading label="Loading runs…" />}
      {list.isError && <ErrorState error={list.error} />}
      {list.data && list.data.data.length === 0 && <Empty>This flow has not run yet.</Empty>}
      {list.data && list.data.data.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={`Runs of ${flow.name}`} striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time (IST)</Table.Th>
                <Table.Th>Result</Table.Th>
                <Table.Th>Symbol</Table.Th>
                <Table.Th>Message</Table.Th>
                <Table.Th>Nodes</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.data.map((r) => (
                <Fragment key={r.id}>
                  <Table.Tr data-testid="run-row">
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(r.ts)}</Table.Td>
                    <Table.Td>
                      <ResultBadge result={r.result} />
                    </Table.Td>
                    <Table.Td ff="monospace">{r.symbol ?? '—'}</Table.Td>
                    <Table.Td>{r.message}</Table.Td>
                    <Table.Td>
                      {r.nodes && r.nodes.length > 0 ? (
                        <Button
                          size="xs"
                          variant="subtle"
                          aria-expanded={open.has(r.id)}
                          onClick={() => toggle(r.id)}
                        >
                          {open.has(r.id) ? 'Hide' : 'Show'} {r.nodes.length}
                        </Button>
                      ) : (
                        '—'
                      )}
                    </Table.Td>
                  </Table.Tr>
                  {open.has(r.id) && r.nodes && (
                    <Table.Tr>
                      <Table.Td colSpan={5}>
                        <Table aria-label={`Nodes of the run at ${when(r.ts)}`}>
                          <Table.Thead>
                            <Table.Tr>
                              <Table.Th>Node</Table.Th>
                              <Table.Th>Type</Table.Th>
                              <Table.Th>Outcome</Table.Th>
                              <Table.Th>Order id or message</Table.Th>
                            </Table.Tr>
                          </Table.Thead>
                          <Table.Tbody>
                            {r.nodes.map((n) => (
                              <Table.Tr key={n.id}>
                                <Table.Td ff="monospace">{n.id}</Table.Td>
                                <Table.Td>{n.type}</Table.Td>
                                <Table.Td>
                                  <OutcomeBadge status={n.status} />
                                </Table.Td>
                                <Table.Td>
                                  <NodeDetail n={n} />
                                </Table.Td>
                              </Table.Tr>
                            ))}
                          </Table.Tbody>
                        </Table>
                      </Table.Td>
                    </Table.Tr>
                  )}
                </Fragment>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}

export default function FlowsPage() {
  const queryClient = useQueryClient();
  const phone = usePhone();
  const list = useQuery({ queryKey: KEY, queryFn: () => api<{ data: Flow[] }>('GET', '/flow/api/flows') });
  // The credentials just issued: in this page's memory only, gone once hidden or the page is left.
  const [issued, setIssued] = useState<(Issued & { name: string }) | undefined>();
  // The form's target stays while its dialog closes, so the dialog does not empty mid-transition.
  const [formOpen, setFormOpen] = useState(false);
  const [editing, setEditing] = useState<Flow | 'new'>('new');
  const openForm = (target: Flow | 'new') => {
    setEditing(target);
    setFormOpen(true);
  };
  const [deleting, setDeleting] = useState<Flow | undefined>();
  const [rotating, setRotating] = useState<Flow | undefined>();
  const [viewing, setViewing] = useState<number | undefined>();
  const remove = useMutation({
    mutationFn: (id: number) => api('DELETE', `${BASE}/${id}`),
    onSuccess: async (_r, id) => {
      setDeleting(undefined);
      if (viewing === id) setViewing(undefined);
      await queryClient.invalidateQueries({ queryKey: KEY });
    },
  });
  const rotate = useMutation({
    mutationFn: (f: Flow) => api<Issued>('POST', `${BASE}/${f.id}/rotate`),
    onSuccess: (r, f) => {
      setRotating(undefined);
      setIssued({
        name: f.name,
        webhook_token: r.webhook_token,
        webhook_url: r.webhook_url,
        secret: r.secret,
      });
    },
  });
  const rows = list.data?.data ?? [];
  const shownFlow = rows.find((f) => f.id === viewing);
  const actions = (f: Flow) => (
    <Group gap={4} wrap={phone ? 'wrap' : 'nowrap'} justify={phone ? 'flex-start' : 'flex-end'}>
      <Button size="xs" variant="light" onClick={() => setViewing(f.id)} aria-label={`Runs of ${f.name}`}>
        Runs
      </Button>
      <Button size="xs" variant="light" onClick={() => openForm(f)} aria-label={`Edit ${f.name}`}>
        Edit
      </Button>
      <Button
        size="xs"
        variant="light"
        color="orange"
        onClick={() => setRotating(f)}
        aria-label={`Rotate the webhook of ${f.name}`}
      >
        Rotate
      </Button>
      <Button
        size="xs"
        variant="light"
        color="red"
        onClick={() => setDeleting(f)}
        aria-label={`Delete ${f.name}`}
      >
        Delete
      </Button>
    </Group>
  );

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
