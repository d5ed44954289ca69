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
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { fieldError } from '../../api/client';
import { CheckRun } from '../../components/CheckRun';
import { DataTableBody, type DataColumn } from '../../components/DataTable';
import { FormAlerts } from '../../components/FormAlerts';
import { ErrorState, Loading } from '../../components/states';
import {
  useAlertSettings,
  useSaveAlertsMutation,
  useTestAlertMutation,
  type AlertTest,
  type AlertView,
} from '../../features/profile/api/alerts';

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

/** One channel's card: its heading (with its switch, when it has one) over its fields. */
function ChannelCard({
  title,
  toggle,
  children,
}: {
  title: string;
  toggle?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card withBorder padding="sm">
      <Stack gap="sm">
        {toggle ? (
          <Group justify="space-between">
            <Title order={3} size="h5">
              {title}
            </Title>
            {toggle}
          </Group>
        ) : (
          <Title order={3} size="h5">
            {title}
          </Title>
        )}
        {children}
      </Stack>
    </Card>
  );
}

/** Whether a credential is stored, and the way to remove it. */
function CredentialState({
  name,
  label,
  set,
  remove,
  onRemove,
}: {
  name: string;
  label: string;
  set: boolean;
  remove: string;
  onRemove: () => void;
}) {
  return (
    <Group gap="xs">
      <Text size="sm">{name}</Text>
      <SetBadge set={set} label={label} />
      {set && (
        <Button size="compact-xs" variant="subtle" color="red" onClick={onRemove}>
          {remove}
        </Button>
      )}
    </Group>
  );
}

function AlertsForm({ view }: { view: AlertView }) {
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
  const save = useSaveAlertsMutation({
    onSuccess: () => {
      setToken('');
      setChatId('');
      setWebhook('');
      setWaToken('');
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
        <FormAlerts
          error={err}
          fields={FIELDS}
          title="Alert settings not saved"
          {...(save.isSuccess ? { success: save.data.message ?? 'Alert settings saved' } : {})}
        />
        <ChannelCard
          title="Telegram"
          toggle={
            <Switch
              label="Send to Telegram"
              checked={telegram}
              onChange={(e) => setTelegram(e.currentTarget.checked)}
              error={fieldError(err, 'telegram_enabled')}
            />
          }
        >
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
          <CredentialState
            name="Bot token"
            label="Bot token"
            set={view.telegram_bot_token_set}
            remove="Remove the bot token"
            onRemove={() => save.mutate({ telegram_enabled: false, telegram_bot_token: null })}
          />
        </ChannelCard>
        <ChannelCard
          title="Slack"
          toggle={
            <Switch
              label="Send to Slack"
              checked={slack}
              onChange={(e) => setSlack(e.currentTarget.checked)}
              error={fieldError(err, 'slack_enabled')}
            />
          }
        >
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
          <CredentialState
            name="Webhook"
            label="Slack webhook"
            set={view.slack_webhook_url_set}
            remove="Remove the webhook"
            onRemove={() => save.mutate({ slack_enabled: false, slack_webhook_url: null })}
          />
        </ChannelCard>
        <ChannelCard title="WhatsApp">
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
          <CredentialState
            name="Access token"
            label="WhatsApp access token"
            set={view.whatsapp_access_token_set}
            remove="Remove the access token"
            onRemove={() => save.mutate({ whatsapp_access_token: null })}
          />
        </ChannelCard>
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

const RESULT_COLUMNS: DataColumn<AlertTest['results'][number]>[] = [
  { key: 'channel', cell: (x) => x.channel },
  { key: 'outcome', cell: (x) => (x.ok ? 'delivered' : `failed${x.error ? `: ${x.error}` : ''}`) },
  { key: 'status', cell: (x) => x.status ?? '—' },
];

function SendTest({ enabled }: { enabled: boolean }) {
  const test = useTestAlertMutation();
  return (
    <CheckRun
      run={test}
      select={(r) => r}
      label="Send a test alert"
      variant="light"
      disabled={!enabled}
      gap="xs"
      hint={
        !enabled && (
          <Text size="sm" c="dimmed">
            Switch a channel on and save first.
          </Text>
        )
      }
      errorTitle="Test alert not sent"
    >
      {(r) => (
        <Alert color={r.status === 'success' ? 'green' : 'red'} role="status">
          {r.message}
          <DataTableBody
            mt="xs"
            label="Test alert results"
            head={false}
            rows={r.results}
            rowKey={(x) => x.channel}
            columns={RESULT_COLUMNS}
          />
        </Alert>
      )}
    </CheckRun>
  );
}

export function OrderAlerts() {
  const data = useAlertSettings();
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
