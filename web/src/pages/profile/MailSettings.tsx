/**
 * The administrator's mail settings on /profile (docs/rules/mail.md#smtp-settings-form): the form,
 * "password set" said but the password never shown or kept (docs/rules/mail.md#password-never-shown:
 * the field is emptied once saved; blank keeps the stored one), a test message, and the staged
 * diagnostics with each stage's result and time.
 */
import {
  Badge,
  Button,
  Group,
  NumberInput,
  PasswordInput,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { fieldError } from '../../api/client';
import { CheckRun } from '../../components/CheckRun';
import { DataTable, type DataColumn } from '../../components/DataTable';
import { FormAlerts } from '../../components/FormAlerts';
import { ErrorState, Loading } from '../../components/states';
import {
  useMailDiagnosticsMutation,
  useProfileData,
  useSaveMailMutation,
  useTestMailMutation,
  type MailDiagnosis,
  type MailView,
} from '../../features/profile/api/mail';

export type { MailView };

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
  const [form, setForm] = useState(() => formOf(view));
  // The password lives here only until it is sent.
  const [password, setPassword] = useState('');
  useEffect(() => setForm(formOf(view)), [view]);
  const save = useSaveMailMutation({ onSuccess: () => setPassword('') });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({
      ...form,
      smtp_port: form.smtp_port === '' ? '' : Number(form.smtp_port),
      ...(password ? { smtp_password: password } : {}),
    });
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
        <FormAlerts
          error={err}
          fields={FIELDS}
          title="Mail settings not saved"
          {...(save.isSuccess ? { success: save.data.message } : {})}
        />
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
  const send = useTestMailMutation();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate(recipient.trim());
  };
  const err = send.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Send a test message">
      <Stack gap="xs">
        <FormAlerts
          error={err}
          fields={['recipient']}
          title="Test message not sent"
          {...(send.isSuccess ? { success: send.data.message } : {})}
        />
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

const STAGE_COLUMNS: DataColumn<MailDiagnosis['stages'][number]>[] = [
  { key: 'stage', label: 'Stage', cell: (s) => s.stage, td: { fw: 600 } },
  {
    key: 'result',
    label: 'Result',
    cell: (s) => (
      <Badge variant="light" color={s.result === 'ok' ? 'green' : s.result === 'failed' ? 'red' : 'gray'}>
        {s.result}
      </Badge>
    ),
  },
  {
    key: 'time',
    label: 'Time',
    numeric: true,
    cell: (s) => (s.result === 'skipped' ? '—' : `${Math.round(s.ms)} ms`),
    td: { style: { whiteSpace: 'nowrap' } },
  },
  { key: 'detail', label: 'Detail', cell: (s) => s.detail, td: { style: { wordBreak: 'break-word' } } },
];

function Diagnostics({ configured }: { configured: boolean }) {
  const run = useMailDiagnosticsMutation();
  return (
    <CheckRun
      run={run}
      select={(d) => d}
      label="Run mail diagnostics"
      variant="light"
      disabled={!configured}
      gap="xs"
      errorTitle="Diagnostics did not run"
      summary={(d) => ({
        ok: d.ok,
        text: (
          <>
            {d.ok ? 'Every stage passed' : 'A stage failed'}: {d.server}:{d.port}, {SECURITY[d.security]},{' '}
            {Math.round(d.total_ms)} ms
          </>
        ),
      })}
    >
      {(d) => (
        <DataTable
          label="Mail diagnostics"
          minWidth={480}
          striped
          rows={d.stages}
          rowKey={(s) => s.stage}
          columns={STAGE_COLUMNS}
        />
      )}
    </CheckRun>
  );
}

/** The section; for other users the server sends no settings, and nothing is shown. */
export function MailSettings() {
  const data = useProfileData();
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
