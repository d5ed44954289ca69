/**
 * `/profile`: the password — changed with the current one, and a code while two-factor is on; every
 * other session ends (docs/rules/auth.md#account-management); two-factor — enrol an authenticator
 * by QR code (the secret shown once, docs/rules/auth.md#enrollment-secret-shown-once), then turn the
 * master switch and its purposes on or off with a current code
 * (docs/rules/auth.md#totp-change-needs-a-code); the administrator's mail settings
 * (profile/MailSettings.tsx); order alerts (profile/OrderAlerts.tsx).
 */
import {
  Badge,
  Button,
  Card,
  Checkbox,
  Code,
  Group,
  Image,
  PasswordInput,
  Stack,
  Switch,
  Text,
} from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { fieldError } from '../api/client';
import { CodeInput } from '../components/AuthForm';
import { FormAlerts } from '../components/FormAlerts';
import { PageFrame, SectionCard } from '../components/Section';
import { ErrorState, Loading } from '../components/states';
import {
  useChangePasswordMutation,
  useConfigureTwoFactorMutation,
  useEnrollMutation,
  useTwoFactorStatus,
  type Enrollment,
  type TwoFactorFlags as Flags,
  type TwoFactorStatus as TotpStatus,
} from '../features/auth/api/account';
import { useSession } from '../features/auth/api/sign-in';
import { MailSettings } from './profile/MailSettings';
import { OrderAlerts } from './profile/OrderAlerts';
import { istStamp } from '../ist-time';

const PURPOSES = [
  { key: 'required_for_login', label: 'Ask for a code when signing in' },
  { key: 'required_for_mcp', label: 'Ask for a code to approve a remote agent' },
  { key: 'required_for_password_reset', label: 'Ask for a code to reset the password' },
] as const;

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
  const [flags, setFlags] = useState<Flags>(() => ({
    ...flagsOf(status),
    ...(enrolling ? { enabled: true, required_for_login: true } : {}),
  }));
  const [code, setCode] = useState('');
  useEffect(() => {
    if (!enrolling) setFlags(flagsOf(status));
  }, [status, enrolling]);
  const save = useConfigureTwoFactorMutation({ onSuccess: () => setCode(''), onRefreshed: onDone });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ totp_code: code.trim(), ...flags });
  };
  const err = save.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Two-factor settings">
      <Stack>
        <FormAlerts
          error={err}
          fields={['totp_code']}
          title="Not changed"
          {...(save.isSuccess ? { success: 'Two-factor settings saved.' } : {})}
        />
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
          <CodeInput
            required
            withAsterisk={false}
            description="A current six-digit code is needed for every change, also to turn two-factor off"
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
  const status = useTwoFactorStatus();
  // The secret lives in this component's memory only, until it is confirmed or the page is left.
  const [enrollment, setEnrollment] = useState<Enrollment | undefined>();
  const begin = useEnrollMutation({ onSuccess: setEnrollment });
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
  const change = useChangePasswordMutation({
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
    change.mutate({
      current_password: current,
      new_password: next,
      ...(totpOn ? { totp_code: code.trim() } : {}),
    });
  };
  const err = change.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Change password">
      <Stack>
        <FormAlerts
          error={err}
          fields={PASSWORD_FIELDS}
          title="Not changed"
          {...(change.isSuccess ? { success: change.data.message } : {})}
        />
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
          <CodeInput
            description="Two-factor is on: a current six-digit code"
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
    <PageFrame title="Profile" size="md">
      <SectionCard title="Password">
        <ChangePassword totpOn={user?.totp_enabled === true} />
      </SectionCard>
      <SectionCard title="Two-factor authentication">
        <TwoFactor />
      </SectionCard>
      {user?.is_admin && (
        <SectionCard title="Mail settings">
          <MailSettings />
        </SectionCard>
      )}
      <SectionCard title="Order alerts">
        <OrderAlerts />
      </SectionCard>
    </PageFrame>
  );
}
