/**
 * `/reset-password` (docs/rules/auth.md#password-reset-paths): the address, then one of the two
 * methods — a code of the authenticator, which gives a reset token (kept in this page's memory
 * only) for the new password; or a link mailed to the address, which opens the server's own
 * reset form. The server's answers are shown as it words them.
 */
import { Alert, Anchor, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { fieldError, onlyFieldErrors } from '../api/client';
import { AuthCard } from '../components/AuthCard';
import { AuthForm, CodeInput, NewPasswordPair } from '../components/AuthForm';
import { ErrorState } from '../components/states';
import { useResetPasswordMutation } from '../features/auth/api/sign-in';

type Stage = 'email' | 'choose' | 'totp' | 'password' | 'mailed' | 'done';

export default function ResetPasswordPage() {
  const [stage, setStage] = useState<Stage>('email');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [token, setToken] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [notice, setNotice] = useState('');

  const run = useResetPasswordMutation<Stage>({
    onSuccess: ({ next, answer }) => {
      if (answer.token) setToken(answer.token);
      if (next === 'done') {
        setToken('');
        setPassword('');
        setConfirm('');
      }
      setNotice(answer.message);
      setStage(next);
    },
  });
  /** The request that leads to a stage, from what the form holds. */
  const bodyFor = (next: Stage): Record<string, string> => {
    const e = email.trim();
    switch (next) {
      case 'choose':
        return { step: 'email', email: e };
      case 'totp':
        return { step: 'select_totp' };
      case 'mailed':
        return { step: 'select_email', email: e };
      case 'password':
        return { step: 'totp', email: e, totp_code: code.trim() };
      default:
        return { step: 'password', token, password, confirm_password: confirm };
    }
  };
  const go = (next: Stage) => (e?: FormEvent) => {
    e?.preventDefault();
    run.mutate({ next: next === 'email' || next === 'done' ? 'done' : next, body: bodyFor(next) });
  };
  const err = run.error;
  const fields = ['email', 'totp_code', 'password', 'confirm_password', 'token'];
  const general = err && !onlyFieldErrors(err, fields) ? <ErrorState error={err} title="Not done" /> : null;
  const form = (title: string, intro: string, next: Stage, children: React.ReactNode) => (
    <AuthForm
      title={title}
      intro={intro}
      onSubmit={go(next)}
      error={err}
      fields={fields}
      errorTitle="Not done"
    >
      {children}
    </AuthForm>
  );
  const back = (
    <Text size="sm" ta="center">
      <Anchor component={Link} to="/login">
        Back to sign in
      </Anchor>
    </Text>
  );

  if (stage === 'done')
    return (
      <AuthCard title="Password reset">
        <Stack>
          <Alert color="green" role="status">
            {notice}
          </Alert>
          <Button component={Link} to="/login">
            Sign in
          </Button>
        </Stack>
      </AuthCard>
    );
  if (stage === 'mailed')
    return (
      <AuthCard title="Check your mail">
        <Stack>
          <Alert color="blue" role="status">
            {notice}
          </Alert>
          {back}
        </Stack>
      </AuthCard>
    );
  if (stage === 'password')
    return form(
      'Choose a new password',
      'Within 15 minutes; every session of the account ends.',
      'done',
      <>
        <NewPasswordPair
          labels={['New password', 'Confirm new password']}
          values={[password, confirm]}
          onChange={[setPassword, setConfirm]}
          error={err}
          fields={['password', 'confirm_password']}
        />
        <Button type="submit" loading={run.isPending}>
          Set the new password
        </Button>
        {back}
      </>,
    );
  if (stage === 'totp')
    return form(
      'Reset with your authenticator',
      notice,
      'password',
      <>
        <CodeInput
          required
          withAsterisk={false}
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          error={fieldError(err, 'totp_code')}
        />
        <Button type="submit" loading={run.isPending}>
          Verify
        </Button>
        {back}
      </>,
    );
  if (stage === 'choose')
    return (
      <AuthCard title="Reset your password" intro={notice}>
        <Stack>
          {general}
          <Group grow>
            <Button onClick={() => go('totp')()} loading={run.isPending && run.variables.next === 'totp'}>
              Use my authenticator app
            </Button>
            <Button
              variant="default"
              onClick={() => go('mailed')()}
              loading={run.isPending && run.variables.next === 'mailed'}
            >
              Send me a link by e-mail
            </Button>
          </Group>
          {back}
        </Stack>
      </AuthCard>
    );
  return form(
    'Reset your password',
    'Enter the e-mail address of your account.',
    'choose',
    <>
      <TextInput
        label="E-mail address"
        type="email"
        required
        withAsterisk={false}
        autoComplete="email"
        value={email}
        onChange={(e) => setEmail(e.currentTarget.value)}
        error={fieldError(err, 'email')}
      />
      <Button type="submit" loading={run.isPending}>
        Continue
      </Button>
      {back}
    </>,
  );
}
