/**
 * The rest of `/logs/security`: banning by host name, the login activity (with clear) and every
 * user's active sessions (with revoke).
 */
import { Alert, Badge, Button, Group, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { fieldError, onlyFieldErrors } from '../api/client';
import { DataTable, type DataColumn } from '../components/DataTable';
import { Empty, ErrorState, Loading } from '../components/states';
import {
  useActiveSessions,
  useBanHostMutation,
  useClearLoginActivityMutation,
  useLoginActivity,
  useRevokeSessionMutation,
  type ActiveSession,
  type LoginAttempt,
} from '../features/security/api/security';
import { istStamp } from '../ist-time';

const when = (iso: string | null) => (iso === null ? '—' : istStamp(iso));

/** `POST /security/ban-host`: every address seen with a host name in the last 24 h. */
export function BanHostForm() {
  const [host, setHost] = useState('');
  const ban = useBanHostMutation();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    ban.mutate(host.trim());
  };
  const err = ban.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Ban a host">
      <Stack>
        {err && !onlyFieldErrors(err, ['host']) && <ErrorState error={err} title="Not banned" />}
        {ban.data && (
          <Alert color={ban.data.banned.length > 0 ? 'green' : 'gray'} role="status">
            {ban.data.banned.length > 0 ? `Banned: ${ban.data.banned.join(', ')}.` : 'No address to ban.'}
            {ban.data.skipped.length > 0 &&
              ` Skipped: ${ban.data.skipped.map((s) => `${s.ip} (${s.reason})`).join(', ')}.`}
          </Alert>
        )}
        <Group align="flex-end">
          <TextInput
            label="Host name"
            required
            withAsterisk={false}
            placeholder="scanner.example.net"
            description="Bans every address whose requests named this host in the last 24 hours"
            value={host}
            onChange={(e) => setHost(e.currentTarget.value)}
            error={fieldError(err, 'host')}
            style={{ flex: 1 }}
          />
          <Button type="submit" color="red" loading={ban.isPending}>
            Ban host
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

const ATTEMPT_COLUMNS: DataColumn<LoginAttempt>[] = [
  { key: 'when', label: 'When', cell: (r) => when(r.ts) },
  { key: 'user', label: 'User', cell: (r) => r.username },
  { key: 'ip', label: 'Address', cell: (r) => r.ip, td: { ff: 'monospace' } },
  {
    key: 'result',
    label: 'Result',
    cell: (r) => (
      <Badge color={r.success ? 'green' : 'red'} variant="light">
        {r.success ? 'signed in' : 'refused'}
      </Badge>
    ),
  },
];

export function LoginActivity() {
  const rows = useLoginActivity();
  const clear = useClearLoginActivityMutation();
  if (rows.isPending) return <Loading />;
  if (rows.isError) return <ErrorState error={rows.error} />;
  return (
    <Stack>
      {clear.error && <ErrorState error={clear.error} title="Not cleared" />}
      {rows.data.data.length === 0 ? (
        <Empty>No login attempts recorded.</Empty>
      ) : (
        <DataTable
          label="Login activity"
          minWidth={600}
          striped
          rows={rows.data.data}
          rowKey={(r, i) => `${r.ts}-${i}`}
          columns={ATTEMPT_COLUMNS}
        />
      )}
      <Group>
        <Button
          variant="default"
          onClick={() => clear.mutate()}
          loading={clear.isPending}
          disabled={rows.data.data.length === 0}
        >
          Clear login activity
        </Button>
      </Group>
    </Stack>
  );
}

export function ActiveSessions() {
  const rows = useActiveSessions();
  const revoke = useRevokeSessionMutation();
  if (rows.isPending) return <Loading />;
  if (rows.isError) return <ErrorState error={rows.error} />;
  if (rows.data.data.length === 0) return <Empty>No active session.</Empty>;
  const columns: DataColumn<ActiveSession>[] = [
    { key: 'user', label: 'User', cell: (s) => s.user },
    { key: 'ip', label: 'Address', cell: (s) => s.ip ?? '—', td: { ff: 'monospace' } },
    {
      key: 'browser',
      label: 'Browser',
      cell: (s) => s.user_agent ?? '—',
      td: { maw: 280, style: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } },
    },
    { key: 'seen', label: 'Last seen', cell: (s) => when(s.last_seen_at) },
    {
      key: 'revoke',
      cell: (s) =>
        s.current ? (
          <Badge variant="light">this session</Badge>
        ) : (
          <Button
            size="xs"
            variant="light"
            color="red"
            onClick={() => revoke.mutate(s.id)}
            loading={revoke.isPending && revoke.variables === s.id}
            aria-label={`Revoke the session of ${s.user}`}
          >
            Revoke
          </Button>
        ),
    },
  ];
  return (
    <Stack>
      {revoke.error && <ErrorState error={revoke.error} title="Not revoked" />}
      <DataTable
        label="Active sessions"
        minWidth={700}
        striped
        rows={rows.data.data}
        rowKey={(s) => s.id}
        columns={columns}
      />
    </Stack>
  );
}
