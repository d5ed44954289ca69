/**
 * The audit of agents' tool calls with filters and paging, on the agents page
 * (AgentsPage.tsx; docs/rules/mcp.md#mcp-settings).
 */
import { Badge, Button, Group, NativeSelect, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useSession } from '../../../api/auth';
import { Empty, ErrorState, Loading } from '../../../components/states';
import { useAgentAudit, useOAuthClients } from '../../../features/admin/api/agents';
import { formatMillis } from '../../../format-number';
import { OUTCOME_COLOR, PAGE, when } from './shared';

export function Audit() {
  const session = useSession();
  const clients = useOAuthClients();
  const [tool, setTool] = useState('');
  const [outcome, setOutcome] = useState('');
  const [before, setBefore] = useState<number[]>([]);
  const [t] = useDebouncedValue(tool.trim(), 300);
  const cursor = before.at(-1);
  const audit = useAgentAudit({
    limit: PAGE,
    ...(cursor !== undefined ? { beforeId: cursor } : {}),
    tool: t,
    outcome,
  });
  const clientName = (id: string | null) =>
    id === null ? 'local' : (clients.data?.data.find((c) => c.client_id === id)?.name ?? id);
  const userName = (id: number | null) =>
    id === null ? '—' : id === session.data?.id ? `${session.data.username} (#${id})` : `#${id}`;
  const filtered = Boolean(t || outcome);
  const rows = audit.data?.data ?? [];
  return (
    <Stack>
      <Group align="flex-end" wrap="wrap" gap="sm">
        <TextInput
          label="Tool (optional)"
          placeholder="get_funds"
          description="The exact tool name"
          value={tool}
          onChange={(e) => {
            setTool(e.currentTarget.value);
            setBefore([]);
          }}
          w={220}
        />
        <NativeSelect
          label="Outcome"
          description="ok, refused (403, 429) or error"
          data={[
            { value: '', label: 'Any' },
            { value: 'ok', label: 'ok' },
            { value: 'refused', label: 'refused' },
            { value: 'error', label: 'error' },
          ]}
          value={outcome}
          onChange={(e) => {
            setOutcome(e.currentTarget.value);
            setBefore([]);
          }}
          w={220}
        />
        <Button variant="default" onClick={() => void audit.refetch()} loading={audit.isFetching}>
          Refresh
        </Button>
      </Group>
      {audit.isPending && <Loading label="Loading the calls…" />}
      {audit.isError && <ErrorState error={audit.error} />}
      {audit.data && rows.length === 0 && (
        <Empty>
          {cursor !== undefined
            ? 'No older call.'
            : filtered
              ? 'No call matches these filters.'
              : 'No agent has called a tool yet.'}
        </Empty>
      )}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={960}>
          <Table striped highlightOnHover aria-label="Agent tool calls" verticalSpacing="xs" fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time (IST)</Table.Th>
                <Table.Th>Transport</Table.Th>
                <Table.Th>Client</Table.Th>
                <Table.Th>User</Table.Th>
                <Table.Th>Tool</Table.Th>
                <Table.Th>Scope</Table.Th>
                <Table.Th>Outcome</Table.Th>
                <Table.Th>HTTP status</Table.Th>
                <Table.Th>Duration</Table.Th>
                <Table.Th>Address</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(r.ts)}</Table.Td>
                  <Table.Td>{r.transport}</Table.Td>
                  <Table.Td>{clientName(r.client_id)}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{userName(r.user_id)}</Table.Td>
                  <Table.Td ff="monospace">{r.tool}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{r.scope ?? '—'}</Table.Td>
                  <Table.Td>
                    <Badge color={OUTCOME_COLOR[r.outcome] ?? 'gray'} variant="light" size="sm">
                      {r.outcome}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{r.http_status}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {formatMillis(Math.round(r.duration_ms))}
                  </Table.Td>
                  <Table.Td ff="monospace">{r.ip}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Group gap="sm">
        <Button variant="default" size="xs" disabled={before.length === 0} onClick={() => setBefore([])}>
          Newest
        </Button>
        <Button
          variant="default"
          size="xs"
          disabled={rows.length < PAGE}
          onClick={() => setBefore([...before, rows[rows.length - 1]!.id])}
        >
          Older
        </Button>
        <Text size="xs" c="dimmed">
          {PAGE} a page, newest first{cursor !== undefined ? `; calls before #${cursor}` : ''}.
        </Text>
      </Group>
    </Stack>
  );
}
