/**
 * The kill switch of remote agents, engaged or released with a typed confirmation, on the agents page
 * (AgentsPage.tsx; docs/rules/mcp.md#mcp-settings).
 */
import { Alert, Badge, Button, Card, Group, Modal, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { fieldError, onlyFieldErrors } from '../../../api/client';
import { ErrorState } from '../../../components/states';
import { useKillSwitchMutation } from '../../../features/admin/api/agents';

export function KillSwitch({ engaged }: { engaged: boolean }) {
  const [asking, setAsking] = useState(false);
  const [typed, setTyped] = useState('');
  // What the dialog asks, fixed when it opens (the state flips while it closes).
  const [engage, setEngage] = useState(!engaged);
  const word = engage ? 'ENGAGE' : 'RELEASE';
  const flip = useKillSwitchMutation({
    onSuccess: () => {
      setAsking(false);
      setTyped('');
    },
  });
  const ask = () => {
    setEngage(!engaged);
    flip.reset();
    setAsking(true);
  };
  const close = () => {
    setAsking(false);
    setTyped('');
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    flip.mutate({ engage, confirm: typed.trim() });
  };
  return (
    <>
      {engaged ? (
        <Alert
          color="red"
          variant="filled"
          title="Kill switch engaged"
          data-testid="kill-switch-state"
          role="status"
        >
          <Stack gap="sm">
            <Text size="sm">
              Every agent token was revoked. Agents are refused at /mcp, and new registrations and
              authorizations are refused, until the switch is released.
            </Text>
            {flip.isSuccess && flip.data.kill_switch && (
              <Text size="sm" fw={700}>
                {flip.data.revoked_tokens} token{flip.data.revoked_tokens === 1 ? '' : 's'} revoked just now.
              </Text>
            )}
            <Group>
              <Button color="dark" variant="white" onClick={ask}>
                Release the kill switch
              </Button>
            </Group>
          </Stack>
        </Alert>
      ) : (
        <Card withBorder data-testid="kill-switch-state">
          <Group justify="space-between" wrap="wrap" gap="sm">
            <div>
              <Group gap="xs">
                <Title order={2} size="h4">
                  Kill switch
                </Title>
                <Badge color="green" variant="light">
                  Released
                </Badge>
              </Group>
              <Text size="sm" c="dimmed">
                Engaging it revokes every agent token at once and refuses /mcp, registration and authorization
                until it is released.
              </Text>
            </div>
            <Button color="red" onClick={ask}>
              Engage the kill switch
            </Button>
          </Group>
        </Card>
      )}
      {flip.isSuccess && !flip.data.kill_switch && (
        <Alert color="green" role="status">
          Kill switch released: agents work again as the settings allow.
        </Alert>
      )}
      <Modal
        opened={asking}
        onClose={close}
        title={engage ? 'Engage the kill switch?' : 'Release the kill switch?'}
      >
        <form
          onSubmit={submit}
          noValidate
          aria-label={engage ? 'Engage the kill switch' : 'Release the kill switch'}
        >
          <Stack>
            <Text size="sm">
              {!engage
                ? 'Approved clients may then ask for tokens again, and /mcp answers as the settings allow.'
                : 'Every agent token stops working at once; /mcp, registration and authorization are refused until you release it.'}
            </Text>
            {flip.error && !onlyFieldErrors(flip.error, ['confirm']) && (
              <ErrorState error={flip.error} title="Not changed" />
            )}
            <TextInput
              label={`Type ${word} to confirm`}
              autoComplete="off"
              value={typed}
              onChange={(e) => setTyped(e.currentTarget.value)}
              error={fieldError(flip.error, 'confirm')}
              data-autofocus
            />
            <Group>
              <Button
                type="submit"
                color={engage ? 'red' : 'green'}
                disabled={typed.trim() !== word}
                loading={flip.isPending}
              >
                {engage ? 'Engage' : 'Release'}
              </Button>
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
