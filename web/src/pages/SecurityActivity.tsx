/**
 * The rest of `/logs/security`: banning by host name, the login activity (with clear) and every
 * user's active sessions (with revoke).
 */
import { Alert, Badge, Button, Group, Stack, Table, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, fieldError, onlyFieldErrors } from '../api/client';
import { Empty, ErrorState, Loading } from '../components/states';
import { istStamp } from '../ist-time';

const when = (iso: string | null) => (iso === null ? '—' : istStamp(iso));

/** `POST /security/ban-host`: every address seen with a host name in the last 24 h. */
export function BanHostForm() {
  const queryClient = useQueryClient();
  const [host, setHost] = useState('');
  const ban = useMutation({
    mutationFn: () =>
      api<{ banned: string[]; skipped: Array<{ ip: string; reason: string }> }>(
        'POST',
        '/security/ban-host',
        {
          host: host.trim(),
        },
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['security'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    ban.mutate();
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

interface Attempt {
  ts: string | null;
  ip: string;
  username: string;
  success: boolean;
  user_agent: string | null;
}

export function LoginActivity() {
  const queryClient = useQueryClient();
  const rows = useQuery({
    queryKey: ['security', 'login-activity'],
    queryFn: () => api<{ data: Attempt[] }>('GET', '/security/api/login-activity?limit=100'),
  });
  const clear = useMutation({
    mutationFn: () => api('POST', '/security/api/login-activity/clear'),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['security', 'login-activity'] }),
  });
  if (rows.isPending) return <Loading />;
  if (rows.isError) return <ErrorState error={rows.error} />;
  return (
    <Stack>
      {clear.error && <ErrorState error={clear.error} title="Not cleared" />}
      {rows.data.data.length === 0 ? (
        <Empty>No login attempts recorded.</Empty>
      ) : (
        <Table.ScrollContainer minWidth={600}>
          <Table striped aria-label="Login activity">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>User</Table.Th>
                <Table.Th>Address</Table.Th>
                <Table.Th>Result</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.data.data.map((r, i) => (
                <Table.Tr key={`${r.ts}-${i}`}>
                  <Table.Td>{when(r.ts)}</Table.Td>
                  <Table.Td>{r.username}</Table.Td>
                  <Table.Td ff="monospace">{r.ip}</Table.Td>
                  <Table.Td>
                    <Badge color={r.success ? 'green' : 'red'} variant="light">
                      {r.success ? 'signed in' : 'refused'}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
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

interface ActiveSession {
  id: string;
  user: string;
  ip: string | null;
  user_agent: string | null;
  created_at: string | null;
  last_seen_at: string | null;
  current: boolean;
}

export function ActiveSessions() {
  const queryClient = useQueryClient();
  const rows = useQuery({
    queryKey: ['security', 'sessions'],
    queryFn: () => api<{ data: ActiveSession[] }>('GET', '/security/api/active-sessions'),
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api('POST', '/security/api/active-sessions/revoke', { id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['security', 'sessions'] }),
  });
  if (rows.isPending) return <Loading />;
  if (rows.isError) return <ErrorState error={rows.error} />;
  if (rows.data.data.length === 0) return <Empty>No active session.</Empty>;
  return (
    <Stack>
      {revoke.error && <ErrorState error={revoke.error} title="Not revoked" />}
      <Table.ScrollContainer minWidth={700}>
        <Table striped aria-label="Active sessions">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>User</Table.Th>
              <Table.Th>Address</Table.Th>
              <Table.Th>Browser</Table.Th>
              <Table.Th>Last seen</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.data.data.map((s) => (
              <Table.Tr key={s.id}>
                <Table.Td>{s.user}</Table.Td>
                <Table.Td ff="monospace">{s.ip ?? '—'}</Table.Td>
                <Table.Td
                  maw={280}
                  style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}
                >
                  {s.user_agent ?? '—'}
                </Table.Td>
                <Table.Td>{when(s.last_seen_at)}</Table.Td>
                <Table.Td>
                  {s.current ? (
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
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
