/**
 * `/apikey`: whether the account has an API key and when it was made, regenerating it (after a
 * confirmation; the new key is shown once, with a copy button, and forgotten when the page is
 * left — architecture "Secrets never leave"), and the key's order mode.
 */
import { Badge, Button, Card, Code, Container, Group, Modal, Radio, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Radio.css';
import '@mantine/core/styles/RadioIndicator.css';
import { useEffect, useState } from 'react';
import { ErrorState, Loading } from '../components/states';
import {
  useApiKeyStatus,
  useOrderModeMutation,
  useRegenerateKeyMutation,
  type CreatedKey as Created,
  type OrderMode,
} from '../features/auth/api/account';
import { CopyLine, ShownOnce } from './integrations/common';
import { istStamp } from '../ist-time';

function Regenerate({ has }: { has: boolean }) {
  // What the dialog asks (regenerate or a first key), fixed when it opens: `has` flips on success.
  const [replacing, setReplacing] = useState(has);
  const [confirming, setConfirming] = useState(false);
  const ask = () => {
    setReplacing(has);
    setConfirming(true);
  };
  // The new key: in this component's memory only, gone once the page is left or it is hidden.
  const [shown, setShown] = useState<Created | undefined>();
  const make = useRegenerateKeyMutation({
    onSuccess: (created) => {
      setConfirming(false);
      setShown(created);
    },
  });
  return (
    <Stack>
      {shown ? (
        <ShownOnce title="Your new API key" notice={shown.message} onDone={() => setShown(undefined)}>
          <CopyLine label="API key" value={shown.apikey} testId="new-api-key" />
        </ShownOnce>
      ) : (
        <Group>
          <Button color={has ? 'red' : 'blue'} onClick={ask}>
            {has ? 'Regenerate the API key' : 'Generate an API key'}
          </Button>
        </Group>
      )}
      {make.error && <ErrorState error={make.error} title="No key was made" />}
      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title={replacing ? 'Regenerate the API key?' : 'Generate an API key?'}
      >
        <Stack>
          <Text>
            {has
              ? 'The current key stops working at once: every script, strategy and platform that uses it must get the new one.'
              : 'The key is shown once; store it where your scripts read it.'}
          </Text>
          <Group>
            <Button color={replacing ? 'red' : 'blue'} loading={make.isPending} onClick={() => make.mutate()}>
              {replacing ? 'Regenerate' : 'Generate'}
            </Button>
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

function OrderModeForm({ mode }: { mode: OrderMode }) {
  // The choice shows at once; a refusal puts the stored mode back.
  const [value, setValue] = useState(mode);
  useEffect(() => setValue(mode), [mode]);
  const set = useOrderModeMutation({ onError: () => setValue(mode) });
  return (
    <Stack gap="xs">
      {set.error && <ErrorState error={set.error} title="Order mode not changed" />}
      <Radio.Group
        label="Order mode"
        description="How orders sent with this key are handled"
        value={value}
        onChange={(v) => {
          setValue(v as OrderMode);
          set.mutate(v as OrderMode);
        }}
      >
        <Stack gap="xs" mt="xs">
          <Radio value="auto" label="Automatic: orders go to the broker at once" disabled={set.isPending} />
          <Radio
            value="semi_auto"
            label="Semi-automatic: orders wait in the action center for your approval"
            disabled={set.isPending}
          />
        </Stack>
      </Radio.Group>
      {set.isSuccess && (
        <Text size="sm" c="green" role="status">
          Order mode saved.
        </Text>
      )}
    </Stack>
  );
}

export default function ApiKeyPage() {
  const status = useApiKeyStatus();
  return (
    <Container size="md">
      <Title order={1} size="h2" mb="md">
        API key
      </Title>
      {status.isPending && <Loading />}
      {status.isError && <ErrorState error={status.error} />}
      {status.data && (
        <Stack gap="lg">
          <Card withBorder>
            <Group gap="xs" mb="sm">
              <Text>Your API key:</Text>
              <Badge
                color={status.data.has_api_key ? 'green' : 'gray'}
                variant="light"
                data-testid="api-key-state"
              >
                {status.data.has_api_key ? 'exists' : 'none yet'}
              </Badge>
              {status.data.created_at && (
                <Text size="sm" c="dimmed">
                  made {istStamp(status.data.created_at)}
                </Text>
              )}
            </Group>
            <Text size="sm" c="dimmed" mb="md">
              Scripts and platforms send it as <Code>apikey</Code> to <Code>/api/v1/…</Code>. Only a digest is
              stored: a lost key cannot be shown again, only replaced.
            </Text>
            <Regenerate has={status.data.has_api_key} />
          </Card>
          <Card withBorder>
            <OrderModeForm mode={status.data.order_mode} />
          </Card>
        </Stack>
      )}
    </Container>
  );
}
