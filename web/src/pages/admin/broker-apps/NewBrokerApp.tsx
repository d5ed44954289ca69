/**
 * "Add a broker app" on `/admin/brokers` (docs/rules/brokers.md#broker-apps): a label, the broker,
 * and only the credentials that broker's login needs — the API key and secret in password inputs,
 * the redirect URL with the callback to register at the broker. The inputs are emptied once the
 * server took the app; its refusal is shown in its words (under the field it names, else above).
 */
import {
  Button,
  Group,
  NativeSelect,
  PasswordInput,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { fieldError } from '../../../api/client';
import { FormAlerts } from '../../../components/FormAlerts';
import { useCreateBrokerAppMutation, type AppCredentials } from '../../../features/admin/api/broker-apps';
import { brokerLabel } from '../../account/format';
import { BROKERS, callbackUrl, credentialLabel, needsOf, type Credential } from './credentials';

const FIELDS = ['label', 'broker', 'api_key', 'api_secret', 'redirect_url'];

/** One credential's input: a password input for the key and the secret. */
export function CredentialInput({
  credential,
  broker,
  value,
  onChange,
  error,
  keep = false,
}: {
  credential: Credential;
  broker: string;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  /** A replace: an empty input keeps what is stored. */
  keep?: boolean;
}) {
  const label = credentialLabel(broker, credential);
  const common = {
    label: keep ? `New ${credential === 'redirect_url' ? 'redirect URL' : label}` : label,
    value,
    error,
    autoComplete: 'off',
    onChange: (e: { currentTarget: { value: string } }) => onChange(e.currentTarget.value),
  };
  if (credential === 'redirect_url')
    return (
      <TextInput
        {...common}
        type="url"
        placeholder={callbackUrl(broker)}
        description={`Register ${callbackUrl(broker)} at ${brokerLabel(broker)}${keep ? '; empty keeps the stored one' : ''}`}
      />
    );
  return (
    <PasswordInput
      {...common}
      autoComplete="new-password"
      description={
        keep
          ? 'Empty keeps the stored one'
          : `From ${brokerLabel(broker)}’s developer console (never shown again)`
      }
    />
  );
}

export function NewBrokerApp() {
  const [label, setLabel] = useState('');
  const [broker, setBroker] = useState('');
  const [creds, setCreds] = useState<Required<AppCredentials>>({
    api_key: '',
    api_secret: '',
    redirect_url: '',
  });
  const create = useCreateBrokerAppMutation({
    onSuccess: () => {
      setLabel('');
      setBroker('');
      setCreds({ api_key: '', api_secret: '', redirect_url: '' });
    },
  });
  const needs = needsOf(broker);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Only what the chosen broker needs is sent (a field typed for another broker stays here).
    const given = Object.fromEntries(needs.map((c) => [c, creds[c].trim()]).filter(([, v]) => v !== ''));
    create.mutate({ label: label.trim(), broker, ...given });
  };
  const err = create.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Add a broker app">
      <Stack>
        <FormAlerts
          error={err}
          fields={FIELDS}
          title="Not added"
          {...(create.isSuccess
            ? {
                success: `Broker app “${create.data.data.label}” added: users choose it on their Broker page.`,
              }
            : {})}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label="Label"
            description="How users see it when they choose (unique)"
            autoComplete="off"
            maxLength={64}
            value={label}
            onChange={(e) => setLabel(e.currentTarget.value)}
            error={fieldError(err, 'label')}
          />
          <NativeSelect
            label="Broker"
            description="An app’s broker never changes"
            value={broker}
            onChange={(e) => setBroker(e.currentTarget.value)}
            error={fieldError(err, 'broker')}
            data={[
              { value: '', label: 'Choose the broker' },
              ...BROKERS.map((b) => ({ value: b, label: brokerLabel(b) })),
            ]}
          />
        </SimpleGrid>
        {broker !== '' && needs.length === 0 && (
          <Text size="sm" c="dimmed">
            A {brokerLabel(broker)} app needs no credentials: each user pastes their own access token on the
            Broker page.
          </Text>
        )}
        {needs.length > 0 && (
          <SimpleGrid cols={{ base: 1, sm: needs.length > 1 ? 2 : 1 }}>
            {needs.map((c) => (
              <CredentialInput
                key={c}
                credential={c}
                broker={broker}
                value={creds[c]}
                onChange={(v) => setCreds((all) => ({ ...all, [c]: v }))}
                error={fieldError(err, c)}
              />
            ))}
          </SimpleGrid>
        )}
        <Group justify="flex-end">
          <Button type="submit" loading={create.isPending} disabled={broker === ''}>
            Add broker app
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
