/**
 * `/admin/holidays`: market holidays by year — add one (closed exchanges, its type, special
 * sessions with their `HH:MM` IST times) and delete. The server checks every value and names the
 * field; its messages show under that field (docs/rules/web.md#field-messages).
 */
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  Container,
  Group,
  Modal,
  NativeSelect,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/ActionIcon.css';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { HOLIDAY_EXCHANGES } from '../../../../src/domain/exchanges';
import { api, fieldError, onlyFieldErrors } from '../../api/client';
import { Empty, ErrorState, Loading } from '../../components/states';

interface Holiday {
  id: number;
  holiday_date: string;
  description: string;
  holiday_type: string;
  year: number;
  closed_exchanges: string[];
  open_exchanges: Array<{ exchange: string; start_time: string; end_time: string }>;
}
interface Session {
  exchange: string;
  start_time: string;
  end_time: string;
}

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
  const queryClient = useQueryClient();
  const [date, setDate] = useState('');
  const [description, setDescription] = useState('');
  const [type, setType] = useState('TRADING_HOLIDAY');
  const [closed, setClosed] = useState<string[]>([]);
  const [sessions, setSessions] = useState<Session[]>([]);
  const add = useMutation({
    mutationFn: () =>
      api<{ message: string }>('POST', '/admin/api/holidays', {
        holiday_date: date,
        description: description.trim(),
        holiday_type: type,
        exchanges: closed,
        open_exchanges: sessions,
      }),
    onSuccess: async () => {
      setDate('');
      setDescription('');
      setClosed([]);
      setSessions([]);
      await queryClient.invalidateQueries({ queryKey: ['admin'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  const err = add.error;
  const fieldsErr = FIELDS.concat(['open_exchanges.start_time', 'open_exchanges.end_time']);
  const setSession = (i: number, patch: Partial<Session>) =>
    setSessions(sessions.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  return (
    <form onSubmit={submit} noValidate aria-label="Add a holiday">
      <Stack>
        {err && !onlyFieldErrors(err, fieldsErr) && <ErrorState error={err} title="Not added" />}
        {add.isSuccess && (
          <Alert color="green" role="status">
            {add.data.message}
          </Alert>
        )}
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

function HolidayTable({ rows, year }: { rows: Holiday[]; year: number }) {
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<Holiday | undefined>();
  const remove = useMutation({
    mutationFn: (id: number) => api('DELETE', `/admin/api/holidays/${id}`),
    onSuccess: async () => {
      setDeleting(undefined);
      await queryClient.invalidateQueries({ queryKey: ['admin'] });
    },
  });
  if (rows.length === 0) return <Empty>No holiday in {year}.</Empty>;
  return (
    <>
      {remove.error && <ErrorState error={remove.error} title="Not deleted" />}
      <Table.ScrollContainer minWidth={760}>
        <Table striped highlightOnHover aria-label={`Holidays of ${year}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Date</Table.Th>
              <Table.Th>Description</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>Closed</Table.Th>
              <Table.Th>Special sessions</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((h) => (
              <Table.Tr key={h.id}>
                <Table.Td ff="monospace" style={{ whiteSpace: 'nowrap' }}>
                  {h.holiday_date}
                </Table.Td>
                <Table.Td>{h.description}</Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  {TYPES.find((t) => t.value === h.holiday_type)?.label ?? h.holiday_type}
                </Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {h.closed_exchanges.map((x) => (
                      <Badge key={x} variant="light" color="gray" size="sm">
                        {x}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
                <Table.Td>
                  {h.open_exchanges.map((o) => `${o.exchange} ${o.start_time}–${o.end_time}`).join(', ') ||
                    '—'}
                </Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    variant="light"
                    color="red"
                    onClick={() => setDeleting(h)}
                    aria-label={`Delete the holiday of ${h.holiday_date}`}
                  >
                    Delete
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Modal opened={deleting !== undefined} onClose={() => setDeleting(undefined)} title="Delete holiday">
        {deleting && (
          <Stack>
            <Text>
              Delete “{deleting.description}” on {deleting.holiday_date}? The exchanges then trade as on any
              other day.
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
    </>
  );
}

export default function HolidaysPage() {
  const [year, setYear] = useState<number | undefined>();
  const list = useQuery({
    queryKey: ['admin', 'holidays', year ?? 'current'],
    queryFn: () =>
      api<{ year: number; data: Holiday[] }>('GET', `/admin/api/holidays${year ? `?year=${year}` : ''}`),
  });
  const shown = year ?? list.data?.year ?? new Date().getFullYear();
  const years = Array.from({ length: 7 }, (_, i) => String(new Date().getFullYear() - 3 + i));
  return (
    <Container size="lg">
      <Title order={1} size="h2" mb="md">
        Market holidays
      </Title>
      <Stack gap="lg">
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Add a holiday
          </Title>
          <AddHoliday />
        </Card>
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
          {list.isPending && <Loading />}
          {list.isError && <ErrorState error={list.error} />}
          {list.data && <HolidayTable rows={list.data.data} year={list.data.year} />}
        </Card>
      </Stack>
    </Container>
  );
}
