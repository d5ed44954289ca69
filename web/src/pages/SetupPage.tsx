import { Alert, Button, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { fieldError } from '../api/client';
import { AuthForm, NewPasswordPair } from '../components/AuthForm';
import { ErrorState, Loading } from '../components/states';
import { useSetupMutation, useSetupStatus } from '../features/auth/api/sign-in';

const FIELDS = ['username', 'password', 'email', 'confirm'] as const;

/** First run (docs/rules/auth.md#first-run-setup): the administrator, then signed in. */
export default function SetupPage() {
  const setup = useSetupStatus();
  const navigate = useNavigate();
  const [username, setUsername] = useState('admin');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');

  const create = useSetupMutation({ onSuccess: () => navigate('/', { replace: true }) });

  if (setup.isPending) return <Loading />;
  if (setup.isError) return <ErrorState error={setup.error} title="The server could not be reached" />;
  if (!setup.data.needs_setup) return <Navigate to="/login" replace />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ username, password, confirm, email });
  };
  const err = create.error;
  return (
    <AuthForm
      title="Set up algodesk"
      intro="No user exists yet. Create the administrator account; you will be signed in as it."
      onSubmit={submit}
      error={err}
      fields={FIELDS}
      errorTitle="Setup failed"
    >
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
      <NewPasswordPair
        labels={['Password', 'Confirm password']}
        values={[password, confirm]}
        onChange={[setPassword, setConfirm]}
        error={err}
        fields={['password', 'confirm']}
      />
      <Button type="submit" loading={create.isPending}>
        Create administrator
      </Button>
      <Alert color="gray" variant="light">
        The command line on the server can create users too, in the folder algodesk runs from:{' '}
        <code>npm run -s cli -- user create --username admin</code>.
      </Alert>
    </AuthForm>
  );
}
