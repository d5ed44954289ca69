/**
 * The dialogs of one console-added broker app on `/admin/brokers`
 * (docs/rules/brokers.md#broker-apps): "Replace credentials" — only replace inputs, each empty one
 * keeping what is stored (a secret is never shown again, so none is prefilled) — and "Delete", after
 * a confirmation that its users must choose an app again. The server's refusal in its words.
 */
import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { fieldError } from '../../../api/client';
import { FormAlerts } from '../../../components/FormAlerts';
import { ErrorState } from '../../../components/states';
import {
  useDeleteBrokerAppMutation,
  useReplaceBrokerAppMutation,
  type BrokerApp,
} from '../../../features/admin/api/broker-apps';
import { brokerLabel } from '../../account/format';
import { needsOf } from './credentials';
import { CredentialInput } from './NewBrokerApp';

const FIELDS = ['label', 'api_key', 'api_secret', 'redirect_url'];

export function ReplaceDialog({ app, onClose }: { app: BrokerApp; onClose: () => void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [empty, setEmpty] = useState(false);
  const replace = useReplaceBrokerAppMutation(app.id, { onRefreshed: onClose });
  const needs = needsOf(app.broker);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const given = Object.fromEntries(
      Object.entries(values)
        .map(([k, v]) => [k, v.trim()])
        .filter(([, v]) => v !== ''),
    );
    setEmpty(Object.keys(given).length === 0);
    if (Object.keys(given).length > 0) replace.mutate(given);
  };
  const set = (name: string) => (v: string) => setValues((all) => ({ ...all, [name]: v }));
  return (
    <Modal opened onClose={onClose} title={`Replace credentials of ${app.label}`} centered>
      <form onSubmit={submit} noValidate aria-label={`Replace credentials of ${app.label}`}>
        <Stack>
          <Text size="sm">
            {needs.length > 0
              ? 'Type only what changes: an empty input keeps what is stored. Users logged in through this app keep their session until it lapses.'
              : `A ${brokerLabel(app.broker)} app carries no credentials (each user pastes their own token): only its label can change.`}
          </Text>
          <TextInput
            label="New label"
            description="Empty keeps the current label"
            placeholder={app.label}
            autoComplete="off"
            maxLength={64}
            value={values.label ?? ''}
            onChange={(e) => set('label')(e.currentTarget.value)}
            error={fieldError(replace.error, 'label')}
          />
          {needs.map((c) => (
            <CredentialInput
              key={c}
              credential={c}
              broker={app.broker}
              keep
              value={values[c] ?? ''}
              onChange={set(c)}
              error={fieldError(replace.error, c)}
            />
          ))}
          {empty && (
            <Text size="sm" c="orange" role="status">
              Nothing to replace: every input is empty.
            </Text>
          )}
          <FormAlerts error={replace.error} fields={FIELDS} title="Not replaced" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={replace.isPending}>
              Replace
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export function DeleteDialog({
  app,
  onClose,
  onDeleted,
}: {
  app: BrokerApp;
  onClose: () => void;
  /** The server's answer (how many users must choose again). */
  onDeleted: (message: string) => void;
}) {
  const remove = useDeleteBrokerAppMutation(app.id, {
    onSuccess: (data) => onDeleted(data.message),
    onRefreshed: onClose,
  });
  return (
    <Modal opened onClose={onClose} title={`Delete ${app.label}?`} centered>
      <Stack>
        <Text size="sm">
          The {brokerLabel(app.broker)} app “{app.label}” and its credentials are deleted. Every user who
          chose it loses that choice and their broker session through it: they must choose a broker app again
          on their Broker page and log in there before trading live. This cannot be undone.
        </Text>
        {remove.isError && <ErrorState error={remove.error} title="Not deleted" />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
            Delete broker app
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
