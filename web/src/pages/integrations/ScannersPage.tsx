/**
 * `/scanners` (and OpenAlgo's `/chartink`): the user's scanner alerts (docs/rules/scanner.md) —
 * list, create, edit, delete, rotate the webhook id (its URL shown once, with a copy button, at
 * creation and rotation: #scanner-webhook-id) and each scanner's deliveries with every symbol's
 * outcome (#scanner-audit). The administrator also allows or forbids live orders per scanner.
 */
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Card,
  Container,
  Group,
  Modal,
  NativeSelect,
  NumberInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/ActionIcon.css';
import '@mantine/core/styles/SegmentedControl.css';
import '@mantine/core/styles/FloatingIndicator.css';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState, type FormEvent } from 'react';
import { useSession } from '../../api/auth';
import { api, fieldError } from '../../api/client';
import { Empty, ErrorState, Loading } from '../../components/states';
import {
  allShown,
  Confirm,
  CopyLine,
  OutcomeBadge,
  prefixError,
  ResultBadge,
  ShownOnce,
  usePhone,
  when,
} from './shared';

interface Scanner {
  id: number;
  name: string;
  action: string;
  exchange: string;
  product: string;
  quantity: number | null;
  capital: number | null;
  overrides: Record<string, number>;
  window_start: string;
  window_end: string;
  squareoff_time: string | null;
  max_symbols: number;
  mode: 'analyze' | 'live';
  enabled: boolean;
  live_enabled: boolean;
  created_at: number;
  updated_at: number;
}
interface SymbolResult {
  symbol: string;
  status: 'success' | 'error' | 'skipped';
  orderid?: string;
  quantity?: number;
  message?: string;
}
interface Delivery {
  id: number;
  ts: number;
  ip: string;
  result: string;
  http_status: number;
  action: string | null;
  message: string;
  results: SymbolResult[] | null;
  duration_ms: number;
}
interface Issued {
  webhook_id: string;
  webhook_url: string;
}

const ACTIONS = ['BUY', 'SELL', 'SHORT', 'COVER', 'FROM_SCAN_NAME'];
const ACTION_LABELS: Record<string, string> = {
  BUY: 'BUY (enter long)',
  SELL: 'SELL (exit long)',
  SHORT: 'SHORT (enter short)',
  COVER: 'COVER (exit short)',
  FROM_SCAN_NAME: 'From the scan name',
};
const KEY = ['scanners'] as const;
const BASE = '/scanner/api/scanners';
const FIELDS = [
  'name',
  'action',
  'exchange',
  'product',
  'quantity',
  'capital',
  'overrides',
  'window_start',
  'window_end',
  'squareoff_time',
  'max_symbols',
  'mode',
  'enabled',
];

const sizing = (s: Scanner) =>
  s.quantity !== null
    ? `${s.quantity.toLocaleString('en-IN')} shares`
    : `₹${(s.capital ?? 0).toLocaleString('en-IN')} per symbol`;

interface OverrideRow {
  key: number;
  symbol: string;
  qty: number | string;
}

