/**
 * The agents' settings form, the server's messages under each field, on the agents page
 * (AgentsPage.tsx; docs/rules/mcp.md#mcp-settings).
 */
import { Button, Checkbox, Group, Stack, Switch, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { fieldError } from '../../../api/client';
import { FormAlerts } from '../../../components/FormAlerts';
import { useSaveAgentSettingsMutation } from '../../../features/admin/api/agents';
import { type Settings, SCOPES, SETTING_FIELDS, under } from './shared';

export function SettingsForm({ settings }: { settings: Settings }) {
  const [enabled, setEnabled] = useState(settings.enabled);
  const [approval, setApproval] = useState(settings.require_approval);
  const [writes, setWrites] = useState(settings.writes_enabled);
  const [scopes, setScopes] = useState<string[]>(settings.allowed_scopes);
  const [rate, setRate] = useState(String(settings.token_rate_per_minute));
  const save = useSaveAgentSettingsMutation({
    onSuccess: (body) => setRate(String(body.data.token_rate_per_minute)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({
      enabled,
      require_approval: approval,
      writes_enabled: writes,
      allowed_scopes: scopes,
      // A whole number goes as one; anything else as typed, for the server to name the fault.
      token_rate_per_minute: /^\s*\d+\s*$/.test(rate) ? Number(rate) : rate,
    });
  };
  const err = save.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Agent settings">
      <Stack>
        <FormAlerts
          error={err}
          fields={SETTING_FIELDS.concat(['allowed_scopes.0', 'allowed_scopes.1'])}
          title="Not saved"
          {...(save.isSuccess ? { success: 'Settings saved: in force on every instance at once.' } : {})}
        />
        <Switch
          label="Remote agents enabled"
          description="Off: /mcp refuses every token."
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
          error={fieldError(err, 'enabled')}
        />
        <Switch
          label="New clients need my approval"
          description="Off: a client that registers is approved at once."
          checked={approval}
          onChange={(e) => setApproval(e.currentTarget.checked)}
          error={fieldError(err, 'require_approval')}
        />
        <Switch
          label="Agents may place orders"
          description="Off: write tools (orders, strategies) are refused even with the write:orders scope."
          checked={writes}
          onChange={(e) => setWrites(e.currentTarget.checked)}
          error={fieldError(err, 'writes_enabled')}
        />
        <Checkbox.Group
          label="Allowed scopes"
          description="What a user may grant an agent."
          value={scopes}
          onChange={setScopes}
          error={under(err, 'allowed_scopes')}
        >
          <Stack mt={6} gap="xs">
            {SCOPES.map((s) => (
              <Checkbox key={s.value} value={s.value} label={s.label} description={s.text} />
            ))}
          </Stack>
        </Checkbox.Group>
        <TextInput
          label="Calls per minute per token"
          description="1 to 6,000; a token's calls beyond it are refused (429)."
          inputMode="numeric"
          value={rate}
          onChange={(e) => setRate(e.currentTarget.value)}
          error={fieldError(err, 'token_rate_per_minute')}
          maw={360}
        />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save settings
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
