/**
 * Order alerts on /profile (docs/rules/alerts.md#alert-credentials): Telegram and Slack, each
 * switched on with its credentials, and the WhatsApp Business sender of the notify API
 * (docs/rules/alerts.md#notify-api). A credential is typed, sent once and emptied from the form;
 * afterwards the page only says it is set (the chat id's last characters, the webhook's host).
 * A blank credential field keeps what is stored; "Remove" clears it. The WhatsApp phone-number id
 * and own number are addresses: shown as saved, edited in place, emptied to clear.
 */
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  NativeSelect,
  PasswordInput,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, fieldError, onlyFieldErrors } from '../../api/client';
import { ErrorState, Loading } from '../../components/states';

interface AlertView {
  telegram_enabled: boolean;
  telegram_bot_token_set: boolean;
  telegram_chat_id_hint: string | null;
  slack_enabled: boolean;
  slack_webhook_url_set: boolean;
  slack_webhook_host: string | null;
  notify_on: 'all' | 'failures' | 'placed';
  whatsapp_access_token_set: boolean;
  whatsapp_phone_number_id: string | null;
  whatsapp_own_number: string | null;
  updated_at: string | null;
}
interface TestResult {
  status: 'success' | 'error';
  message: string;
  results: Array<{ channel: 'telegram' | 'slack'; ok: boolean; status: number | null; error?: string }>;
}
type Patch = Partial<{
  telegram_enabled: boolean;
  telegram_bot_token: string | null;
  telegram_chat_id: string | null;
  slack_enabled: boolean;
  slack_webhook_url: string | null;
  notify_on: AlertView['notify_on'];
  whatsapp_access_token: string | null;
  whatsapp_phone_number_id: string | null;
  whatsapp_own_number: string | null;
}>;

const KEY = ['settings', 'alerts'] as const;
const FIELDS = [
  'telegram_enabled',
  'telegram_bot_token',
  'telegram_chat_id',
  'slack_enabled',
  'slack_webhook_url',
  'notify_on',
  'whatsapp_access_token',
  'whatsapp_phone_number_id',
  'whatsapp_own_number',
];
const NOTIFY = [
  { value: 'all', label: 'Every order event' },
  { value: 'placed', label: 'Orders placed' },
  { value: 'failures', label: 'Failures only' },
];

function SetBadge({ set, label }: { set: boolean; label: string }) {
  return (
    <Badge color={set ? 'green' : 'gray'} variant="light" aria-label={`${label}: ${set ? 'set' : 'not set'}`}>
      {set ? 'set' : 'not set'}
    </Badge>
  );
}

