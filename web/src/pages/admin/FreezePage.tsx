/**
 * `/admin/freeze`: the freeze quantities (largest quantity of one F&O order; larger orders are
 * split) — table, add, edit, delete, and NSE's `qtyfreeze` CSV upload with its import summary.
 * The server's messages show under the fields they name (docs/rules/web.md#field-messages).
 */
import {
  Alert,
  Button,
  FileInput,
  Group,
  Modal,
  NativeSelect,
  NumberInput,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { FNO_ORDER_EXCHANGES } from '../../../../src/domain/exchanges';
import { fieldError } from '../../api/client';
import { ConfirmDelete } from '../../components/ConfirmDelete';
import { DataTable, DataTableBody, type DataColumn } from '../../components/DataTable';
import { FormAlerts } from '../../components/FormAlerts';
import { QueryState } from '../../components/QueryState';
import { PageFrame, SectionCard } from '../../components/Section';
import { Empty, ErrorState } from '../../components/states';
import {
  useDeleteFreezeMutation,
  useFreezeQuantities,
  useSaveFreezeMutation,
  useUploadFreezeMutation,
  type FreezeEntry,
  type FreezeUpload,
} from '../../features/admin/api/calendar';
import { formatCount } from '../../format-number';

const EXCHANGES = [...FNO_ORDER_EXCHANGES];
const FIELDS = ['exchange', 'symbol', 'freeze_qty'];

/** Add (no `entry`) or edit one row. */
function EntryForm({ entry, onDone }: { entry?: FreezeEntry; onDone?: () => void }) {
  const [exchange, setExchange] = useState(entry?.exchange ?? 'NFO');
  const [symbol, setSymbol] = useState(entry?.symbol ?? '');
  const [qty, setQty] = useState<number | string>(entry?.freeze_qty ?? '');
  const save = useSaveFreezeMutation({
    onSuccess: () => {
      if (!entry) {
        setSymbol('');
        setQty('');
      }
    },
    onRefreshed: () => onDone?.(),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({
      ...(entry ? { id: entry.id } : {}),
      body: { exchange, symbol: symbol.trim(), freeze_qty: typeof qty === 'number' ? qty : Number(qty) },
    });
  };
  const err = save.error;
  return (
    <form onSubmit={submit} noValidate aria-label={entry ? `Edit ${entry.symbol}` : 'Add a freeze quantity'}>
      <Stack>
        <FormAlerts
          error={err}
          fields={FIELDS}
          title="Not saved"
          {...(save.isSuccess && !entry ? { success: save.data.message } : {})}
        />
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

const SKIPPED_COLUMNS: DataColumn<FreezeUpload['data']['skipped_rows'][number]>[] = [
  { key: 'line', label: 'Line', cell: (r) => r.line },
  { key: 'why', label: 'Why', cell: (r) => r.reason },
];

function UploadForm() {
  const [file, setFile] = useState<File | null>(null);
  const [exchange, setExchange] = useState('NFO');
  const upload = useUploadFreezeMutation();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    upload.mutate({ exchange, file });
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
              <DataTableBody
                mt="xs"
                label="Skipped lines"
                rows={result.skipped_rows}
                rowKey={(r) => r.line}
                columns={SKIPPED_COLUMNS}
              />
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
  const [filter, setFilter] = useState('');
  const [editing, setEditing] = useState<FreezeEntry | undefined>();
  const [deleting, setDeleting] = useState<FreezeEntry | undefined>();
  const remove = useDeleteFreezeMutation({ onSuccess: () => setDeleting(undefined) });
  const q = filter.trim().toUpperCase();
  const shown = q ? rows.filter((r) => r.symbol.includes(q) || r.exchange.includes(q)) : rows;
  const columns: DataColumn<FreezeEntry>[] = [
    { key: 'exchange', label: 'Exchange', cell: (r) => r.exchange },
    { key: 'symbol', label: 'Symbol', cell: (r) => r.symbol, td: { ff: 'monospace' } },
    { key: 'qty', label: 'Freeze quantity', cell: (r) => formatCount(r.freeze_qty), numeric: true },
    {
      key: 'actions',
      cell: (r) => (
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
      ),
    },
  ];
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
        <DataTable
          label="Freeze quantities"
          minWidth={520}
          maxHeight={480}
          striped
          highlightOnHover
          stickyHeader
          rows={shown}
          rowKey={(r) => r.id}
          columns={columns}
        />
      )}
      <Modal
        opened={editing !== undefined}
        onClose={() => setEditing(undefined)}
        title="Edit freeze quantity"
      >
        {editing && <EntryForm key={editing.id} entry={editing} onDone={() => setEditing(undefined)} />}
      </Modal>
      <ConfirmDelete
        row={deleting}
        title="Delete freeze quantity"
        remove={remove}
        onClose={() => setDeleting(undefined)}
      >
        {(d) => (
          <>
            Delete the freeze quantity of {d.symbol} on {d.exchange}? Its orders are then not split.
          </>
        )}
      </ConfirmDelete>
    </Stack>
  );
}

export default function FreezePage() {
  const list = useFreezeQuantities();
  return (
    <PageFrame title="Freeze quantities">
      <SectionCard title="Upload NSE’s CSV">
        <UploadForm />
      </SectionCard>
      <SectionCard title="Add a freeze quantity">
        <EntryForm />
      </SectionCard>
      <SectionCard title="Freeze quantities">
        <QueryState query={list}>{(data) => <FreezeTable rows={data.data} />}</QueryState>
      </SectionCard>
    </PageFrame>
  );
}