/** Create (no `scanner`) or edit a scanner; the server's messages under the fields they name. */
function ScannerForm({
  scanner,
  onSaved,
  onCancel,
}: {
  scanner?: Scanner;
  onSaved: (issued?: Issued & { name: string }) => void;
  onCancel: () => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(scanner?.name ?? '');
  const [action, setAction] = useState(scanner?.action ?? 'BUY');
  const [exchange, setExchange] = useState(scanner?.exchange ?? 'NSE');
  const [product, setProduct] = useState(scanner?.product ?? 'MIS');
  const [by, setBy] = useState<'quantity' | 'capital'>(scanner?.capital != null ? 'capital' : 'quantity');
  const [quantity, setQuantity] = useState<number | string>(scanner?.quantity ?? '');
  const [capital, setCapital] = useState<number | string>(scanner?.capital ?? '');
  const [overrides, setOverrides] = useState<OverrideRow[]>(
    Object.entries(scanner?.overrides ?? {}).map(([symbol, qty], key) => ({ key, symbol, qty })),
  );
  const [nextKey, setNextKey] = useState(overrides.length);
  const [windowStart, setWindowStart] = useState(scanner?.window_start ?? '09:15');
  const [windowEnd, setWindowEnd] = useState(scanner?.window_end ?? '15:15');
  const [squareoff, setSquareoff] = useState(scanner?.squareoff_time ?? '15:15');
  const [maxSymbols, setMaxSymbols] = useState<number | string>(scanner?.max_symbols ?? 10);
  const [mode, setMode] = useState<string>(scanner?.mode ?? 'analyze');
  const [enabled, setEnabled] = useState(scanner?.enabled ?? true);

  const num = (v: number | string) => (v === '' ? null : Number(v));
  const save = useMutation({
    mutationFn: async () => {
      const body = {
        name: name.trim(),
        action,
        exchange,
        product,
        quantity: by === 'quantity' ? num(quantity) : null,
        capital: by === 'capital' ? num(capital) : null,
        overrides: Object.fromEntries(
          overrides
            .filter((o) => o.symbol.trim() !== '' || o.qty !== '')
            .map((o) => [o.symbol.trim().toUpperCase(), Number(o.qty)]),
        ),
        window_start: windowStart.trim(),
        window_end: windowEnd.trim(),
        squareoff_time: product === 'MIS' && squareoff.trim() !== '' ? squareoff.trim() : null,
        max_symbols: Number(maxSymbols),
        mode,
        enabled,
      };
      if (scanner) {
        await api<{ data: Scanner }>('PUT', `${BASE}/${scanner.id}`, body);
        return undefined;
      }
      const made = await api<{ data: Scanner } & Issued>('POST', '/scanner/api/scanners', body);
      return { name: made.data.name, webhook_id: made.webhook_id, webhook_url: made.webhook_url };
    },
    onSuccess: async (issued) => {
      await queryClient.invalidateQueries({ queryKey: KEY });
      onSaved(issued);
    },
  });
  const err = save.error;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const setRow = (key: number, patch: Partial<OverrideRow>) =>
    setOverrides((rows) => rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  return (
    <form onSubmit={submit} noValidate aria-label={scanner ? `Edit scanner ${scanner.name}` : 'New scanner'}>
      <Stack>
        {err && !allShown(err, FIELDS) && <ErrorState error={err} title="Not saved" />}
        <TextInput
          label="Name"
          required
          withAsterisk={false}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fieldError(err, 'name')}
          maxLength={100}
        />
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <NativeSelect
            label="Action"
            data={ACTIONS.map((a) => ({ value: a, label: ACTION_LABELS[a]! }))}
            value={action}
            onChange={(e) => setAction(e.currentTarget.value)}
            error={fieldError(err, 'action')}
          />
          <NativeSelect
            label="Exchange"
            data={['NSE', 'BSE']}
            value={exchange}
            onChange={(e) => setExchange(e.currentTarget.value)}
            error={fieldError(err, 'exchange')}
          />
          <NativeSelect
            label="Product"
            data={[
              { value: 'MIS', label: 'MIS (intraday)' },
              { value: 'CNC', label: 'CNC (delivery)' },
            ]}
            value={product}
            onChange={(e) => setProduct(e.currentTarget.value)}
            error={fieldError(err, 'product')}
          />
        </SimpleGrid>
        <Stack gap={4}>
          <Text size="sm" fw={500} id="sizing-label">
            Sizing
          </Text>
          <SegmentedControl
            aria-labelledby="sizing-label"
            value={by}
            onChange={(v) => setBy(v as 'quantity' | 'capital')}
            data={[
              { value: 'quantity', label: 'Shares per symbol' },
              { value: 'capital', label: 'Rupees per symbol' },
            ]}
          />
          {by === 'quantity' ? (
            <NumberInput
              label="Quantity (shares per symbol)"
              allowDecimal={false}
              clampBehavior="none"
              value={quantity}
              onChange={setQuantity}
              error={fieldError(err, 'quantity')}
            />
          ) : (
            <NumberInput
              label="Capital (rupees per symbol)"
              description="Each symbol gets floor(capital ÷ trigger price) shares"
              clampBehavior="none"
              thousandSeparator=","
              value={capital}
              onChange={setCapital}
              error={fieldError(err, 'capital') ?? fieldError(err, 'quantity')}
            />
          )}
        </Stack>
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Overrides (optional)
          </Text>
          <Text size="xs" c="dimmed">
            A fixed number of shares for some symbols, replacing the sizing above.
          </Text>
          {overrides.length > 0 && (
            <Table aria-label="Overrides" withRowBorders={false}>
              <Table.Tbody>
                {overrides.map((o, i) => (
                  <Table.Tr key={o.key}>
                    <Table.Td pl={0}>
                      <TextInput
                        label={`Override ${i + 1} symbol`}
                        placeholder="SBIN"
                        value={o.symbol}
                        onChange={(e) => setRow(o.key, { symbol: e.currentTarget.value })}
                      />
                    </Table.Td>
                    <Table.Td>
                      <NumberInput
                        label={`Override ${i + 1} quantity`}
                        allowDecimal={false}
                        clampBehavior="none"
                        value={o.qty}
                        onChange={(v) => setRow(o.key, { qty: v })}
                      />
                    </Table.Td>
                    <Table.Td pr={0} style={{ verticalAlign: 'bottom' }}>
                      <ActionIcon
                        variant="light"
                        color="red"
                        size="lg"
                        aria-label={`Remove override ${i + 1}`}
                        onClick={() => setOverrides((rows) => rows.filter((r) => r.key !== o.key))}
                      >
                        ×
                      </ActionIcon>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          {prefixError(err, 'overrides') && (
            <Text size="sm" c="red" role="alert">
              {prefixError(err, 'overrides')}
            </Text>
          )}
          <Group>
            <Button
              size="xs"
              variant="light"
              onClick={() => {
                setOverrides((rows) => [...rows, { key: nextKey, symbol: '', qty: '' }]);
                setNextKey((k) => k + 1);
              }}
            >
              Add an override
            </Button>
          </Group>
        </Stack>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <TextInput
            label="Window start (IST)"
            placeholder="HH:MM"
            value={windowStart}
            onChange={(e) => setWindowStart(e.currentTarget.value)}
            error={fieldError(err, 'window_start')}
          />
          <TextInput
            label="Window end (IST)"
            placeholder="HH:MM"
            value={windowEnd}
            onChange={(e) => setWindowEnd(e.currentTarget.value)}
            error={fieldError(err, 'window_end')}
          />
          {product === 'MIS' && (
            <TextInput
              label="Square-off (IST)"
              placeholder="HH:MM"
              value={squareoff}
              onChange={(e) => setSquareoff(e.currentTarget.value)}
              error={fieldError(err, 'squareoff_time')}
            />
          )}
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NumberInput
            label="Most symbols per alert"
            allowDecimal={false}
            clampBehavior="none"
            value={maxSymbols}
            onChange={setMaxSymbols}
            error={fieldError(err, 'max_symbols')}
          />
          <NativeSelect
            label="Mode"
            data={[
              { value: 'analyze', label: 'Analyze (sandbox)' },
              { value: 'live', label: 'Live (broker)' },
            ]}
            value={mode}
            onChange={(e) => setMode(e.currentTarget.value)}
            error={fieldError(err, 'mode')}
            description={
              mode === 'live' ? 'Live alerts are refused until an administrator allows them.' : undefined
            }
          />
        </SimpleGrid>
        <Switch
          label="Enabled"
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
          error={fieldError(err, 'enabled')}
        />
        <Group>
          <Button type="submit" loading={save.isPending}>
            {scanner ? 'Save changes' : 'Create scanner'}
          </Button>
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function LiveSwitch({ scanner }: { scanner: Scanner }) {
  const queryClient = useQueryClient();
  const set = useMutation({
    mutationFn: (enabled: boolean) => api('POST', `${BASE}/${scanner.id}/live`, { enabled }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
  return (
    <Stack gap={2}>
      <Switch
        aria-label={`Allow live orders for ${scanner.name}`}
        checked={scanner.live_enabled}
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

function Deliveries({ scanner, onClose }: { scanner: Scanner; onClose: () => void }) {
  const list = useQuery({
    queryKey: [...KEY, scanner.id, 'deliveries'],
    queryFn: () => api<{ data: Delivery[] }>('GET', `${BASE}/${scanner.id}/deliveries?limit=100`),
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
          Deliveries of {scanner.name}
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
      {list.isPending && <Loading label="Loading deliveries…" />}
      {list.isError && <ErrorState error={list.error} />}
      {list.data && list.data.data.length === 0 && (
        <Empty>No alert has reached this scanner yet. Paste its webhook URL into Chartink’s alert.</Empty>
      )}
      {list.data && list.data.data.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={`Deliveries of ${scanner.name}`} striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time (IST)</Table.Th>
                <Table.Th>Result</Table.Th>
                <Table.Th>HTTP</Table.Th>
                <Table.Th>Action</Table.Th>
                <Table.Th>Message</Table.Th>
                <Table.Th>Symbols</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.data.map((d) => (
                <Fragment key={d.id}>
                  <Table.Tr data-testid="delivery-row">
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(d.ts)}</Table.Td>
                    <Table.Td>
                      <ResultBadge result={d.result} />
                    </Table.Td>
                    <Table.Td>{d.http_status}</Table.Td>
                    <Table.Td>{d.action ?? '—'}</Table.Td>
                    <Table.Td>{d.message}</Table.Td>
                    <Table.Td>
                      {d.results && d.results.length > 0 ? (
                        <Button
                          size="xs"
                          variant="subtle"
                          aria-expanded={open.has(d.id)}
                          onClick={() => toggle(d.id)}
                        >
                          {open.has(d.id) ? 'Hide' : 'Show'} {d.results.length}
                        </Button>
                      ) : (
                        '—'
                      )}
                    </Table.Td>
                  </Table.Tr>
                  {open.has(d.id) && d.results && (
                    <Table.Tr>
                      <Table.Td colSpan={6}>
                        <Table aria-label={`Symbols of the delivery at ${when(d.ts)}`}>
                          <Table.Thead>
                            <Table.Tr>
                              <Table.Th>Symbol</Table.Th>
                              <Table.Th>Outcome</Table.Th>
                              <Table.Th>Quantity</Table.Th>
                              <Table.Th>Order id or message</Table.Th>
                            </Table.Tr>
                          </Table.Thead>
                          <Table.Tbody>
                            {d.results.map((r) => (
                              <Table.Tr key={r.symbol}>
                                <Table.Td ff="monospace">{r.symbol}</Table.Td>
                                <Table.Td>
                                  <OutcomeBadge status={r.status} />
                                </Table.Td>
                                <Table.Td>{r.quantity ?? '—'}</Table.Td>
                                <Table.Td>{r.orderid ?? r.message ?? '—'}</Table.Td>
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

export default function ScannersPage() {
  const queryClient = useQueryClient();
  const user = useSession().data;
  const phone = usePhone();
  const list = useQuery({
    queryKey: KEY,
    queryFn: () => api<{ data: Scanner[] }>('GET', '/scanner/api/scanners'),
  });
  // The webhook URL just issued: in this page's memory only, gone once hidden or the page is left.
  const [issued, setIssued] = useState<(Issued & { name: string }) | undefined>();
  // The form's target stays while its dialog closes, so the dialog does not empty mid-transition.
  const [formOpen, setFormOpen] = useState(false);
  const [editing, setEditing] = useState<Scanner | 'new'>('new');
  const openForm = (target: Scanner | 'new') => {
    setEditing(target);
    setFormOpen(true);
  };
  const [deleting, setDeleting] = useState<Scanner | undefined>();
  const [rotating, setRotating] = useState<Scanner | undefined>();
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
    mutationFn: (s: Scanner) => api<Issued>('POST', `${BASE}/${s.id}/rotate`),
    onSuccess: (r, s) => {
      setRotating(undefined);
      setIssued({ name: s.name, webhook_id: r.webhook_id, webhook_url: r.webhook_url });
    },
  });
  const rows = list.data?.data ?? [];
  const shownScanner = rows.find((s) => s.id === viewing);

  const modeBadge = (s: Scanner) => (
    <Badge color={s.mode === 'live' ? 'red' : 'orange'} variant="light" style={{ minWidth: 'max-content' }}>
      {s.mode === 'live' ? 'Live' : 'Analyze'}
    </Badge>
  );
  const sizingCell = (s: Scanner) => (
    <>
      {sizing(s)}
      {Object.keys(s.overrides).length > 0 && (
        <Text size="xs" c="dimmed" component="span" display="block">
          {Object.keys(s.overrides).length} override{Object.keys(s.overrides).length === 1 ? '' : 's'}
        </Text>
      )}
    </>
  );
  const windowCell = (s: Scanner) => (
    <>
      {s.window_start}–{s.window_end}
      {s.squareoff_time && (
        <Text size="xs" c="dimmed" component="span" display="block">
          square-off {s.squareoff_time}
        </Text>
      )}
    </>
  );
  const liveCell = (s: Scanner) =>
    user?.is_admin ? <LiveSwitch scanner={s} /> : s.live_enabled ? 'Yes' : 'No';
  const actions = (s: Scanner) => (
    <Group gap={4} wrap={phone ? 'wrap' : 'nowrap'} justify={phone ? 'flex-start' : 'flex-end'}>
      <Button
        size="xs"
        variant="light"
        onClick={() => setViewing(s.id)}
        aria-label={`Deliveries of ${s.name}`}
      >
        Deliveries
      </Button>
      <Button size="xs" variant="light" onClick={() => openForm(s)} aria-label={`Edit ${s.name}`}>
        Edit
      </Button>
      <Button
        size="xs"
        variant="light"
        color="orange"
        onClick={() => setRotating(s)}
        aria-label={`Rotate the webhook of ${s.name}`}
      >
        Rotate
      </Button>
      <Button
        size="xs"
        variant="light"
        color="red"
        onClick={() => setDeleting(s)}
        aria-label={`Delete ${s.name}`}
      >
        Delete
      </Button>
    </Group>
  );

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
