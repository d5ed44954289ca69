/**
 * `/admin/mcp` ("Agents"): remote AI agents (docs/rules/mcp.md#mcp-settings) — the kill switch,
 * the settings, the OAuth clients with approve and revoke, and the audit of tool calls
 * (docs/rules/mcp.md#mcp-audit). The server checks every value and names the field; its messages
 * show under that field (docs/rules/web.md#field-messages).
 */
import {
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  Code,
  Container,
  Group,
  Modal,
  NativeSelect,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSession } from '../../api/auth';
import { api, fieldError, onlyFieldErrors } from '../../api/client';
import { Empty, ErrorState, Loading } from '../../components/states';

type ClientStatus = 'pending' | 'approved' | 'revoked';

interface OAuthClient {
  client_id: string;
  name: string;
  redirect_uris: string[];
  status: ClientStatus;
  created_at: number;
  last_used_at: number | null;
  users: string[];
}
interface ClientCounts {
  total: number;
  pending: number;
  approved: number;
  revoked: number;
}
interface Settings {
  enabled: boolean;
  require_approval: boolean;
  writes_enabled: boolean;
  allowed_scopes: string[];
  token_rate_per_minute: number;
  kill_switch: boolean;
}
interface AuditRow {
  id: number;
  ts: number;
  transport: string;
  client_id: string | null;
  user_id: number | null;
  tool: string;
  scope: string | null;
  http_status: number;
  outcome: string;
  duration_ms: number;
  ip: string;
}

const SETTINGS_KEY = ['admin', 'mcp', 'settings'] as const;
const CLIENTS_KEY = ['admin', 'mcp', 'clients'] as const;
/** The scopes an agent may be given (`MCP_SCOPES` of mcp-tools.ts), as a person reads them. */
const SCOPES = [
  { value: 'read:market', label: 'read:market', text: 'Quotes, depth, history, option chains, calendars' },
  { value: 'read:account', label: 'read:account', text: 'Funds, order and trade books, positions, holdings' },
  { value: 'write:orders', label: 'write:orders', text: 'Place, modify and cancel orders; start strategies' },
];
const SETTING_FIELDS = [
  'enabled',
  'require_approval',
  'writes_enabled',
  'allowed_scopes',
  'token_rate_per_minute',
];
const STATUS_COLOR: Record<string, string> = { pending: 'yellow', approved: 'green', revoked: 'gray' };
const OUTCOME_COLOR: Record<string, string> = { ok: 'green', refused: 'orange', error: 'red' };
const PAGE = 50;

const when = (ms: number) => new Date(ms).toLocaleString();
/** A date and time to the minute, for the clients' table. */
const day = (ms: number) => new Date(ms).toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });

/** Messages for a field and its items (`allowed_scopes.0`). */
const under = (err: unknown, field: string) =>
  [fieldError(err, field), fieldError(err, `${field}.0`), fieldError(err, `${field}.1`)]
    .filter(Boolean)
    .join(' ') || undefined;

