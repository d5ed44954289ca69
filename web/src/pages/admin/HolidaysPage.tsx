/**
 * `/admin/holidays`: market holidays by year — add one (closed exchanges, its type, special
 * sessions with their `HH:MM` IST times) and delete. The server checks every value and names the
 * field; its messages show under that field (docs/rules/web.md#field-messages).
 */
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  Checkbox,
  Group,
  NativeSelect,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/ActionIcon.css';
import { useState, type FormEvent } from 'react';
import { HOLIDAY_EXCHANGES } from '../../../../src/domain/exchanges';
import { fieldError } from '../../api/client';
import { ConfirmDelete } from '../../components/ConfirmDelete';
import { DataTable, type DataColumn } from '../../components/DataTable';
import { FormAlerts } from '../../components/FormAlerts';
import { QueryState } from '../../components/QueryState';
import { PageFrame, SectionCard } from '../../components/Section';
import { Empty, ErrorState } from '../../components/states';
import {
  useAddHolidayMutation,
  useDeleteHolidayMutation,
  useHolidays,
  type Holiday,
  type HolidaySession as Session,
} from '../../features/admin/api/calendar';

/** The holiday types the server takes (`HOLIDAY_TYPES` of holidays.service.ts), as a person reads them. */
const TYPES = [
  { value: 'TRADING_HOLIDAY', label: 'Trading holiday' },
  { value: 'SETTLEMENT_HOLIDAY', label: 'Settlement holiday' },
  { value: 'SPECIAL_SESSION', label: 'Special session' },
];
const FIELDS = ['holiday_date', 'description', 'holiday_type', 'exchanges', 'open_exchanges'];
const EXCHANGES: string[] = [...HOLIDAY_EXCHANGES];

/** Messages for a field and its sub-fields (`open_exchanges.start_time`). */
const under = (err: unknown, field: string) =>
  [fieldError(err, field), fieldError(err, `${field}.start_time`), fieldError(err, `${field}.end_time`)]
    .filter(Boolean)
    .join(' ') || undefined;

