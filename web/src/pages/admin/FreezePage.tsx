/**
 * `/admin/freeze`: the freeze quantities (largest quantity of one F&O order; larger orders are
 * split) — table, add, edit, delete, and NSE's `qtyfreeze` CSV upload with its import summary.
 * The server's messages show under the fields they name (docs/rules/web.md#field-messages).
 */
import {
  Alert,
  Button,
  Card,
  Container,
  FileInput,
  Group,
  Modal,
  NativeSelect,
  NumberInput,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { FNO_ORDER_EXCHANGES } from '../../../../src/domain/exchanges';
import { api, fieldError, onlyFieldErrors } from '../../api/client';
import { formatCount } from '../../format-number';
import { Empty, ErrorState, Loading } from '../../components/states';

interface FreezeEntry {
  id: number;
  exchange: string;
  symbol: string;
  freeze_qty: number;
}
interface UploadResult {
  exchange: string;
  loaded: number;
  skipped: number;
  skipped_rows: Array<{ line: number; reason: string }>;
}

const EXCHANGES = [...FNO_ORDER_EXCHANGES];
const KEY = ['admin', 'freeze'] as const;
const FIELDS = ['exchange', 'symbol', 'freeze_qty'];

function useInvalidate() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ['admin'] });
}

/** Add (no `entry`) or edit one row. */
function EntryForm({ entry, onDone }: { entry?: FreezeEntry; onDone?: () => void }) {
  const invalidate = useInvalidate();
  const [exchange, setExchange] = useState(entry?.exchange ?? 'NFO');
  const [symbol, setSymbol] = useState(entry?.symbol ?? '');
  const [qty, setQty] = useState<number | string>(entry?.freeze_qty ?? '');
  const save = useMutation({
    mutationFn: () => {
      const body = {
        exchange,
        symbol: symbol.trim(),
        freeze_qty: typeof qty === 'number' ? qty : Number(qty),
      };
      return entry
        ? api<{ message: string }>('PUT', `/admin/api/freeze/${entry.id}`, body)
        : api<{ message: string }>('POST', '/admin/api/freeze', body);
    },
    onSuccess: async () => {
      if (!entry) {
        setSymbol('');
        setQty('');
      }
      await invalidate();
      onDone?.();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const err = save.error;
  return (
    <form onSubmit={submit} noValidate aria-label={entry ? `Edit ${entry.symbol}` : 'Add a freeze quantity'}>
      <Stack>
        {err && !onlyFieldErrors(err, FIELDS) && <ErrorState error={err} title="Not saved" />}
        {save.isSuccess && !entry && (
          <Alert color="green" role="status">
            {save.data.message}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <NativeSelect
            label="Exchange"
            data={EXCHANGES}
            value={exchange}
            onChange={(e) => setExchange(e.currentTarget.value)}
            error={fieldError(err, 'exchange')}
            miw={120}
          />
          <TextInput
            label="Symbol"
            required
            withAsterisk={false}
            placeholder="NIFTY"
            value={symbol}
            onChange={(e) => setSymbol(e.currentTarget.value)}
            error={fieldError(err, 'symbol')}
            miw={160}
          />
          <NumberInput
            label="Freeze quantity"
            required
            withAsterisk={false}
            allowDecimal={false}
            // The server's range check names the field (docs/rules/web.md#field-messages): no clamping here.
            clampBehavior="none"
            value={qty}
            onChange={setQty}
            error={fieldError(err, 'freeze_qty')}
            miw={160}
          />
        </SimpleGrid>
        <Group>
          <Button type="submit" loading={save.isPending}>
            {entry ? 'Save changes' : 'Add'}
          </Button>
          {entry && (
            <Button variant="default" onClick={onDone}>
              Cancel
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}

function UploadForm() {
  const invalidate = useInvalidate();
  const [file, setFile] = useState<File | null>(null);
  const [exchange, setExchange] = useState('NFO');
  const upload = useMutation({
    mutationFn: () => {
      const form = new FormData();
      form.append('exchange', exchange);
      if (file) form.append('file', file, file.name);
      return api<{ message: string; data: UploadResult }>('POST', '/admin/api/freeze/upload', form);
    },
    onSuccess: () => invalidate(),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    upload.mutate();
  };
  const result = upload.data?.data;
  return (
    <form onSubmit={submit} noValidate aria-label="Upload a freeze CSV">
      <Stack>
        <Text size="sm" c="dimmed">
          NSE’s <code>qtyfreeze</code> file. It replaces the chosen exchange’s whole list in one step; a file
          with no usable row changes nothing.
        </Text>
        {upload.error && <ErrorState error={upload.error} title="Not imported" />}
        {result && (
          <Alert color={result.skipped > 0 ? 'yellow' : 'green'} role="status" title="Import summary">
            <Text data-testid="freeze-import-summary">{upload.data?.message}</Text>
            {result.skipped_rows.length > 0 && (
              <Table mt="xs" aria-label="Skipped lines">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Line</Table.Th>
                    <Table.Th>Why</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {result.skipped_rows.map((r) => (
                    <Table.Tr key={r.line}>
                      <Table.Td>{r.line}</Table.Td>
                      <Table.Td>{r.reason}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </Alert>
        )}
        <Group align="flex-end" wrap="wrap">
          <FileInput
            label="CSV file"
            accept=".csv,text/csv"
            placeholder="Choose a file"
            value={file}
            onChange={setFile}
            clearable
            miw={240}
          />
          <NativeSelect
            label="Exchange of the file"
            data={EXCHANGES}
            value={exchange}
            onChange={(e) => setExchange(e.currentTarget.value)}
          />
          <Button type="submit" loading={upload.isPending} disabled={!file}>
            Upload
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function FreezeTable({ rows }: { rows: FreezeEntry[] }) {
  const invalidate = useInvalidate();
  const [filter, setFilter] = useState('');
  const [editing, setEditing] = useState<FreezeEntry | undefined>();
  const [deleting, setDeleting] = useState<FreezeEntry | undefined>();
  const remove = useMutation({
    mutationFn: (id: number) => api('DELETE', `/admin/api/freeze/${id}`),
    onSuccess: async () => {
      setDeleting(undefined);
      await invalidate();
    },
  });
  const q = filter.trim().toUpperCase();
  const shown = q ? rows.filter((r) => r.symbol.includes(q) || r.exchange.includes(q)) : rows;
  return (
    <Stack>
      <TextInput
        label="Filter"
        placeholder="Symbol or exchange"
        value={filter}
        onChange={(e) => setFilter(e.currentTarget.value)}
        maw={320}
      />
      <Text size="sm" c="dimmed" data-testid="freeze-count">
        {formatCount(rows.length)} freeze quantities{q ? `, ${formatCount(shown.length)} shown` : ''}
      </Text>
      {remove.error && <ErrorState error={remove.error} title="Not deleted" />}
      {shown.length === 0 ? (
        <Empty>
          {rows.length === 0 ? 'No freeze quantity yet: add one or upload NSE’s file.' : 'Nothing matches.'}
        </Empty>
      ) : (
        <Table.ScrollContainer minWidth={520} maxHeight={480}>
          <Table striped highlightOnHover stickyHeader aria-label="Freeze quantities">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Exchange</Table.Th>
                <Table.Th>Symbol</Table.Th>
                <Table.Th ta="right">Freeze quantity</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>{r.exchange}</Table.Td>
                  <Table.Td ff="monospace">{r.symbol}</Table.Td>
                  <Table.Td ta="right">{formatCount(r.freeze_qty)}</Table.Td>
                  <Table.Td>
                    <Group gap="xs" justify="flex-end" wrap="nowrap">
                      <Button
                        size="xs"
                        variant="light"
                        onClick={() => setEditing(r)}
                        aria-label={`Edit ${r.exchange} ${r.symbol}`}
                      >
                        Edit
                      </Button>
                      <Button
                        size="xs"
                        variant="light"
                        color="red"
                        onClick={() => setDeleting(r)}
                        aria-label={`Delete ${r.exchange} ${r.symbol}`}
                      >
                        Delete
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal
        opened={editing !== undefined}
        onClose={() => setEditing(undefined)}
        title="Edit freeze quantity"
      >
        {editing && <EntryForm key={editing.id} entry={editing} onDone={() => setEditing(undefined)} />}
      </Modal>
      <Modal
        opened={deleting !== undefined}
        onClose={() => setDeleting(undefined)}
        title="Delete freeze quantity"
      >
        {deleting && (
          <Stack>
            <Text>
              Delete the freeze quantity of {deleting.symbol} on {deleting.exchange}? Its orders are then not
              split.
            </Text>
            <Group>
              <Button color="red" loading={remove.isPending} onClick={() => remove.mutate(deleting.id)}>
                Delete
              </Button>
              <Button variant="default" onClick={() => setDeleting(undefined)}>
                Cancel
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}

export default function FreezePage() {
  const list = useQuery({
    queryKey: KEY,
    queryFn: () => api<{ data: FreezeEntry[] }>('GET', '/admin/api/freeze'),
  });
  return (
    <Container size="lg">
      <Title order={1} size="h2" mb="md">
        Freeze quantities
      </Title>
      <Stack gap="lg">
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Upload NSE’s CSV
          </Title>
          <UploadForm />
        </Card>
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Add a freeze quantity
          </Title>
          <EntryForm />
        </Card>
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Freeze quantities
          </Title>
          {list.isPending && <Loading />}
          {list.isError && <ErrorState error={list.error} />}
          {list.data && <FreezeTable rows={list.data.data} />}
        </Card>
      </Stack>
    </Container>
  );
}
