/**
 * `/admin/timings`: each exchange's regular session (`HH:MM` IST), edited in place — the
 * server checks each time and names the field (docs/rules/web.md#field-messages) — and a date
 * checked against the calendar (weekend, holiday, special session).
 */
import { Badge, Button, Card, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { fieldError, onlyFieldErrors } from '../../api/client';
import { DataTable, type DataColumn } from '../../components/DataTable';
import { QueryState } from '../../components/QueryState';
import { PageFrame, SectionCard } from '../../components/Section';
import { Empty, ErrorState } from '../../components/states';
import {
  useCheckDateMutation,
  useSaveTimingMutation,
  useTimings,
  type SessionOnDate,
  type Timing,
} from '../../features/admin/api/calendar';
import { istStamp } from '../../ist-time';

/** `HH:MM`, 00:00 to 23:59: checked here for a quick hint; the server's check is the rule. */
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const hint = (v: string) =>
  v === '' || HHMM.test(v) ? undefined : 'Write the time as HH:MM, 00:00 to 23:59';

function TimingRow({ timing }: { timing: Timing }) {
  const [start, setStart] = useState(timing.start_time);
  const [end, setEnd] = useState(timing.end_time);
  useEffect(() => {
    setStart(timing.start_time);
    setEnd(timing.end_time);
  }, [timing.start_time, timing.end_time]);
  const save = useSaveTimingMutation(timing.exchange);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ start_time: start.trim(), end_time: end.trim() });
  };
  const err = save.error;
  const changed = start !== timing.start_time || end !== timing.end_time;
  return (
    <Table.Tr>
      <Table.Td fw={600}>{timing.exchange}</Table.Td>
      <Table.Td colSpan={3}>
        <form onSubmit={submit} noValidate aria-label={`Timing of ${timing.exchange}`}>
          <Group align="flex-start" wrap="wrap" gap="sm">
            <TextInput
              label={`${timing.exchange} start`}
              value={start}
              onChange={(e) => setStart(e.currentTarget.value)}
              error={fieldError(err, 'start_time') ?? hint(start)}
              w={170}
            />
            <TextInput
              label={`${timing.exchange} end`}
              value={end}
              onChange={(e) => setEnd(e.currentTarget.value)}
              error={fieldError(err, 'end_time') ?? hint(end)}
              w={170}
            />
            <Button type="submit" mt={24} size="sm" loading={save.isPending} disabled={!changed && !err}>
              Save {timing.exchange}
            </Button>
          </Group>
          {err && !onlyFieldErrors(err, ['start_time', 'end_time']) && (
            <Text size="sm" c="red" role="alert" mt={4}>
              {err.message}
            </Text>
          )}
          {save.isSuccess && !changed && (
            <Text size="sm" c="green" role="status" mt={4}>
              {save.data.message}
            </Text>
          )}
        </form>
      </Table.Td>
      <Table.Td>
        <Text size="xs" c="dimmed">
          {istStamp(timing.updated_at)}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

const REASONS: Record<SessionOnDate['reason'], { label: string; color: string }> = {
  regular: { label: 'open', color: 'green' },
  special_session: { label: 'special session', color: 'orange' },
  weekend: { label: 'weekend', color: 'gray' },
  holiday: { label: 'holiday', color: 'red' },
};

const checkColumns = (date: string): DataColumn<SessionOnDate>[] => [
  { key: 'exchange', label: 'Exchange', cell: (s) => s.exchange },
  {
    key: 'state',
    label: `On ${date}`,
    cell: (s) => (
      <Badge
        color={s.open ? REASONS[s.reason].color : s.reason === 'holiday' ? 'red' : 'gray'}
        variant="light"
      >
        {s.open ? REASONS[s.reason].label : `closed (${REASONS[s.reason].label})`}
      </Badge>
    ),
  },
  {
    key: 'hours',
    label: 'Hours (IST)',
    cell: (s) => (s.start_time && s.end_time ? `${s.start_time}–${s.end_time}` : '—'),
    td: { ff: 'monospace' },
  },
  { key: 'holiday', label: 'Holiday', cell: (s) => s.holiday ?? '—' },
];

function CheckDate() {
  const [date, setDate] = useState(() => new Date().toISOString().slice(0, 10));
  const check = useCheckDateMutation();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    check.mutate(date);
  };
  const err = check.error;
  const result = check.data?.data;
  return (
    <form onSubmit={submit} noValidate aria-label="Check a date">
      <Stack>
        <Group align="flex-start">
          <TextInput
            type="date"
            label="Date"
            value={date}
            onChange={(e) => setDate(e.currentTarget.value)}
            error={fieldError(err, 'date')}
          />
          <Button type="submit" mt={24} loading={check.isPending}>
            Check
          </Button>
        </Group>
        {err && !onlyFieldErrors(err, ['date']) && <ErrorState error={err} title="Not checked" />}
        {result && (
          <DataTable
            label={`Sessions on ${result.date}`}
            minWidth={480}
            rows={result.sessions}
            rowKey={(s) => s.exchange}
            columns={checkColumns(result.date)}
          />
        )}
      </Stack>
    </form>
  );
}

export default function TimingsPage() {
  const list = useTimings();
  return (
    <PageFrame title="Market timings">
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Regular sessions
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          Times are IST, written HH:MM. Holidays and special sessions override them on their dates.
        </Text>
        <QueryState query={list}>
          {(data) =>
            data.data.length === 0 ? (
              <Empty>No exchange timing is kept.</Empty>
            ) : (
              <Table.ScrollContainer minWidth={640}>
                <Table aria-label="Exchange timings" verticalSpacing="sm">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Exchange</Table.Th>
                      <Table.Th colSpan={3}>Session</Table.Th>
                      <Table.Th>Updated</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {data.data.map((t) => (
                      <TimingRow key={t.exchange} timing={t} />
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )
          }
        </QueryState>
      </Card>
      <SectionCard title="Check a date">
        <CheckDate />
      </SectionCard>
    </PageFrame>
  );
}
