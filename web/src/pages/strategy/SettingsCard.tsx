/**
 * The strategy page's settings card (docs/rules/strategies.md#strategy-management): kind, product,
 * direction, the active run, whether the webhook is locked and a live start allowed, the allowed
 * senders, and the legs.
 */
import { Badge, Card, Group, List, SimpleGrid, Text, Title } from '@mantine/core';
import '@mantine/core/styles/List.css';
import type { ReactNode } from 'react';
import { RunStateBadge } from './badges';
import type { Run, Strategy } from '../../features/strategies/api/types';
import { DIRECTION_LABEL, KIND_LABEL, legText } from './model';

export function SettingsCard({ strategy, run }: { strategy: Strategy; run: Run | undefined }) {
  const row = (label: string, value: ReactNode) => (
    <>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      {typeof value === 'string' ? <Text size="sm">{value}</Text> : <div>{value}</div>}
    </>
  );
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        Settings
      </Title>
      <SimpleGrid
        cols={2}
        spacing="xs"
        verticalSpacing={6}
        mb="md"
        style={{ gridTemplateColumns: 'max-content 1fr' }}
      >
        {row('Kind', KIND_LABEL[strategy.kind])}
        {row('Product', strategy.product)}
        {strategy.kind === 'signal' && row('Direction', DIRECTION_LABEL[strategy.direction])}
        {row(
          'Active run',
          strategy.active_run_id === null ? (
            'None'
          ) : (
            <Group gap="xs">
              <Text size="sm">#{strategy.active_run_id}</Text>
              <RunStateBadge status={run?.status ?? 'running'} />
            </Group>
          ),
        )}
        {row(
          'Webhook',
          strategy.webhook_locked ? (
            <Badge color="red" style={{ textTransform: 'none' }}>
              Locked: every delivery refused
            </Badge>
          ) : (
            <Text size="sm">Open</Text>
          ),
        )}
        {strategy.kind === 'batch' &&
          row(
            'Live start',
            strategy.live_enabled ? (
              <Badge color="red" style={{ textTransform: 'none' }}>
                Allowed: a live start sends real orders
              </Badge>
            ) : (
              <Text size="sm">Not allowed (sandbox only)</Text>
            ),
          )}
        {row(
          'Allowed senders',
          strategy.ip_allowlist.length === 0 ? (
            <Text size="sm">Any address</Text>
          ) : (
            <Text size="sm" ff="monospace">
              {strategy.ip_allowlist.join(', ')}
            </Text>
          ),
        )}
      </SimpleGrid>
      <Text fw={600} size="sm" mb={4}>
        Legs
      </Text>
      <List size="sm" spacing={2} aria-label="Legs">
        {strategy.legs.map((l) => (
          <List.Item key={l.id}>
            {legText(l)}{' '}
            <Text span size="xs" c="dimmed">
              (leg_id {l.id})
            </Text>
          </List.Item>
        ))}
      </List>
    </Card>
  );
}
