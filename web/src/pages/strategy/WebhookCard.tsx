/**
 * The strategy page's TradingView card (docs/rules/web.md#strategy-pages): where the webhook URL
 * points, a warning when this machine's address cannot be reached from TradingView, and a
 * ready-to-paste alert message for each action the strategy takes, with copy buttons
 * (docs/rules/strategies.md#webhook-vocabulary-per-kind).
 */
import { Alert, Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { ErrorState } from '../../components/states';
import { CopyLine } from '../../components/webhooks/credentials';
import { useHost } from '../../features/integrations/api/host';
import type { Strategy } from '../../features/strategies/api/types';
import { alertMessages } from './model';

export function WebhookCard({ strategy }: { strategy: Strategy }) {
  const host = useHost();
  const base = host.data ? (host.data.public_url ?? host.data.host_server) : undefined;
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        TradingView alerts
      </Title>
      <Stack gap="sm">
        <Text size="sm">
          In the TradingView alert, set the webhook URL to this strategy’s URL
          {base ? (
            <>
              {' '}
              (
              <Text
                span
                ff="monospace"
                size="sm"
                style={{ wordBreak: 'break-all' }}
              >{`${base}/strategy/webhook/whk_…`}</Text>
              )
            </>
          ) : null}{' '}
          and paste one of these messages. The URL was shown once; rotate the token for a new one.
        </Text>
        {host.data?.is_localhost && (
          <Alert color="yellow" title="Not reachable from TradingView">
            Webhook URLs use {host.data.host_server}, this machine’s own address: TradingView cannot reach it.
            Set HOST_SERVER to the public address, or start the tunnel.
          </Alert>
        )}
        {host.isError && <ErrorState error={host.error} title="The public address is unknown" />}
        <SimpleGrid cols={1} spacing="xs">
          {alertMessages(strategy).map((m) => (
            <CopyLine key={m.label} label={`Alert message: ${m.label}`} value={m.body} />
          ))}
        </SimpleGrid>
        {strategy.kind === 'signal' && strategy.legs.length > 1 && (
          <Text size="xs" c="dimmed">
            With several legs each message names its leg by symbol and exchange.
          </Text>
        )}
      </Stack>
    </Card>
  );
}
