/**
 * `/reset-password` (docs/rules/auth.md#password-reset-paths): the address, then one of the two
 * methods — a code of the authenticator, which gives a reset token (kept in this page's memory
 * only) for the new password; or a link mailed to the address, which opens the server's own
 * reset form. The server's answers are shown as it words them.
 */
import { Alert, Anchor, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, fieldError, onlyFieldErrors } from '../api/client';
import { AuthCard } from '../components/AuthCard';
import { ErrorState } from '../components/states';

interface StepAnswer {
  message: string;
  token?: string;
}
type Stage = 'email' | 'choose' | 'totp' | 'password' | 'mailed' | 'done';

const step = (body: Record<string, string>) =>
  api<StepAnswer>('POST', '/auth/reset-password', body, { quiet401: true });

export default function ResetPasswordPage() {
  const [stage, setStage] = useState<Stage>('email');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [token, setToken] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [notice, setNotice] = useState('');

  const run = useMutation({
    mutationFn: async (next: Stage): Promise<{ next: Stage; answer: StepAnswer }> => {
      const e = email.trim();
      switch (next) {
        case 'choose':
          return { next, answer: await step({ step: 'email', email: e }) };
        case 'totp':
          return { next, answer: await step({ step: 'select_totp' }) };
        case 'mailed':
          return { next, answer: await step({ step: 'select_email', email: e }) };
        case 'password':
          return { next, answer: await step({ step: 'totp', email: e, totp_code: code.trim() }) };
        default:
          return {
            next: 'done',
            answer: await step({ step: 'password', token, password, confirm_password: confirm }),
          };
      }
    },
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
  const go = (next: Stage) => (e?: FormEvent) => {
    e?.preventDefault();
    run.mutate(next);
  };
  const err = run.error;
  const fields = ['email', 'totp_code', 'password', 'confirm_password', 'token'];
  const general = err && !onlyFieldErrors(err, fields) ? <ErrorState error={err} title="Not done" /> : null;
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
    return (
      <AuthCard title="Choose a new password" intro="Within 15 minutes; every session of the account ends.">
        <form onSubmit={go('done')} noValidate>
          <Stack>
            {general}
            <PasswordInput
              label="New password"
              required
              withAsterisk={false}
              autoComplete="new-password"
              description="At least 8 characters"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={fieldError(err, 'password')}
            />
            <PasswordInput
              label="Confirm new password"
              required
              withAsterisk={false}
              autoComplete="new-password"
              value={confirm}
              onChange={(e) => setConfirm(e.currentTarget.value)}
              error={fieldError(err, 'confirm_password')}
            />
            <Button type="submit" loading={run.isPending}>
              Set the new password
            </Button>
            {back}
          </Stack>
        </form>
      </AuthCard>
    );
  if (stage === 'totp')
    return (
      <AuthCard title="Reset with your authenticator" intro={notice}>
        <form onSubmit={go('password')} noValidate>
          <Stack>
            {general}
            <TextInput
              label="Authenticator code"
              required
              withAsterisk={false}
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
              error={fieldError(err, 'totp_code')}
            />
            <Button type="submit" loading={run.isPending}>
              Verify
            </Button>
            {back}
          </Stack>
        </form>
      </AuthCard>
    );
  if (stage === 'choose')
    return (
      <AuthCard title="Reset your password" intro={notice}>
        <Stack>
          {general}
          <Group grow>
            <Button onClick={() => go('totp')()} loading={run.isPending && run.variables === 'totp'}>
              Use my authenticator app
            </Button>
            <Button
              variant="default"
              onClick={() => go('mailed')()}
              loading={run.isPending && run.variables === 'mailed'}
            >
              Send me a link by e-mail
            </Button>
          </Group>
          {back}
        </Stack>
      </AuthCard>
    );
  return (
    <AuthCard title="Reset your password" intro="Enter the e-mail address of your account.">
      <form onSubmit={go('choose')} noValidate>
        <Stack>
          {general}
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
        </Stack>
      </form>
    </AuthCard>
  );
}
