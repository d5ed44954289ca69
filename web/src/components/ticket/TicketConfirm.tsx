/**
 * The order ticket's confirmation before a live order goes to the broker, naming the broker of the
 * session (docs/rules/web.md#order-ticket).
 */
import { Button, Group, Paper, Stack, Text } from '@mantine/core';
import { hasLimitPrice, hasTriggerPrice } from '../../../../src/domain/orders';
import { useConfirmingBrokerSession } from '../../features/desk/api/orders';
import type { TicketForm } from './use-ticket-form';

function BrokerName() {
  const session = useConfirmingBrokerSession();
  if (session.isPending) return <>your broker (checking the session…)</>;
  if (session.isError || !session.data.data) return <>your broker (no broker session is connected)</>;
  return <strong data-testid="ticket-broker">{session.data.data.broker}</strong>;
}

export function TicketConfirm({ ticket }: { ticket: TicketForm }) {
  const { action, quantity, symbol, exchange, pricetype, price, trigger, product, place, setConfirming } =
    ticket;
  return (
    <Stack>
      <Text>
        Send this order to <BrokerName /> now? It is a live order with real money.
      </Text>
      <Paper withBorder p="sm">
        <Text ff="monospace" data-testid="ticket-summary">
          {action} {String(quantity)} {symbol.trim().toUpperCase()} {exchange} · {pricetype}
          {hasLimitPrice(pricetype) ? ` @ ${String(price)}` : ''}
          {hasTriggerPrice(pricetype) ? ` trigger ${String(trigger)}` : ''} · {product}
        </Text>
      </Paper>
      <Group>
        <Button
          color={action === 'BUY' ? 'green' : 'red'}
          loading={place.isPending}
          onClick={() => place.mutate()}
        >
          Send to the broker
        </Button>
        <Button variant="default" onClick={() => setConfirming(false)} disabled={place.isPending}>
          Back
        </Button>
      </Group>
    </Stack>
  );
}
