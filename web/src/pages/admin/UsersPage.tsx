/**
 * `/admin/users`: the administrator's accounts page (docs/rules/auth.md#account-management): every
 * user as a card (role, two-factor, state), a new user (an administrator when asked), and per user
 * make or unmake administrator, set a password, reset two-factor, disable or enable, delete —
 * the destructive ones after a confirmation. The server keeps the last enabled administrator and
 * says so when a change would remove them.
 */
import {
  Badge,
  Button,
  Card,
  Checkbox,
  Container,
  Group,
  Modal,
  PasswordInput,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useSession, type User } from '../../api/auth';
import { fieldError, onlyFieldErrors } from '../../api/client';
import { FormAlerts } from '../../components/FormAlerts';
import { SectionCard } from '../../components/Section';
import { Empty, ErrorState, Loading } from '../../components/states';
import {
  useAccountActionMutation,
  useCreateUserMutation,
  useSetAdminMutation,
  useUsers,
  type Account,
} from '../../features/admin/api/users';
import { istStamp } from '../../ist-time';

const NEW_FIELDS = ['username', 'password', 'email'];

function NewUser() {
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [admin, setAdmin] = useState(false);
  const create = useCreateUserMutation({
    onSuccess: () => {
      setUsername('');
      setEmail('');
      setPassword('');
      setAdmin(false);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ username: username.trim(), password, email: email.trim() || null, admin });
  };
  const err = create.error;
  return (
    <form onSubmit={submit} noValidate aria-label="New user">
      <Stack>
        <FormAlerts
          error={err}
          fields={NEW_FIELDS}
          title="Not created"
          {...(create.isSuccess
            ? {
                success:
                  'User created. They sign in with the password you chose and can change it on their profile.',
              }
            : {})}
        />
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <TextInput
            label="User name"
            autoComplete="off"
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
            error={fieldError(err, 'username')}
          />
          <TextInput
            label="E-mail (optional)"
            type="email"
            autoComplete="off"
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={fieldError(err, 'email')}
          />
          <PasswordInput
            label="Password"
            description="At least 8 characters"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={fieldError(err, 'password')}
          />
        </SimpleGrid>
        <Group justify="space-between">
          <Checkbox
            label="Administrator"
            checked={admin}
            onChange={(e) => setAdmin(e.currentTarget.checked)}
          />
          <Button type="submit" loading={create.isPending}>
            Create user
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

type Action = { kind: 'password' | 'totp' | 'disable' | 'delete' };

/** The confirmation (and, for a password, the new one) of an action on one user. */
function ActionDialog({ user, action, onClose }: { user: Account; action: Action; onClose: () => void }) {
  const [password, setPassword] = useState('');
  const run = useAccountActionMutation(user.id, { onRefreshed: onClose });
  const text = {
    password: {
      title: `New password for ${user.username}`,
      body: 'Every session of theirs ends; they sign in with the new password.',
      confirm: 'Set password',
    },
    totp: {
      title: `Reset two-factor of ${user.username}?`,
      body: 'Two-factor is turned off and its secret forgotten (a lost phone). They sign in with their password and can set up an authenticator again.',
      confirm: 'Reset two-factor',
    },
    disable: user.disabled
      ? {
          title: `Enable ${user.username}?`,
          body: 'They can sign in again, and issue a new API key (the old one stays revoked).',
          confirm: 'Enable',
        }
      : {
          title: `Disable ${user.username}?`,
          body: 'They cannot sign in; their sessions, API key and agents’ tokens are revoked. Their data stays.',
          confirm: 'Disable',
        },
    delete: {
      title: `Delete ${user.username}?`,
      body: 'Their strategies, scanners, flows, settings, broker session and paper-trading account are deleted. This cannot be undone.',
      confirm: 'Delete user',
    },
  }[action.kind];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run.mutate(
      action.kind === 'password'
        ? { kind: 'password', password }
        : action.kind === 'disable'
          ? { kind: 'disable', disabled: !user.disabled }
          : { kind: action.kind },
    );
  };
  return (
    <Modal opened onClose={onClose} title={text.title} centered>
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm">{text.body}</Text>
          {action.kind === 'password' && (
            <PasswordInput
              label="New password"
              description="At least 8 characters"
              autoComplete="new-password"
              data-autofocus
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={fieldError(run.error, 'password')}
            />
          )}
          {run.error && !onlyFieldErrors(run.error, ['password']) && (
            <ErrorState error={run.error} title="Not changed" />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button
              type="submit"
              color={
                action.kind === 'delete' || (action.kind === 'disable' && !user.disabled) ? 'red' : undefined
              }
              loading={run.isPending}
            >
              {text.confirm}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function UserCard({ user, me }: { user: Account; me: User | null | undefined }) {
  const [action, setAction] = useState<Action | undefined>();
  const role = useSetAdminMutation(user.id);
  const self = me?.id === user.id;
  return (
    <Card withBorder component="article" aria-label={`User ${user.username}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
            {user.username}
            {self && (
              <Text span c="dimmed" fw={400}>
                {' '}
                (you)
              </Text>
            )}
          </Text>
          <Group gap={6}>
            <Badge variant="light" color={user.is_admin ? 'grape' : 'gray'}>
              {user.is_admin ? 'Administrator' : 'User'}
            </Badge>
            <Badge variant="light" color={user.totp_enabled ? 'green' : 'gray'}>
              {user.totp_enabled ? 'Two-factor on' : 'Two-factor off'}
            </Badge>
            {user.disabled && (
              <Badge variant="filled" color="red">
                Disabled
              </Badge>
            )}
          </Group>
        </Group>
        <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {user.email ?? 'no e-mail'} · since {istStamp(user.created_at)}
        </Text>
        {role.error && <ErrorState error={role.error} title="Role not changed" />}
        <Group gap="xs" wrap="wrap">
          <Button
            size="xs"
            variant="light"
            loading={role.isPending}
            onClick={() => role.mutate(!user.is_admin)}
          >
            {user.is_admin ? 'Remove administrator' : 'Make administrator'}
          </Button>
          <Button size="xs" variant="light" onClick={() => setAction({ kind: 'password' })}>
            Set password
          </Button>
          <Button
            size="xs"
            variant="light"
            disabled={!user.totp_enabled}
            onClick={() => setAction({ kind: 'totp' })}
          >
            Reset two-factor
          </Button>
          <Button
            size="xs"
            variant="light"
            color={user.disabled ? undefined : 'orange'}
            disabled={self}
            onClick={() => setAction({ kind: 'disable' })}
          >
            {user.disabled ? 'Enable' : 'Disable'}
          </Button>
          <Button
            size="xs"
            variant="light"
            color="red"
            disabled={self}
            onClick={() => setAction({ kind: 'delete' })}
          >
            Delete
          </Button>
        </Group>
      </Stack>
      {action && <ActionDialog user={user} action={action} onClose={() => setAction(undefined)} />}
    </Card>
  );
}

export default function UsersPage() {
  const users = useUsers();
  const { data: me } = useSession();
  return (
    <Container size="md">
      <Title order={1} size="h2" mb="md">
        Users
      </Title>
      <Stack gap="lg">
        <SectionCard title="New user">
          <NewUser />
        </SectionCard>
        <section aria-label="Users">
          {users.isPending ? (
            <Loading />
          ) : users.isError ? (
            <ErrorState error={users.error} />
          ) : users.data.data.length === 0 ? (
            <Empty>No users.</Empty>
          ) : (
            <Stack gap="sm">
              {users.data.data.map((u) => (
                <UserCard key={u.id} user={u} me={me} />
              ))}
            </Stack>
          )}
        </section>
      </Stack>
    </Container>
  );
}