function AlertsForm({ view }: { view: AlertView }) {
  const queryClient = useQueryClient();
  const [telegram, setTelegram] = useState(view.telegram_enabled);
  const [slack, setSlack] = useState(view.slack_enabled);
  const [notifyOn, setNotifyOn] = useState(view.notify_on);
  // Credentials typed here are kept in memory only until they are sent.
  const [token, setToken] = useState('');
  const [chatId, setChatId] = useState('');
  const [webhook, setWebhook] = useState('');
  const [waToken, setWaToken] = useState('');
  // Addresses, not secrets: shown as saved and edited in place.
  const [waPhoneId, setWaPhoneId] = useState(view.whatsapp_phone_number_id ?? '');
  const [waOwn, setWaOwn] = useState(view.whatsapp_own_number ?? '');
  useEffect(() => {
    setTelegram(view.telegram_enabled);
    setSlack(view.slack_enabled);
    setNotifyOn(view.notify_on);
    setWaPhoneId(view.whatsapp_phone_number_id ?? '');
    setWaOwn(view.whatsapp_own_number ?? '');
  }, [view]);
  const save = useMutation({
    mutationFn: (patch: Patch) =>
      api<{ settings: AlertView; message?: string }>('POST', '/settings/alerts', patch),
    onSuccess: (res) => {
      setToken('');
      setChatId('');
      setWebhook('');
      setWaToken('');
      queryClient.setQueryData(KEY, { status: 'success', settings: res.settings });
    },
  });
  /** An address field's change: its new value, null when emptied, nothing when unchanged. */
  const address = (typed: string, saved: string | null) =>
    typed.trim() === (saved ?? '') ? undefined : typed.trim() || null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const phoneId = address(waPhoneId, view.whatsapp_phone_number_id);
    const own = address(waOwn, view.whatsapp_own_number);
    save.mutate({
      telegram_enabled: telegram,
      slack_enabled: slack,
      notify_on: notifyOn,
      ...(token.trim() ? { telegram_bot_token: token.trim() } : {}),
      ...(chatId.trim() ? { telegram_chat_id: chatId.trim() } : {}),
      ...(webhook.trim() ? { slack_webhook_url: webhook.trim() } : {}),
      ...(waToken.trim() ? { whatsapp_access_token: waToken.trim() } : {}),
      ...(phoneId !== undefined ? { whatsapp_phone_number_id: phoneId } : {}),
      ...(own !== undefined ? { whatsapp_own_number: own } : {}),
    });
  };
  const err = save.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Order alert settings">
      <Stack>
        {err && !onlyFieldErrors(err, FIELDS) && <ErrorState error={err} title="Alert settings not saved" />}
        {save.isSuccess && (
          <Alert color="green" role="status">
            {save.data.message ?? 'Alert settings saved'}
          </Alert>
        )}
        <Card withBorder padding="sm">
          <Stack gap="sm">
            <Group justify="space-between">
              <Title order={3} size="h5">
                Telegram
              </Title>
              <Switch
                label="Send to Telegram"
                checked={telegram}
                onChange={(e) => setTelegram(e.currentTarget.checked)}
                error={fieldError(err, 'telegram_enabled')}
              />
            </Group>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <PasswordInput
                label="Bot token"
                description={
                  view.telegram_bot_token_set ? 'A token is set; leave blank to keep it' : 'From BotFather'
                }
                autoComplete="off"
                value={token}
                onChange={(e) => setToken(e.currentTarget.value)}
                error={fieldError(err, 'telegram_bot_token')}
                miw={220}
              />
              <TextInput
                label="Chat id"
                description={
                  view.telegram_chat_id_hint
                    ? `Set (ends ${view.telegram_chat_id_hint}); leave blank to keep it`
                    : 'Numeric id or @channel'
                }
                autoComplete="off"
                value={chatId}
                onChange={(e) => setChatId(e.currentTarget.value)}
                error={fieldError(err, 'telegram_chat_id')}
                miw={220}
              />
            </SimpleGrid>
            <Group gap="xs">
              <Text size="sm">Bot token</Text>
              <SetBadge set={view.telegram_bot_token_set} label="Bot token" />
              {view.telegram_bot_token_set && (
                <Button
                  size="compact-xs"
                  variant="subtle"
                  color="red"
                  onClick={() => save.mutate({ telegram_enabled: false, telegram_bot_token: null })}
                >
                  Remove the bot token
                </Button>
              )}
            </Group>
          </Stack>
        </Card>
        <Card withBorder padding="sm">
          <Stack gap="sm">
            <Group justify="space-between">
              <Title order={3} size="h5">
                Slack
              </Title>
              <Switch
                label="Send to Slack"
                checked={slack}
                onChange={(e) => setSlack(e.currentTarget.checked)}
                error={fieldError(err, 'slack_enabled')}
              />
            </Group>
            <PasswordInput
              label="Incoming webhook URL"
              description={
                view.slack_webhook_url_set
                  ? `A webhook on ${view.slack_webhook_host ?? 'its host'} is set; leave blank to keep it`
                  : 'https://hooks.slack.com/services/…'
              }
              autoComplete="off"
              value={webhook}
              onChange={(e) => setWebhook(e.currentTarget.value)}
              error={fieldError(err, 'slack_webhook_url')}
            />
            <Group gap="xs">
              <Text size="sm">Webhook</Text>
              <SetBadge set={view.slack_webhook_url_set} label="Slack webhook" />
              {view.slack_webhook_url_set && (
                <Button
                  size="compact-xs"
                  variant="subtle"
                  color="red"
                  onClick={() => save.mutate({ slack_enabled: false, slack_webhook_url: null })}
                >
                  Remove the webhook
                </Button>
              )}
            </Group>
          </Stack>
        </Card>
        <Card withBorder padding="sm">
          <Stack gap="sm">
            <Title order={3} size="h5">
              WhatsApp
            </Title>
            <Text size="sm" c="dimmed">
              Your WhatsApp Business (Cloud API) number sends what scripts post to{' '}
              <Text span ff="monospace" size="sm">
                /api/v1/whatsapp/notify
              </Text>{' '}
              (the SDK&apos;s whatsapp()); order alerts go to Telegram and Slack.
            </Text>
            <PasswordInput
              label="Access token"
              description={
                view.whatsapp_access_token_set
                  ? 'A token is set; leave blank to keep it'
                  : "From your Meta app's WhatsApp API setup"
              }
              autoComplete="off"
              value={waToken}
              onChange={(e) => setWaToken(e.currentTarget.value)}
              error={fieldError(err, 'whatsapp_access_token')}
            />
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput
                label="Phone-number id"
                description="The sending number's id (digits), from API setup"
                autoComplete="off"
                inputMode="numeric"
                value={waPhoneId}
                onChange={(e) => setWaPhoneId(e.currentTarget.value)}
                error={fieldError(err, 'whatsapp_phone_number_id')}
              />
              <TextInput
                label="Your own number"
                description="With country code, e.g. +91 98765 43210 (for self)"
                autoComplete="tel"
                inputMode="tel"
                value={waOwn}
                onChange={(e) => setWaOwn(e.currentTarget.value)}
                error={fieldError(err, 'whatsapp_own_number')}
              />
            </SimpleGrid>
            <Group gap="xs">
              <Text size="sm">Access token</Text>
              <SetBadge set={view.whatsapp_access_token_set} label="WhatsApp access token" />
              {view.whatsapp_access_token_set && (
                <Button
                  size="compact-xs"
                  variant="subtle"
                  color="red"
                  onClick={() => save.mutate({ whatsapp_access_token: null })}
                >
                  Remove the access token
                </Button>
              )}
            </Group>
          </Stack>
        </Card>
        <NativeSelect
          label="Alert on"
          data={NOTIFY}
          value={notifyOn}
          onChange={(e) => setNotifyOn(e.currentTarget.value as AlertView['notify_on'])}
          error={fieldError(err, 'notify_on')}
          maw={280}
        />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save alert settings
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function SendTest({ enabled }: { enabled: boolean }) {
  const test = useMutation({ mutationFn: () => api<TestResult>('POST', '/settings/alerts/test') });
  const r = test.data;
  return (
    <Stack gap="xs">
      <Group>
        <Button variant="light" onClick={() => test.mutate()} loading={test.isPending} disabled={!enabled}>
          Send a test alert
        </Button>
        {!enabled && (
          <Text size="sm" c="dimmed">
            Switch a channel on and save first.
          </Text>
        )}
      </Group>
      {test.error && <ErrorState error={test.error} title="Test alert not sent" />}
      {r && (
        <Alert color={r.status === 'success' ? 'green' : 'red'} role="status">
          {r.message}
          <Table mt="xs" aria-label="Test alert results">
            <Table.Tbody>
              {r.results.map((x) => (
                <Table.Tr key={x.channel}>
                  <Table.Td>{x.channel}</Table.Td>
                  <Table.Td>{x.ok ? 'delivered' : `failed${x.error ? `: ${x.error}` : ''}`}</Table.Td>
                  <Table.Td>{x.status ?? '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Alert>
      )}
    </Stack>
  );
}

export function OrderAlerts() {
  const data = useQuery({
    queryKey: KEY,
    queryFn: () => api<{ settings: AlertView }>('GET', '/settings/alerts'),
  });
  if (data.isPending) return <Loading />;
  if (data.isError) return <ErrorState error={data.error} />;
  const view = data.data.settings;
  return (
    <Stack gap="lg">
      <AlertsForm view={view} />
      <SendTest enabled={view.telegram_enabled || view.slack_enabled} />
    </Stack>
  );
}
