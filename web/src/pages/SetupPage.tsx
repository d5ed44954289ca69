import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { SESSION_KEY, SETUP_KEY, useSetupStatus, type User } from '../api/auth';
import { api, ApiError, fieldError, forgetCsrfToken, onlyFieldErrors } from '../api/client';
import { AuthCard } from '../components/AuthCard';
import { ErrorState, Loading } from '../components/states';

const FIELDS = ['username', 'password', 'email', 'confirm'] as const;

/** First run (docs/rules/auth.md#first-run-setup): the administrator, then signed in. */
export default function SetupPage() {
  const setup = useSetupStatus();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [username, setUsername] = useState('admin');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');

  const create = useMutation({
    mutationFn: async () => {
      if (password !== confirm)
        throw new ApiError(400, 'validation_failed', 'The passwords differ', {
          confirm: ['Does not match the password.'],
        });
      return api<{ user: User }>('POST', '/auth/setup', { username, password, email: email || null });
    },
    onSuccess: async ({ user }) => {
      forgetCsrfToken();
      queryClient.setQueryData(SETUP_KEY, { needs_setup: false });
      queryClient.setQueryData(SESSION_KEY, user);
      await navigate('/', { replace: true });
    },
    onError: (err) => {
      // Someone finished setup first: signing in is what is left.
      if (err instanceof ApiError && err.code === 'setup_done')
        queryClient.setQueryData(SETUP_KEY, { needs_setup: false });
    },
  });

  if (setup.isPending) return <Loading />;
  if (setup.isError) return <ErrorState error={setup.error} title="The server could not be reached" />;
  if (!setup.data.needs_setup) return <Navigate to="/login" replace />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const err = create.error;
  return (
    <AuthCard
      title="Set up algodesk"
      intro="No user exists yet. Create the administrator account; you will be signed in as it."
    >
      <form onSubmit={submit} noValidate>
        <Stack>
          {err && !onlyFieldErrors(err, FIELDS) && <ErrorState error={err} title="Setup failed" />}
          <TextInput
            label="Username"
            required
            withAsterisk={false}
            autoComplete="username"
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
            error={fieldError(err, 'username')}
          />
          <TextInput
            label="E-mail (optional)"
            type="email"
            autoComplete="email"
            description="Used for password-reset mail"
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={fieldError(err, 'email')}
          />
          <PasswordInput
            label="Password"
            required
            withAsterisk={false}
            autoComplete="new-password"
            description="At least 8 characters"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={fieldError(err, 'password')}
          />
          <PasswordInput
            label="Confirm password"
            required
            withAsterisk={false}
            autoComplete="new-password"
            value={confirm}
            onChange={(e) => setConfirm(e.currentTarget.value)}
            error={fieldError(err, 'confirm')}
          />
          <Button type="submit" loading={create.isPending}>
            Create administrator
          </Button>
          <Alert color="gray" variant="light">
            The command line on the server can create users too, in the folder algodesk runs from:{' '}
            <code>npm run -s cli -- user create --username admin</code>.
          </Alert>
        </Stack>
      </form>
    </AuthCard>
  );
}