function KillSwitch({ engaged }: { engaged: boolean }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [typed, setTyped] = useState('');
  // What the dialog asks, fixed when it opens (the state flips while it closes).
  const [engage, setEngage] = useState(!engaged);
  const word = engage ? 'ENGAGE' : 'RELEASE';
  const flip = useMutation({
    mutationFn: () =>
      api<{ kill_switch: boolean; revoked_tokens: number }>('POST', '/admin/api/mcp/kill-switch', {
        engage,
        confirm: typed.trim(),
      }),
    onSuccess: async () => {
      setAsking(false);
      setTyped('');
      await queryClient.invalidateQueries({ queryKey: ['admin', 'mcp'] });
    },
  });
  const ask = () => {
    setEngage(!engaged);
    flip.reset();
    setAsking(true);
  };
  const close = () => {
    setAsking(false);
    setTyped('');
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    flip.mutate();
  };
  return (
    <>
      {engaged ? (
        <Alert
          color="red"
          variant="filled"
          title="Kill switch engaged"
          data-testid="kill-switch-state"
          role="status"
        >
          <Stack gap="sm">
            <Text size="sm">
              Every agent token was revoked. Agents are refused at /mcp, and new registrations and
              authorizations are refused, until the switch is released.
            </Text>
            {flip.isSuccess && flip.data.kill_switch && (
              <Text size="sm" fw={700}>
                {flip.data.revoked_tokens} token{flip.data.revoked_tokens === 1 ? '' : 's'} revoked just now.
              </Text>
            )}
            <Group>
              <Button color="dark" variant="white" onClick={ask}>
                Release the kill switch
              </Button>
            </Group>
          </Stack>
        </Alert>
      ) : (
        <Card withBorder data-testid="kill-switch-state">
          <Group justify="space-between" wrap="wrap" gap="sm">
            <div>
              <Group gap="xs">
                <Title order={2} size="h4">
                  Kill switch
                </Title>
                <Badge color="green" variant="light">
                  Released
                </Badge>
              </Group>
              <Text size="sm" c="dimmed">
                Engaging it revokes every agent token at once and refuses /mcp, registration and authorization
                until it is released.
              </Text>
            </div>
            <Button color="red" onClick={ask}>
              Engage the kill switch
            </Button>
          </Group>
        </Card>
      )}
      {flip.isSuccess && !flip.data.kill_switch && (
        <Alert color="green" role="status">
          Kill switch released: agents work again as the settings allow.
        </Alert>
      )}
      <Modal
        opened={asking}
        onClose={close}
        title={engage ? 'Engage the kill switch?' : 'Release the kill switch?'}
      >
        <form
          onSubmit={submit}
          noValidate
          aria-label={engage ? 'Engage the kill switch' : 'Release the kill switch'}
        >
          <Stack>
            <Text size="sm">
              {!engage
                ? 'Approved clients may then ask for tokens again, and /mcp answers as the settings allow.'
                : 'Every agent token stops working at once; /mcp, registration and authorization are refused until you release it.'}
            </Text>
            {flip.error && !onlyFieldErrors(flip.error, ['confirm']) && (
              <ErrorState error={flip.error} title="Not changed" />
            )}
            <TextInput
              label={`Type ${word} to confirm`}
              autoComplete="off"
              value={typed}
              onChange={(e) => setTyped(e.currentTarget.value)}
              error={fieldError(flip.error, 'confirm')}
              data-autofocus
            />
            <Group>
              <Button
                type="submit"
                color={engage ? 'red' : 'green'}
                disabled={typed.trim() !== word}
                loading={flip.isPending}
              >
                {engage ? 'Engage' : 'Release'}
              </Button>
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

function SettingsForm({ settings }: { settings: Settings }) {
  const queryClient = useQueryClient();
  const [enabled, setEnabled] = useState(settings.enabled);
  const [approval, setApproval] = useState(settings.require_approval);
  const [writes, setWrites] = useState(settings.writes_enabled);
  const [scopes, setScopes] = useState<string[]>(settings.allowed_scopes);
  const [rate, setRate] = useState(String(settings.token_rate_per_minute));
  const save = useMutation({
    mutationFn: () =>
      api<{ data: Settings }>('PUT', '/admin/api/mcp/settings', {
        enabled,
        require_approval: approval,
        writes_enabled: writes,
        allowed_scopes: scopes,
        // A whole number goes as one; anything else as typed, for the server to name the fault.
        token_rate_per_minute: /^\s*\d+\s*$/.test(rate) ? Number(rate) : rate,
      }),
    onSuccess: (body) => {
      queryClient.setQueryData(SETTINGS_KEY, body);
      setRate(String(body.data.token_rate_per_minute));
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const err = save.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Agent settings">
      <Stack>
        {err && !onlyFieldErrors(err, SETTING_FIELDS.concat(['allowed_scopes.0', 'allowed_scopes.1'])) && (
          <ErrorState error={err} title="Not saved" />
        )}
        {save.isSuccess && (
          <Alert color="green" role="status">
            Settings saved: in force on every instance at once.
          </Alert>
        )}
        <Switch
          label="Remote agents enabled"
          description="Off: /mcp refuses every token."
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
          error={fieldError(err, 'enabled')}
        />
        <Switch
          label="New clients need my approval"
          description="Off: a client that registers is approved at once."
          checked={approval}
          onChange={(e) => setApproval(e.currentTarget.checked)}
          error={fieldError(err, 'require_approval')}
        />
        <Switch
          label="Agents may place orders"
          description="Off: write tools (orders, strategies) are refused even with the write:orders scope."
          checked={writes}
          onChange={(e) => setWrites(e.currentTarget.checked)}
          error={fieldError(err, 'writes_enabled')}
        />
        <Checkbox.Group
          label="Allowed scopes"
          description="What a user may grant an agent."
          value={scopes}
          onChange={setScopes}
          error={under(err, 'allowed_scopes')}
        >
          <Stack mt={6} gap="xs">
            {SCOPES.map((s) => (
              <Checkbox key={s.value} value={s.value} label={s.label} description={s.text} />
            ))}
          </Stack>
        </Checkbox.Group>
        <TextInput
          label="Calls per minute per token"
          description="1 to 6,000; a token's calls beyond it are refused (429)."
          inputMode="numeric"
          value={rate}
          onChange={(e) => setRate(e.currentTarget.value)}
          error={fieldError(err, 'token_rate_per_minute')}
          maw={360}
        />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save settings
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Figure({ label, value }: { label: string; value: number }) {
  return (
    <Card withBorder padding="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700} aria-label={`${label}: ${value}`}>
        {value}
      </Text>
    </Card>
  );
}

function Clients() {
  const queryClient = useQueryClient();
  const [revoking, setRevoking] = useState<OAuthClient | undefined>();
  const list = useQuery({
    queryKey: CLIENTS_KEY,
    queryFn: () => api<{ data: OAuthClient[]; counts: ClientCounts }>('GET', '/admin/api/oauth/clients'),
  });
  const act = useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'approve' | 'revoke' }) =>
      api('POST', `/admin/api/oauth/clients/${encodeURIComponent(id)}/${action}`),
    onSuccess: async () => {
      setRevoking(undefined);
      await queryClient.invalidateQueries({ queryKey: CLIENTS_KEY });
    },
  });
  if (list.isPending) return <Loading label="Loading the clients…" />;
  if (list.isError) return <ErrorState error={list.error} />;
  const { data: rows, counts } = list.data;
  return (
    <Stack>
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Figure label="Clients" value={counts.total} />
        <Figure label="Pending" value={counts.pending} />
        <Figure label="Approved" value={counts.approved} />
        <Figure label="Revoked" value={counts.revoked} />
      </SimpleGrid>
      {act.error && <ErrorState error={act.error} title="Not changed" />}
      {rows.length === 0 ? (
        <Empty>No agent has registered yet. A client appears here once it calls /oauth/register.</Empty>
      ) : (
        <Table.ScrollContainer minWidth={940}>
          <Table striped highlightOnHover aria-label="OAuth clients" verticalSpacing="xs" fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name and client ID</Table.Th>
                <Table.Th miw={150}>Redirect URIs</Table.Th>
                <Table.Th miw={110}>Status</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Users who consented</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((c) => (
                <Table.Tr key={c.client_id}>
                  <Table.Td>
                    <Text fw={600} size="sm">
                      {c.name}
                    </Text>
                    <Code fz="xs" style={{ whiteSpace: 'nowrap' }}>
                      {c.client_id}
                    </Code>
                  </Table.Td>
                  <Table.Td>
                    <Stack gap={2}>
                      {c.redirect_uris.map((u) => (
                        <Text key={u} size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                          {u}
                        </Text>
                      ))}
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Badge
                      color={STATUS_COLOR[c.status] ?? 'gray'}
                      variant={c.status === 'pending' ? 'filled' : 'light'}
                      data-testid={`client-status-${c.client_id}`}
                    >
                      {c.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{day(c.created_at)}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {c.last_used_at === null ? 'never' : day(c.last_used_at)}
                  </Table.Td>
                  <Table.Td>{c.users.length > 0 ? c.users.join(', ') : 'none yet'}</Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      {c.status !== 'approved' && (
                        <Button
                          size="xs"
                          variant="light"
                          color="green"
                          aria-label={`Approve ${c.name}`}
                          loading={act.isPending && act.variables.id === c.client_id}
                          onClick={() => act.mutate({ id: c.client_id, action: 'approve' })}
                        >
                          Approve
                        </Button>
                      )}
                      {c.status !== 'revoked' && (
                        <Button
                          size="xs"
                          variant="light"
                          color="red"
                          aria-label={`Revoke ${c.name}`}
                          onClick={() => setRevoking(c)}
                        >
                          Revoke
                        </Button>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal
        opened={revoking !== undefined}
        onClose={() => setRevoking(undefined)}
        title="Revoke this client?"
      >
        {revoking && (
          <Stack>
            <Text>
              Revoke “{revoking.name}”? Its tokens stop working at once and it cannot be authorized again
              until you approve it.
            </Text>
            <Group>
              <Button
                color="red"
                loading={act.isPending}
                onClick={() => act.mutate({ id: revoking.client_id, action: 'revoke' })}
              >
                Revoke
              </Button>
              <Button variant="default" onClick={() => setRevoking(undefined)}>
                Cancel
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}

function Audit() {
  const session = useSession();
  const clients = useQuery({
    queryKey: CLIENTS_KEY,
    queryFn: () => api<{ data: OAuthClient[]; counts: ClientCounts }>('GET', '/admin/api/oauth/clients'),
  });
  const [tool, setTool] = useState('');
  const [outcome, setOutcome] = useState('');
  const [before, setBefore] = useState<number[]>([]);
  const [t] = useDebouncedValue(tool.trim(), 300);
  const cursor = before.at(-1);
  const params = new URLSearchParams({ limit: String(PAGE) });
  if (cursor !== undefined) params.set('before_id', String(cursor));
  if (t) params.set('tool', t);
  if (outcome) params.set('outcome', outcome);
  const audit = useQuery({
    queryKey: ['admin', 'mcp', 'audit', params.toString()],
    queryFn: () => api<{ data: AuditRow[] }>('GET', `/admin/api/mcp/audit?${params.toString()}`),
  });
  const clientName = (id: string | null) =>
    id === null ? 'local' : (clients.data?.data.find((c) => c.client_id === id)?.name ?? id);
  const userName = (id: number | null) =>
    id === null ? '—' : id === session.data?.id ? `${session.data.username} (#${id})` : `#${id}`;
  const filtered = Boolean(t || outcome);
  const rows = audit.data?.data ?? [];
  return (
    <Stack>
      <Group align="flex-end" wrap="wrap" gap="sm">
        <TextInput
          label="Tool (optional)"
          placeholder="get_funds"
          description="The exact tool name"
          value={tool}
          onChange={(e) => {
            setTool(e.currentTarget.value);
            setBefore([]);
          }}
          w={220}
        />
        <NativeSelect
          label="Outcome"
          description="ok, refused (403, 429) or error"
          data={[
            { value: '', label: 'Any' },
            { value: 'ok', label: 'ok' },
            { value: 'refused', label: 'refused' },
            { value: 'error', label: 'error' },
          ]}
          value={outcome}
          onChange={(e) => {
            setOutcome(e.currentTarget.value);
            setBefore([]);
          }}
          w={220}
        />
        <Button variant="default" onClick={() => void audit.refetch()} loading={audit.isFetching}>
          Refresh
        </Button>
      </Group>
      {audit.isPending && <Loading label="Loading the calls…" />}
      {audit.isError && <ErrorState error={audit.error} />}
      {audit.data && rows.length === 0 && (
        <Empty>
          {cursor !== undefined
            ? 'No older call.'
            : filtered
              ? 'No call matches these filters.'
              : 'No agent has called a tool yet.'}
        </Empty>
      )}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={960}>
          <Table striped highlightOnHover aria-label="Agent tool calls" verticalSpacing="xs" fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Transport</Table.Th>
                <Table.Th>Client</Table.Th>
                <Table.Th>User</Table.Th>
                <Table.Th>Tool</Table.Th>
                <Table.Th>Scope</Table.Th>
                <Table.Th>Outcome</Table.Th>
                <Table.Th>HTTP status</Table.Th>
                <Table.Th>Duration</Table.Th>
                <Table.Th>Address</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(r.ts)}</Table.Td>
                  <Table.Td>{r.transport}</Table.Td>
                  <Table.Td>{clientName(r.client_id)}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{userName(r.user_id)}</Table.Td>
                  <Table.Td ff="monospace">{r.tool}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{r.scope ?? '—'}</Table.Td>
                  <Table.Td>
                    <Badge color={OUTCOME_COLOR[r.outcome] ?? 'gray'} variant="light" size="sm">
                      {r.outcome}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{r.http_status}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{Math.round(r.duration_ms)} ms</Table.Td>
                  <Table.Td ff="monospace">{r.ip}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Group gap="sm">
        <Button variant="default" size="xs" disabled={before.length === 0} onClick={() => setBefore([])}>
          Newest
        </Button>
        <Button
          variant="default"
          size="xs"
          disabled={rows.length < PAGE}
          onClick={() => setBefore([...before, rows[rows.length - 1]!.id])}
        >
          Older
        </Button>
        <Text size="xs" c="dimmed">
          {PAGE} a page, newest first{cursor !== undefined ? `; calls before #${cursor}` : ''}.
        </Text>
      </Group>
    </Stack>
  );
}

export default function AgentsPage() {
  const settings = useQuery({
    queryKey: SETTINGS_KEY,
    queryFn: () => api<{ data: Settings }>('GET', '/admin/api/mcp/settings'),
  });
  return (
    <Container size="xl">
      <Title order={1} size="h2" mb="xs">
        Agents
      </Title>
      <Text c="dimmed" size="sm" mb="md">
        Remote AI agents reach the API through /mcp with OAuth tokens their users granted; every tool call is
        audited below.
      </Text>
      <Stack gap="lg">
        {settings.isPending && <Loading label="Loading the agent settings…" />}
        {settings.isError && <ErrorState error={settings.error} />}
        {settings.data && (
          <>
            <KillSwitch engaged={settings.data.data.kill_switch} />
            <Card withBorder>
              <Title order={2} size="h4" mb="sm">
                Settings
              </Title>
              <SettingsForm settings={settings.data.data} />
            </Card>
          </>
        )}
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Clients
          </Title>
          <Clients />
        </Card>
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Tool calls
          </Title>
          <Audit />
        </Card>
      </Stack>
    </Container>
  );
}
