import {
  Alert,
  Anchor,
  Button,
  Card,
  Checkbox,
  Container,
  Group,
  NumberInput,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, fieldError, onlyFieldErrors } from '../api/client';
import { Empty, ErrorState, Loading } from '../components/states';
import { ActiveSessions, BanHostForm, LoginActivity } from './SecurityActivity';
import { TrackerTable, type Tracker } from './SecurityTrackers';
import { formatCount } from '../format-number';
import { istStamp } from '../ist-time';

interface Ban {
  ip: string;
  reason: string;
  ban_count: number;
  created_by: string;
  created_at: string | null;
  expires_at: string | null;
  permanent: boolean;
}
interface Settings {
  security_auto_ban_enabled: boolean;
  security_404_threshold: number;
  security_404_ban_duration: number;
  security_api_threshold: number;
  security_api_ban_duration: number;
  security_repeat_offender_limit: number;
}
interface SecurityData {
  bans: Ban[];
  error_404_tracker: Tracker[];
  invalid_api_key_tracker: Tracker[];
  settings: Settings;
}

const DATA_KEY = ['security', 'data'] as const;
const when = (iso: string | null) => (iso === null ? '—' : istStamp(iso));

function BansTable({ bans }: { bans: Ban[] }) {
  const queryClient = useQueryClient();
  const unban = useMutation({
    mutationFn: (ip: string) => api('POST', '/security/unban', { ip }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['security'] }),
  });
  if (bans.length === 0) return <Empty>No address is banned.</Empty>;
  return (
    <>
      {unban.error && <ErrorState error={unban.error} title="Not unbanned" />}
      <Table.ScrollContainer minWidth={700}>
        <Table striped highlightOnHover aria-label="Active bans">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Address</Table.Th>
              <Table.Th>Reason</Table.Th>
              <Table.Th>Bans</Table.Th>
              <Table.Th>By</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {bans.map((b) => (
              <Table.Tr key={b.ip}>
                <Table.Td ff="monospace">{b.ip}</Table.Td>
                <Table.Td>{b.reason}</Table.Td>
                <Table.Td>{formatCount(b.ban_count)}</Table.Td>
                <Table.Td>{b.created_by}</Table.Td>
                <Table.Td>{b.permanent ? 'permanent' : when(b.expires_at)}</Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    variant="light"
                    onClick={() => unban.mutate(b.ip)}
                    loading={unban.isPending && unban.variables === b.ip}
                    aria-label={`Unban ${b.ip}`}
                  >
                    Unban
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}

const BAN_FIELDS = ['ip', 'reason', 'duration_hours', 'permanent', 'force'];

function BanForm() {
  const queryClient = useQueryClient();
  const [ip, setIp] = useState('');
  const [reason, setReason] = useState('');
  const [hours, setHours] = useState<number | string>(24);
  const [permanent, setPermanent] = useState(false);
  const ban = useMutation({
    mutationFn: () =>
      api<{ message: string }>('POST', '/security/ban', {
        ip: ip.trim(),
        ...(reason.trim() ? { reason: reason.trim() } : {}),
        ...(permanent
          ? { permanent: true }
          : { duration_hours: typeof hours === 'number' ? hours : Number(hours) }),
      }),
    onSuccess: async () => {
      setIp('');
      setReason('');
      await queryClient.invalidateQueries({ queryKey: ['security'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    ban.mutate();
  };
  const err = ban.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Ban an address">
      <Stack>
        {err && !onlyFieldErrors(err, BAN_FIELDS) && <ErrorState error={err} title="Not banned" />}
        {ban.isSuccess && (
          <Alert color="green" role="status">
            {ban.data.message}
          </Alert>
        )}
        <Group align="flex-start" grow>
          <TextInput
            label="IP address"
            required
            withAsterisk={false}
            placeholder="203.0.113.7"
            value={ip}
            onChange={(e) => setIp(e.currentTarget.value)}
            error={fieldError(err, 'ip')}
          />
          <TextInput
            label="Reason"
            placeholder="Manual ban"
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            error={fieldError(err, 'reason')}
          />
        </Group>
        <Group align="flex-end">
          <NumberInput
            label="Duration (hours)"
            min={1}
            max={8760}
            value={hours}
            onChange={setHours}
            disabled={permanent}
            error={fieldError(err, 'duration_hours')}
          />
          <Checkbox
            label="Permanent"
            checked={permanent}
            onChange={(e) => setPermanent(e.currentTarget.checked)}
            mb={8}
          />
          <Button type="submit" color="red" loading={ban.isPending}>
            Ban
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

const RANGE_FIELDS: Array<{
  key: Exclude<keyof Settings, 'security_auto_ban_enabled'>;
  label: string;
  hint: string;
}> = [
  { key: 'security_404_threshold', label: '404 threshold', hint: 'Not-found answers per address per day' },
  { key: 'security_404_ban_duration', label: '404 ban duration (hours)', hint: '' },
  {
    key: 'security_api_threshold',
    label: 'Invalid API key threshold',
    hint: 'Refused keys per address per day',
  },
  { key: 'security_api_ban_duration', label: 'Invalid API key ban duration (hours)', hint: '' },
  {
    key: 'security_repeat_offender_limit',
    label: 'Repeat-offender limit',
    hint: 'Bans before a permanent one',
  },
];

function SettingsForm({ settings }: { settings: Settings }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Record<string, number | string | boolean>>({ ...settings });
  useEffect(() => setForm({ ...settings }), [settings]);
  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, number | boolean> = {
        security_auto_ban_enabled: form.security_auto_ban_enabled === true,
      };
      for (const { key } of RANGE_FIELDS) body[key] = Number(form[key]);
      return api<{ settings: Settings }>('POST', '/security/settings', body);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['security'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const err = save.error;
  const fields = ['security_auto_ban_enabled', ...RANGE_FIELDS.map((f) => f.key)];
  return (
    <form onSubmit={submit} noValidate aria-label="Automatic-ban settings">
      <Stack>
        {err && !onlyFieldErrors(err, fields) && <ErrorState error={err} title="Settings not saved" />}
        {save.isSuccess && (
          <Alert color="green" role="status">
            Settings saved.
          </Alert>
        )}
        <Switch
          label="Ban repeat offenders automatically"
          checked={form.security_auto_ban_enabled === true}
          onChange={(e) => setForm({ ...form, security_auto_ban_enabled: e.currentTarget.checked })}
          error={fieldError(err, 'security_auto_ban_enabled')}
        />
        <Group align="flex-start" grow wrap="wrap">
          {RANGE_FIELDS.map(({ key, label, hint }) => (
            <NumberInput
              key={key}
              label={label}
              description={hint || undefined}
              value={form[key] as number | string}
              onChange={(v) => setForm({ ...form, [key]: v })}
              error={fieldError(err, key)}
              miw={180}
            />
          ))}
        </Group>
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save settings
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * `/logs/security`: the ban forms (address, host), bans with unban, the automatic-ban settings,
 * the trackers (404 with clear), login activity (with clear), active sessions (with revoke).
 */
export default function SecurityPage() {
  const data = useQuery({
    queryKey: DATA_KEY,
    queryFn: () => api<SecurityData>('GET', '/security/api/data'),
  });
  return (
    <Container size="lg">
      <Title order={1} size="h2" mb="xs">
        Security
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        A summary that works without JavaScript:{' '}
        <Anchor href="/security/" inherit>
          /security/
        </Anchor>
      </Text>
      {data.isPending && <Loading />}
      {data.isError && <ErrorState error={data.error} />}
      {data.data && (
        <Stack gap="lg">
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Ban an address
            </Title>
            <BanForm />
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Ban a host
            </Title>
            <BanHostForm />
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Active bans
            </Title>
            <BansTable bans={data.data.bans} />
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Automatic bans
            </Title>
            <SettingsForm settings={data.data.settings} />
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              404 tracker
            </Title>
            <TrackerTable rows={data.data.error_404_tracker} items="paths" label="404 tracker" />
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Invalid API key tracker
            </Title>
            <Text size="sm" c="dimmed" mb="xs">
              Keys are counted by their digest; no key is ever shown.
            </Text>
            <TrackerTable
              rows={data.data.invalid_api_key_tracker}
              items="key_digests"
              label="Invalid API key tracker"
            />
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Login activity
            </Title>
            <LoginActivity />
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Active sessions
            </Title>
            <ActiveSessions />
          </Card>
        </Stack>
      )}
    </Container>
  );
}
