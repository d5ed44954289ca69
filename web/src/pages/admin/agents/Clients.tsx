/**
 * The OAuth clients with their counts, approve and revoke, on the agents page
 * (AgentsPage.tsx; docs/rules/mcp.md#mcp-settings).
 */
import { Badge, Button, Card, Code, Group, Modal, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { Empty, ErrorState, Loading } from '../../../components/states';
import { useClientActionMutation, useOAuthClients } from '../../../features/admin/api/agents';
import { formatCount } from '../../../format-number';
import { type OAuthClient, STATUS_COLOR, day } from './shared';

function Figure({ label, value }: { label: string; value: number }) {
  return (
    <Card withBorder padding="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700} aria-label={`${label}: ${formatCount(value)}`}>
        {formatCount(value)}
      </Text>
    </Card>
  );
}

export function Clients() {
  const [revoking, setRevoking] = useState<OAuthClient | undefined>();
  const list = useOAuthClients();
  const act = useClientActionMutation({ onSuccess: () => setRevoking(undefined) });
  if (list.isPending) return <Loading label="Loading the clients…" />;
  if (list.isError) return <ErrorState error={list.error} />;
  const { data: rows, counts } = list.data;
  return (
    <Stack>
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Figure label="Clients" value={counts.total} />
        <Figure label="Pending" value={counts.pending} />
        <Figure label="Approved" value={counts.approved} />
        <Figure label="Revoked" value={counts.revoked} />
      </SimpleGrid>
      {act.error && <ErrorState error={act.error} title="Not changed" />}
      {rows.length === 0 ? (
        <Empty>No agent has registered yet. A client appears here once it calls /oauth/register.</Empty>
      ) : (
        <Table.ScrollContainer minWidth={940}>
          <Table striped highlightOnHover aria-label="OAuth clients" verticalSpacing="xs" fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name and client ID</Table.Th>
                <Table.Th miw={150}>Redirect URIs</Table.Th>
                <Table.Th miw={110}>Status</Table.Th>
                <Table.Th>Created (IST)</Table.Th>
                <Table.Th>Last used (IST)</Table.Th>
                <Table.Th>Users who consented</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((c) => (
                <Table.Tr key={c.client_id}>
                  <Table.Td>
                    <Text fw={600} size="sm">
                      {c.name}
                    </Text>
                    <Code fz="xs" style={{ whiteSpace: 'nowrap' }}>
                      {c.client_id}
                    </Code>
                  </Table.Td>
                  <Table.Td>
                    <Stack gap={2}>
                      {c.redirect_uris.map((u) => (
                        <Text key={u} size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                          {u}
                        </Text>
                      ))}
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Badge
                      color={STATUS_COLOR[c.status] ?? 'gray'}
                      variant={c.status === 'pending' ? 'filled' : 'light'}
                      data-testid={`client-status-${c.client_id}`}
                    >
                      {c.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{day(c.created_at)}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {c.last_used_at === null ? 'never' : day(c.last_used_at)}
                  </Table.Td>
                  <Table.Td>{c.users.length > 0 ? c.users.join(', ') : 'none yet'}</Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      {c.status !== 'approved' && (
                        <Button
                          size="xs"
                          variant="light"
                          color="green"
                          aria-label={`Approve ${c.name}`}
                          loading={act.isPending && act.variables.id === c.client_id}
                          onClick={() => act.mutate({ id: c.client_id, action: 'approve' })}
                        >
                          Approve
                        </Button>
                      )}
                      {c.status !== 'revoked' && (
                        <Button
                          size="xs"
                          variant="light"
                          color="red"
                          aria-label={`Revoke ${c.name}`}
                          onClick={() => setRevoking(c)}
                        >
                          Revoke
                        </Button>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal
        opened={revoking !== undefined}
        onClose={() => setRevoking(undefined)}
        title="Revoke this client?"
      >
        {revoking && (
          <Stack>
            <Text>
              Revoke “{revoking.name}”? Its tokens stop working at once and it cannot be authorized again
              until you approve it.
            </Text>
            <Group>
              <Button
                color="red"
                loading={act.isPending}
                onClick={() => act.mutate({ id: revoking.client_id, action: 'revoke' })}
              >
                Revoke
              </Button>
              <Button variant="default" onClick={() => setRevoking(undefined)}>
                Cancel
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}
