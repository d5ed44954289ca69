/**
 * `/profile`: the password — changed with the current one, and a code while two-factor is on; every
 * other session ends (docs/rules/auth.md#account-management); two-factor — enrol an authenticator
 * by QR code (the secret shown once, docs/rules/auth.md#enrollment-secret-shown-once), then turn the
 * master switch and its purposes on or off with a current code
 * (docs/rules/auth.md#totp-change-needs-a-code); the administrator's mail settings
 * (profile/MailSettings.tsx); order alerts (profile/OrderAlerts.tsx).
 */
import {
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  Code,
  Container,
  Group,
  Image,
  PasswordInput,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { SESSION_KEY, useSession } from '../api/auth';
import { api, fieldError, onlyFieldErrors } from '../api/client';
import { ErrorState, Loading } from '../components/states';
import { MailSettings } from './profile/MailSettings';
import { OrderAlerts } from './profile/OrderAlerts';
import { istStamp } from '../ist-time';

interface TotpStatus {
  totp_enabled: boolean;
  totp_required_for_login: boolean;
  totp_required_for_mcp: boolean;
  totp_required_for_password_reset: boolean;
  last_totp_verified_at: string | null;
}
interface Enrollment {
  qr_code: string;
  secret: string;
}
const STATUS_KEY = ['2fa', 'status'] as const;

const PURPOSES = [
  { key: 'required_for_login', label: 'Ask for a code when signing in' },
  { key: 'required_for_mcp', label: 'Ask for a code to approve a remote agent' },
  { key: 'required_for_password_reset', label: 'Ask for a code to reset the password' },
] as const;
type Purpose = (typeof PURPOSES)[number]['key'];
type Flags = Record<Purpose, boolean> & { enabled: boolean };

function flagsOf(s: TotpStatus): Flags {
  return {
    enabled: s.totp_enabled,
    required_for_login: s.totp_required_for_login,
    required_for_mcp: s.totp_required_for_mcp,
    required_for_password_reset: s.totp_required_for_password_reset,
  };
}

/** The code and the switches, sent together (`POST /auth/2fa/configure`). */
function ConfigureForm({
  status,
  enrolling,
  onDone,
}: {
  status: TotpStatus;
  enrolling: boolean;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const [flags, setFlags] = useState<Flags>(() => ({
    ...flagsOf(status),
    ...(enrolling ? { enabled: true, required_for_login: true } : {}),
  }));
  const [code, setCode] = useState('');
  useEffect(() => {
    if (!enrolling) setFlags(flagsOf(status));
  }, [status, enrolling]);
  const save = useMutation({
    mutationFn: () => api<TotpStatus>('POST', '/auth/2fa/configure', { totp_code: code.trim(), ...flags }),
    onSuccess: async () => {
      setCode('');
      await queryClient.invalidateQueries({ queryKey: STATUS_KEY });
      await queryClient.invalidateQueries({ queryKey: SESSION_KEY });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const err = save.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Two-factor settings">
      <Stack>
        {err && !onlyFieldErrors(err, ['totp_code']) && <ErrorState error={err} title="Not changed" />}
        {save.isSuccess && (
          <Alert color="green" role="status">
            Two-factor settings saved.
          </Alert>
        )}
        {enrolling ? (
          // Nothing is on until a code confirms the authenticator: no switch to show "on" yet.
          <Text size="sm">Two-factor turns on once you confirm a code from the authenticator.</Text>
        ) : (
          <Switch
            label="Two-factor on"
            checked={flags.enabled}
            onChange={(e) => setFlags({ ...flags, enabled: e.currentTarget.checked })}
          />
        )}
        {PURPOSES.map((p) => (
          <Checkbox
            key={p.key}
            label={p.label}
            checked={flags.enabled && flags[p.key]}
            disabled={!flags.enabled}
            onChange={(e) => setFlags({ ...flags, [p.key]: e.currentTarget.checked })}
          />
        ))}
        <Group align="flex-end">
          <TextInput
            label="Authenticator code"
            required
            withAsterisk={false}
            description="A current six-digit code is needed for every change, also to turn two-factor off"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            error={fieldError(err, 'totp_code')}
          />
          <Button type="submit" loading={save.isPending}>
            {enrolling ? 'Turn on two-factor' : 'Save two-factor settings'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function TwoFactor() {
  const status = useQuery({
    queryKey: STATUS_KEY,
    queryFn: () => api<TotpStatus>('GET', '/auth/2fa/status'),
  });
  // The secret lives in this component's memory only, until it is confirmed or the page is left.
  const [enrollment, setEnrollment] = useState<Enrollment | undefined>();
  const begin = useMutation({
    mutationFn: () => api<Enrollment>('POST', '/auth/2fa/setup'),
    onSuccess: setEnrollment,
  });
  if (status.isPending) return <Loading />;
  if (status.isError) return <ErrorState error={status.error} />;
  const s = status.data;
  return (
    <Stack>
      <Group gap="xs">
        <Text>Two-factor is</Text>
        <Badge color={s.totp_enabled ? 'green' : 'gray'} variant="light" data-testid="totp-state">
          {s.totp_enabled ? 'on' : 'off'}
        </Badge>
        <Text size="sm" c="dimmed">
          Last code verified in this session:{' '}
          {s.last_totp_verified_at ? istStamp(s.last_totp_verified_at) : 'never'}
        </Text>
      </Group>
      {!s.totp_enabled && !enrollment && (
        <Group>
          {begin.error && <ErrorState error={begin.error} title="Enrollment not started" />}
          <Button onClick={() => begin.mutate()} loading={begin.isPending}>
            Set up an authenticator
          </Button>
        </Group>
      )}
      {enrollment && (
        <Card withBorder>
          <Stack>
            <Text>
              Scan this code with your authenticator app, or type the secret key into it. The key is shown
              only now.
            </Text>
            <Image src={enrollment.qr_code} alt="QR code for your authenticator app" w={200} h={200} />
            <Text size="sm">
              Secret key: <Code data-testid="totp-secret">{enrollment.secret}</Code>
            </Text>
            <ConfigureForm status={s} enrolling onDone={() => setEnrollment(undefined)} />
          </Stack>
        </Card>
      )}
      {s.totp_enabled && <ConfigureForm status={s} enrolling={false} onDone={() => undefined} />}
    </Stack>
  );
}

const PASSWORD_FIELDS = ['current_password', 'new_password', 'totp_code'];

/** `POST /auth/password`: the current password, the new one twice, a code while two-factor is on. */
function ChangePassword({ totpOn }: { totpOn: boolean }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [code, setCode] = useState('');
  const change = useMutation({
    mutationFn: () =>
      api<{ message: string }>('POST', '/auth/password', {
        current_password: current,
        new_password: next,
        ...(totpOn ? { totp_code: code.trim() } : {}),
      }),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setAgain('');
      setCode('');
    },
  });
  const mismatch = again.length > 0 && again !== next ? 'The two new passwords differ' : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (next !== again) return;
    change.mutate();
  };
  const err = change.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Change password">
      <Stack>
        {err && !onlyFieldErrors(err, PASSWORD_FIELDS) && <ErrorState error={err} title="Not changed" />}
        {change.isSuccess && (
          <Alert color="green" role="status">
            {change.data.message}
          </Alert>
        )}
        <PasswordInput
          label="Current password"
          autoComplete="current-password"
          value={current}
          onChange={(e) => setCurrent(e.currentTarget.value)}
          error={fieldError(err, 'current_password')}
        />
        <PasswordInput
          label="New password"
          description="At least 8 characters. Your other sessions end; this one stays."
          autoComplete="new-password"
          value={next}
          onChange={(e) => setNext(e.currentTarget.value)}
          error={fieldError(err, 'new_password') ?? fieldError(err, 'password')}
        />
        <PasswordInput
          label="New password again"
          autoComplete="new-password"
          value={again}
          onChange={(e) => setAgain(e.currentTarget.value)}
          error={mismatch}
        />
        {totpOn && (
          <TextInput
            label="Authenticator code"
            description="Two-factor is on: a current six-digit code"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            error={fieldError(err, 'totp_code')}
          />
        )}
        <Group>
          <Button type="submit" loading={change.isPending} disabled={!current || !next || next !== again}>
            Change password
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export default function ProfilePage() {
  const { data: user } = useSession();
  return (
    <Container size="md">
      <Title order={1} size="h2" mb="md">
        Profile
      </Title>
      <Stack gap="lg">
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Password
          </Title>
          <ChangePassword totpOn={user?.totp_enabled === true} />
        </Card>
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Two-factor authentication
          </Title>
          <TwoFactor />
        </Card>
        {user?.is_admin && (
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Mail settings
            </Title>
            <MailSettings />
          </Card>
        )}
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Order alerts
          </Title>
          <OrderAlerts />
        </Card>
      </Stack>
    </Container>
  );
}
