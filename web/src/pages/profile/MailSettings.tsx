/**
 * The administrator's mail settings on /profile (docs/rules/mail.md#smtp-settings-form): the form,
 * "password set" said but the password never shown or kept (docs/rules/mail.md#password-never-shown:
 * the field is emptied once saved; blank keeps the stored one), a test message, and the staged
 * diagnostics with each stage's result and time.
 */
import {
  Alert,
  Badge,
  Button,
  Group,
  NumberInput,
  PasswordInput,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, fieldError, onlyFieldErrors } from '../../api/client';
import { ErrorState, Loading } from '../../components/states';

export interface MailView {
  smtp_server: string | null;
  smtp_port: number;
  smtp_username: string | null;
  smtp_use_tls: boolean;
  smtp_from_email: string | null;
  smtp_helo_hostname: string | null;
  smtp_password_set: boolean;
  smtp_configured: boolean;
}
interface Stage {
  stage: string;
  result: 'ok' | 'failed' | 'skipped';
  ms: number;
  detail: string;
}
interface Diagnosis {
  ok: boolean;
  server: string;
  port: number;
  security: 'implicit_tls' | 'starttls' | 'plain';
  stages: Stage[];
  total_ms: number;
}

export const PROFILE_DATA_KEY = ['profile-data'] as const;
const FIELDS = [
  'smtp_server',
  'smtp_port',
  'smtp_username',
  'smtp_password',
  'smtp_use_tls',
  'smtp_from_email',
  'smtp_helo_hostname',
];
const SECURITY = { implicit_tls: 'implicit TLS', starttls: 'STARTTLS', plain: 'no encryption' } as const;

/** The form's fields from the stored settings (the password is never among them). */
const formOf = (view: MailView) => ({
  smtp_server: view.smtp_server ?? '',
  smtp_port: view.smtp_port as number | string,
  smtp_username: view.smtp_username ?? '',
  smtp_use_tls: view.smtp_use_tls,
  smtp_from_email: view.smtp_from_email ?? '',
  smtp_helo_hostname: view.smtp_helo_hostname ?? '',
});

