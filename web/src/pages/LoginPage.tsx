import { Anchor, Button, PasswordInput, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { fieldError, isServerPage, safeReturnPath } from '../api/client';
import { AuthForm, CodeInput } from '../components/AuthForm';
import { Loading } from '../components/states';
import {
  useLoginMutation,
  useSession,
  useSetupStatus,
  useSignedIn,
  useTotpLoginMutation,
} from '../features/auth/api/sign-in';

/**
 * Sign in (docs/rules/auth.md#login-with-totp): the password, then — when the account requires
 * it — the authenticator code within five minutes; then back to the page the user came from.
 */
export default function LoginPage() {
  const setup = useSetupStatus();
  const session = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeReturnPath(params.get('next')) ?? '/';
  const [step, setStep] = useState<'password' | 'totp'>('password');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const refreshSession = useSignedIn();

  const signedIn = async () => {
    setPassword('');
    setCode('');
    await refreshSession();
    if (isServerPage(next)) window.location.assign(next);
    else await navigate(next, { replace: true });
  };

  const login = useLoginMutation({
    onSuccess: async (res) => {
      if (res.status === 'pending_totp') {
        setPassword('');
        setStep('totp');
        return;
      }
      await signedIn();
    },
  });
  const totp = useTotpLoginMutation({ onSuccess: signedIn });

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
      totp.mutate(code.trim());
    };
    return (
      <AuthForm
        title="Two-factor sign in"
        intro="Enter the six-digit code your authenticator app shows."
        onSubmit={submit}
        error={err}
        fields={['totp_code']}
        errorTitle="Not signed in"
      >
        <CodeInput
          required
          withAsterisk={false}
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
      </AuthForm>
    );
  }

  const err = login.error;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate({ username, password });
  };
  return (
    <AuthForm
      title="Sign in"
      onSubmit={submit}
      error={err}
      fields={['username', 'password']}
      errorTitle="Not signed in"
    >
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
    </AuthForm>
  );
}