function AddHoliday() {
  const [date, setDate] = useState('');
  const [description, setDescription] = useState('');
  const [type, setType] = useState('TRADING_HOLIDAY');
  const [closed, setClosed] = useState<string[]>([]);
  const [sessions, setSessions] = useState<Session[]>([]);
  const add = useAddHolidayMutation({
    onSuccess: () => {
      setDate('');
      setDescription('');
      setClosed([]);
      setSessions([]);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({
      holiday_date: date,
      description: description.trim(),
      holiday_type: type,
      exchanges: closed,
      open_exchanges: sessions,
    });
  };
  const err = add.error;
  const fieldsErr = FIELDS.concat(['open_exchanges.start_time', 'open_exchanges.end_time']);
  const setSession = (i: number, patch: Partial<Session>) =>
    setSessions(sessions.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  return (
    <form onSubmit={submit} noValidate aria-label="Add a holiday">
      <Stack>
        <FormAlerts
          error={err}
          fields={fieldsErr}
          title="Not added"
          {...(add.isSuccess ? { success: add.data.message } : {})}
        />
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <TextInput
            type="date"
            label="Date"
            required
            withAsterisk={false}
            value={date}
            onChange={(e) => setDate(e.currentTarget.value)}
            error={fieldError(err, 'holiday_date')}
            miw={160}
          />
          <TextInput
            label="Description"
            required
            withAsterisk={false}
            placeholder="Diwali Laxmi Pujan"
            maxLength={150}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            error={fieldError(err, 'description')}
            miw={220}
          />
          <NativeSelect
            label="Type"
            data={TYPES}
            value={type}
            onChange={(e) => setType(e.currentTarget.value)}
            error={fieldError(err, 'holiday_type')}
            miw={160}
          />
        </SimpleGrid>
        <Checkbox.Group
          label="Closed exchanges"
          value={closed}
          onChange={setClosed}
          error={fieldError(err, 'exchanges')}
        >
          <Group mt={4} gap="md">
            {EXCHANGES.map((x) => (
              <Checkbox key={x} value={x} label={x} />
            ))}
          </Group>
        </Checkbox.Group>
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Special sessions (optional)
          </Text>
          <Text size="xs" c="dimmed">
            Exchanges that trade that day for a while (a Muhurat session), times in IST.
          </Text>
          {sessions.map((s, i) => (
            <Group key={i} align="flex-end" wrap="wrap" gap="sm">
              <NativeSelect
                label={`Session ${i + 1} exchange`}
                data={EXCHANGES}
                value={s.exchange}
                onChange={(e) => setSession(i, { exchange: e.currentTarget.value })}
              />
              <TextInput
                label={`Session ${i + 1} start (HH:MM)`}
                placeholder="18:00"
                value={s.start_time}
                onChange={(e) => setSession(i, { start_time: e.currentTarget.value })}
                w={150}
              />
              <TextInput
                label={`Session ${i + 1} end (HH:MM)`}
                placeholder="19:00"
                value={s.end_time}
                onChange={(e) => setSession(i, { end_time: e.currentTarget.value })}
                w={150}
              />
              <ActionIcon
                variant="default"
                size="lg"
                mb={2}
                aria-label={`Remove session ${i + 1}`}
                onClick={() => setSessions(sessions.filter((_, j) => j !== i))}
              >
                ×
              </ActionIcon>
            </Group>
          ))}
          {under(err, 'open_exchanges') && (
            <Text size="sm" c="red" role="alert">
              {under(err, 'open_exchanges')}
            </Text>
          )}
          <Group>
            <Button
              variant="light"
              size="xs"
              onClick={() => setSessions([...sessions, { exchange: 'NSE', start_time: '', end_time: '' }])}
            >
              Add a special session
            </Button>
          </Group>
        </Stack>
        <Group>
          <Button type="submit" loading={add.isPending}>
            Add holiday
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

const typeLabel = (type: string) => TYPES.find((t) => t.value === type)?.label ?? type;

function HolidayTable({ rows, year }: { rows: Holiday[]; year: number }) {
  const [deleting, setDeleting] = useState<Holiday | undefined>();
  const remove = useDeleteHolidayMutation({ onSuccess: () => setDeleting(undefined) });
  if (rows.length === 0) return <Empty>No holiday in {year}.</Empty>;
  const nowrap = { style: { whiteSpace: 'nowrap' as const } };
  const columns: DataColumn<Holiday>[] = [
    { key: 'date', label: 'Date', cell: (h) => h.holiday_date, td: { ff: 'monospace', ...nowrap } },
    { key: 'description', label: 'Description', cell: (h) => h.description },
    { key: 'type', label: 'Type', cell: (h) => typeLabel(h.holiday_type), td: nowrap },
    {
      key: 'closed',
      label: 'Closed',
      cell: (h) => (
        <Group gap={4}>
          {h.closed_exchanges.map((x) => (
            <Badge key={x} variant="light" color="gray" size="sm">
              {x}
            </Badge>
          ))}
        </Group>
      ),
    },
    {
      key: 'sessions',
      label: 'Special sessions',
      cell: (h) =>
        h.open_exchanges.map((o) => `${o.exchange} ${o.start_time}–${o.end_time}`).join(', ') || '—',
    },
    {
      key: 'actions',
      cell: (h) => (
        <Button
          size="xs"
          variant="light"
          color="red"
          onClick={() => setDeleting(h)}
          aria-label={`Delete the holiday of ${h.holiday_date}`}
        >
          Delete
        </Button>
      ),
    },
  ];
  return (
    <>
      {remove.error && <ErrorState error={remove.error} title="Not deleted" />}
      <DataTable
        label={`Holidays of ${year}`}
        minWidth={760}
        striped
        highlightOnHover
        rows={rows}
        rowKey={(h) => h.id}
        columns={columns}
      />
      <ConfirmDelete
        row={deleting}
        title="Delete holiday"
        remove={remove}
        onClose={() => setDeleting(undefined)}
      >
        {(d) => (
          <>
            Delete “{d.description}” on {d.holiday_date}? The exchanges then trade as on any other day.
          </>
        )}
      </ConfirmDelete>
    </>
  );
}

export default function HolidaysPage() {
  const [year, setYear] = useState<number | undefined>();
  const list = useHolidays(year);
  const shown = year ?? list.data?.year ?? new Date().getFullYear();
  const years = Array.from({ length: 7 }, (_, i) => String(new Date().getFullYear() - 3 + i));
  return (
    <PageFrame title="Market holidays">
      <SectionCard title="Add a holiday">
        <AddHoliday />
      </SectionCard>
      <Card withBorder>
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h4">
            Holidays of {shown}
          </Title>
          <NativeSelect
            label="Year"
            data={years.includes(String(shown)) ? years : [String(shown), ...years]}
            value={String(shown)}
            onChange={(e) => setYear(Number(e.currentTarget.value))}
          />
        </Group>
        <QueryState query={list}>{(data) => <HolidayTable rows={data.data} year={data.year} />}</QueryState>
      </Card>
    </PageFrame>
  );
}
