/**
 * `/admin/mcp` ("Agents"): remote AI agents (docs/rules/mcp.md#mcp-settings) — the kill switch,
 * the settings, the OAuth clients with approve and revoke, and the audit of tool calls
 * (docs/rules/mcp.md#mcp-audit). The server checks every value and names the field; its messages
 * show under that field (docs/rules/web.md#field-messages).
 */
import { Container, Stack, Text, Title } from '@mantine/core';
import { SectionCard } from '../../components/Section';
import { ErrorState, Loading } from '../../components/states';
import { useAgentSettings } from '../../features/admin/api/agents';
import { KillSwitch } from './agents/KillSwitch';
import { SettingsForm } from './agents/SettingsForm';
import { Clients } from './agents/Clients';
import { Audit } from './agents/Audit';

export default function AgentsPage() {
  const settings = useAgentSettings();
  return (
    <Container size="xl">
      <Title order={1} size="h2" mb="xs">
        Agents
      </Title>
      <Text c="dimmed" size="sm" mb="md">
        Remote AI agents reach the API through /mcp with OAuth tokens their users granted; every tool call is
        audited below.
      </Text>
      <Stack gap="lg">
        {settings.isPending && <Loading label="Loading the agent settings…" />}
        {settings.isError && <ErrorState error={settings.error} />}
        {settings.data && (
          <>
            <KillSwitch engaged={settings.data.data.kill_switch} />
            <SectionCard title="Settings">
              <SettingsForm settings={settings.data.data} />
            </SectionCard>
          </>
        )}
        <SectionCard title="Clients">
          <Clients />
        </SectionCard>
        <SectionCard title="Tool calls">
          <Audit />
        </SectionCard>
      </Stack>
    </Container>
  );
}