function SettingsForm({ view }: { view: MailView }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState(() => formOf(view));
  // The password lives here only until it is sent.
  const [password, setPassword] = useState('');
  useEffect(() => setForm(formOf(view)), [view]);
  const save = useMutation({
    mutationFn: () =>
      api<{ message: string; smtp: MailView }>('POST', '/auth/smtp-config', {
        ...form,
        smtp_port: form.smtp_port === '' ? '' : Number(form.smtp_port),
        ...(password ? { smtp_password: password } : {}),
      }),
    onSuccess: async (res) => {
      setPassword('');
      queryClient.setQueryData(PROFILE_DATA_KEY, (old: { data: object } | undefined) =>
        old ? { ...old, data: { ...old.data, smtp: res.smtp } } : old,
      );
      await queryClient.invalidateQueries({ queryKey: PROFILE_DATA_KEY });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const err = save.error;
  const text = (key: keyof typeof form, label: string, extra: Record<string, unknown> = {}) => (
    <TextInput
      label={label}
      value={form[key] as string}
      onChange={(e) => setForm({ ...form, [key]: e.currentTarget.value })}
      error={fieldError(err, key)}
      miw={200}
      {...extra}
    />
  );
  return (
    <form onSubmit={submit} noValidate aria-label="Mail settings">
      <Stack>
        {err && !onlyFieldErrors(err, FIELDS) && <ErrorState error={err} title="Mail settings not saved" />}
        {save.isSuccess && (
          <Alert color="green" role="status">
            {save.data.message}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {text('smtp_server', 'SMTP server', {
            placeholder: 'smtp.example.com',
            required: true,
            withAsterisk: false,
          })}
          <NumberInput
            label="Port"
            description="465: TLS from the start; others: STARTTLS or plain"
            allowDecimal={false}
            clampBehavior="none"
            value={form.smtp_port}
            onChange={(v) => setForm({ ...form, smtp_port: v })}
            error={fieldError(err, 'smtp_port')}
            miw={160}
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {text('smtp_username', 'Username (optional)', { autoComplete: 'off' })}
          <PasswordInput
            label="Password (optional)"
            description={
              view.smtp_password_set ? 'A password is set; leave blank to keep it' : 'No password is set'
            }
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={fieldError(err, 'smtp_password')}
            miw={200}
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {text('smtp_from_email', 'Sender address', {
            placeholder: 'desk@example.com',
            required: true,
            withAsterisk: false,
          })}
          {text('smtp_helo_hostname', 'EHLO name (optional)', { placeholder: 'the server’s name' })}
        </SimpleGrid>
        <Switch
          label="Use STARTTLS (ports other than 465)"
          checked={form.smtp_use_tls}
          onChange={(e) => setForm({ ...form, smtp_use_tls: e.currentTarget.checked })}
          error={fieldError(err, 'smtp_use_tls')}
        />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save mail settings
          </Button>
          <Badge
            color={view.smtp_password_set ? 'green' : 'gray'}
            variant="light"
            data-testid="smtp-password-state"
          >
            {view.smtp_password_set ? 'password set' : 'no password'}
          </Badge>
        </Group>
      </Stack>
    </form>
  );
}

function TestMessage({ configured }: { configured: boolean }) {
  const [recipient, setRecipient] = useState('');
  const send = useMutation({
    mutationFn: () => api<{ message: string }>('POST', '/auth/test-smtp', { recipient: recipient.trim() }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate();
  };
  const err = send.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Send a test message">
      <Stack gap="xs">
        {err && !onlyFieldErrors(err, ['recipient']) && (
          <ErrorState error={err} title="Test message not sent" />
        )}
        {send.isSuccess && (
          <Alert color="green" role="status">
            {send.data.message}
          </Alert>
        )}
        <Group align="flex-start">
          <TextInput
            label="Send a test message to"
            type="email"
            placeholder="you@example.com"
            value={recipient}
            onChange={(e) => setRecipient(e.currentTarget.value)}
            error={fieldError(err, 'recipient')}
            miw={260}
          />
          <Button type="submit" mt={24} variant="light" loading={send.isPending} disabled={!configured}>
            Send test message
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Diagnostics({ configured }: { configured: boolean }) {
  const run = useMutation({ mutationFn: () => api<Diagnosis>('POST', '/auth/debug-smtp') });
  const d = run.data;
  return (
    <Stack gap="xs">
      <Group>
        <Button variant="light" onClick={() => run.mutate()} loading={run.isPending} disabled={!configured}>
          Run mail diagnostics
        </Button>
        {d && (
          <Text role="status" c={d.ok ? 'green' : 'red'} fw={600}>
            {d.ok ? 'Every stage passed' : 'A stage failed'}: {d.server}:{d.port}, {SECURITY[d.security]},{' '}
            {Math.round(d.total_ms)} ms
          </Text>
        )}
      </Group>
      {run.error && <ErrorState error={run.error} title="Diagnostics did not run" />}
      {d && (
        <Table.ScrollContainer minWidth={480}>
          <Table aria-label="Mail diagnostics" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Stage</Table.Th>
                <Table.Th>Result</Table.Th>
                <Table.Th ta="right">Time</Table.Th>
                <Table.Th>Detail</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {d.stages.map((s) => (
                <Table.Tr key={s.stage}>
                  <Table.Td fw={600}>{s.stage}</Table.Td>
                  <Table.Td>
                    <Badge
                      variant="light"
                      color={s.result === 'ok' ? 'green' : s.result === 'failed' ? 'red' : 'gray'}
                    >
                      {s.result}
                    </Badge>
                  </Table.Td>
                  <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
                    {s.result === 'skipped' ? '—' : `${Math.round(s.ms)} ms`}
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-word' }}>{s.detail}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}

/** The section; for other users the server sends no settings, and nothing is shown. */
export function MailSettings() {
  const data = useQuery({
    queryKey: PROFILE_DATA_KEY,
    queryFn: () => api<{ data: { smtp: MailView | null } }>('GET', '/auth/profile-data'),
  });
  if (data.isPending) return <Loading />;
  if (data.isError) return <ErrorState error={data.error} />;
  const view = data.data.data.smtp;
  if (view === null) return <Text c="dimmed">Mail settings are the administrator’s.</Text>;
  return (
    <Stack gap="lg">
      <SettingsForm view={view} />
      <Title order={3} size="h5">
        Check the settings
      </Title>
      {!view.smtp_configured && (
        <Text size="sm" c="dimmed">
          Save a server and a sender address first.
        </Text>
      )}
      <TestMessage configured={view.smtp_configured} />
      <Diagnostics configured={view.smtp_configured} />
    </Stack>
  );
}
