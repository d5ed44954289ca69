import { Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { SESSION_KEY, useSession, useSetupStatus } from '../api/auth';
import {
  api,
  fieldError,
  forgetCsrfToken,
  isServerPage,
  onlyFieldErrors,
  safeReturnPath,
} from '../api/client';
import { AuthCard } from '../components/AuthCard';
import { ErrorState, Loading } from '../components/states';

/**
 * Sign in (docs/rules/auth.md#login-with-totp): the password, then — when the account requires
 * it — the authenticator code within five minutes; then back to the page the user came from.
 */
export default function LoginPage() {
  const setup = useSetupStatus();
  const session = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeReturnPath(params.get('next')) ?? '/';
  const [step, setStep] = useState<'password' | 'totp'>('password');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');

  const signedIn = async () => {
    forgetCsrfToken();
    setPassword('');
    setCode('');
    await queryClient.refetchQueries({ queryKey: SESSION_KEY });
    if (isServerPage(next)) window.location.assign(next);
    else await navigate(next, { replace: true });
  };

  const login = useMutation({
    mutationFn: () =>
      api<{ status: 'success' | 'pending_totp' }>(
        'POST',
        '/auth/login',
        { username, password },
        { quiet401: true },
      ),
    onSuccess: async (res) => {
      if (res.status === 'pending_totp') {
        setPassword('');
        setStep('totp');
        return;
      }
      await signedIn();
    },
  });
  const totp = useMutation({
    mutationFn: () => api('POST', '/auth/login/totp', { totp_code: code.trim() }, { quiet401: true }),
    onSuccess: signedIn,
  });

  if (setup.isPending || session.isPending) return <Loading />;
  if (setup.data?.needs_setup) return <Navigate to="/setup" replace />;
  if (session.data) {
    if (!isServerPage(next)) return <Navigate to={next} replace />;
    window.location.assign(next);
    return <Loading />;
  }

  if (step === 'totp') {
    const err = totp.error;
    const submit = (e: FormEvent) => {
      e.preventDefault();
      totp.mutate();
    };
    return (
      <AuthCard title="Two-factor sign in" intro="Enter the six-digit code your authenticator app shows.">
        <form onSubmit={submit} noValidate>
          <Stack>
            {err && !onlyFieldErrors(err, ['totp_code']) && <ErrorState error={err} title="Not signed in" />}
            <TextInput
              label="Authenticator code"
              required
              withAsterisk={false}
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              autoFocus
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
              error={fieldError(err, 'totp_code')}
            />
            <Button type="submit" loading={totp.isPending}>
              Verify
            </Button>
            <Anchor component="button" type="button" size="sm" onClick={() => setStep('password')}>
              Start again with the password
            </Anchor>
          </Stack>
        </form>
      </AuthCard>
    );
  }

  const err = login.error;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  return (
    <AuthCard title="Sign in">
      <form onSubmit={submit} noValidate>
        <Stack>
          {err && !onlyFieldErrors(err, ['username', 'password']) && (
            <ErrorState error={err} title="Not signed in" />
          )}
          <TextInput
            label="Username"
            required
            withAsterisk={false}
            autoComplete="username"
            autoFocus
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
            error={fieldError(err, 'username')}
          />
          <PasswordInput
            label="Password"
            required
            withAsterisk={false}
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={fieldError(err, 'password')}
          />
          <Button type="submit" loading={login.isPending}>
            Sign in
          </Button>
          <Text size="sm" ta="center">
            <Anchor component={Link} to="/reset-password">
              Forgot your password?
            </Anchor>
          </Text>
        </Stack>
      </form>
    </AuthCard>
  );
}
