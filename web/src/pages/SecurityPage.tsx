import {
  Anchor,
  Button,
  Checkbox,
  Container,
  Group,
  NumberInput,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { fieldError } from '../api/client';
import { DataTable, type DataColumn } from '../components/DataTable';
import { FormAlerts } from '../components/FormAlerts';
import { QueryState } from '../components/QueryState';
import { SectionCard } from '../components/Section';
import { Empty, ErrorState } from '../components/states';
import {
  useBanMutation,
  useSaveSecuritySettingsMutation,
  useSecurityData,
  useUnbanMutation,
  type Ban,
  type SecuritySettings as Settings,
} from '../features/security/api/security';
import { ActiveSessions, BanHostForm, LoginActivity } from './SecurityActivity';
import { TrackerTable } from './SecurityTrackers';
import { formatCount } from '../format-number';
import { istStamp } from '../ist-time';

const when = (iso: string | null) => (iso === null ? '—' : istStamp(iso));

function BansTable({ bans }: { bans: Ban[] }) {
  const unban = useUnbanMutation();
  if (bans.length === 0) return <Empty>No address is banned.</Empty>;
  const columns: DataColumn<Ban>[] = [
    { key: 'ip', label: 'Address', cell: (b) => b.ip, td: { ff: 'monospace' } },
    { key: 'reason', label: 'Reason', cell: (b) => b.reason },
    { key: 'count', label: 'Bans', cell: (b) => formatCount(b.ban_count) },
    { key: 'by', label: 'By', cell: (b) => b.created_by },
    { key: 'expires', label: 'Expires', cell: (b) => (b.permanent ? 'permanent' : when(b.expires_at)) },
    {
      key: 'unban',
      cell: (b) => (
        <Button
          size="xs"
          variant="light"
          onClick={() => unban.mutate(b.ip)}
          loading={unban.isPending && unban.variables === b.ip}
          aria-label={`Unban ${b.ip}`}
        >
          Unban
        </Button>
      ),
    },
  ];
  return (
    <>
      {unban.error && <ErrorState error={unban.error} title="Not unbanned" />}
      <DataTable
        label="Active bans"
        minWidth={700}
        striped
        highlightOnHover
        rows={bans}
        rowKey={(b) => b.ip}
        columns={columns}
      />
    </>
  );
}

const BAN_FIELDS = ['ip', 'reason', 'duration_hours', 'permanent', 'force'];

function BanForm() {
  const [ip, setIp] = useState('');
  const [reason, setReason] = useState('');
  const [hours, setHours] = useState<number | string>(24);
  const [permanent, setPermanent] = useState(false);
  const ban = useBanMutation({
    onSuccess: () => {
      setIp('');
      setReason('');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    ban.mutate({
      ip: ip.trim(),
      ...(reason.trim() ? { reason: reason.trim() } : {}),
      ...(permanent
        ? { permanent: true }
        : { duration_hours: typeof hours === 'number' ? hours : Number(hours) }),
    });
  };
  const err = ban.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Ban an address">
      <Stack>
        <FormAlerts
          error={err}
          fields={BAN_FIELDS}
          title="Not banned"
          {...(ban.isSuccess ? { success: ban.data.message } : {})}
        />
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
  const [form, setForm] = useState<Record<string, number | string | boolean>>({ ...settings });
  useEffect(() => setForm({ ...settings }), [settings]);
  const save = useSaveSecuritySettingsMutation();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body: Record<string, number | boolean> = {
      security_auto_ban_enabled: form.security_auto_ban_enabled === true,
    };
    for (const { key } of RANGE_FIELDS) body[key] = Number(form[key]);
    save.mutate(body);
  };
  const err = save.error;
  const fields = ['security_auto_ban_enabled', ...RANGE_FIELDS.map((f) => f.key)];
  return (
    <form onSubmit={submit} noValidate aria-label="Automatic-ban settings">
      <Stack>
        <FormAlerts
          error={err}
          fields={fields}
          title="Settings not saved"
          {...(save.isSuccess ? { success: 'Settings saved.' } : {})}
        />
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
  const data = useSecurityData();
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
      <QueryState query={data}>
        {(d) => (
          <Stack gap="lg">
            <SectionCard title="Ban an address">
              <BanForm />
            </SectionCard>
            <SectionCard title="Ban a host">
              <BanHostForm />
            </SectionCard>
            <SectionCard title="Active bans">
              <BansTable bans={d.bans} />
            </SectionCard>
            <SectionCard title="Automatic bans">
              <SettingsForm settings={d.settings} />
            </SectionCard>
            <SectionCard title="404 tracker">
              <TrackerTable rows={d.error_404_tracker} items="paths" label="404 tracker" />
            </SectionCard>
            <SectionCard title="Invalid API key tracker">
              <Text size="sm" c="dimmed" mb="xs">
                Keys are counted by their digest; no key is ever shown.
              </Text>
              <TrackerTable
                rows={d.invalid_api_key_tracker}
                items="key_digests"
                label="Invalid API key tracker"
              />
            </SectionCard>
            <SectionCard title="Login activity">
              <LoginActivity />
            </SectionCard>
            <SectionCard title="Active sessions">
              <ActiveSessions />
            </SectionCard>
          </Stack>
        )}
      </QueryState>
    </Container>
  );
}
