/**
 * The order ticket's answer once the order is placed (docs/rules/web.md#order-ticket): the order
 * id, the server's message and the order's status as the order book has it.
 */
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { hasLimitPrice } from '../../../../src/domain/orders';
import { useOrderStatus } from '../../features/desk/api/orders';
import { formatCount, formatPrice } from '../../format-number';
import type { Placed, TicketForm } from './use-ticket-form';

/** The placed order's state as the order book has it (refreshed with the books: key ['desk', …]). */
function PlacedStatus({ orderid }: { orderid: string }) {
  const status = useOrderStatus(orderid);
  if (status.isPending)
    return (
      <Text size="sm" c="dimmed" role="status">
        Reading the order’s status…
      </Text>
    );
  if (status.isError)
    return (
      <Text size="sm" c="dimmed">
        Status not read: {status.error.message}
      </Text>
    );
  const o = status.data.data;
  return (
    <Text size="sm" data-testid="ticket-status">
      Status: <strong>{o.order_status}</strong>
      {o.filled_quantity > 0
        ? ` · ${formatCount(o.filled_quantity)} filled at ${formatPrice(o.average_price)}`
        : ''}
      {o.pending_quantity > 0 ? ` · ${formatCount(o.pending_quantity)} pending` : ''}
      {o.rejection_reason ? ` · ${o.rejection_reason}` : ''}
    </Text>
  );
}

export function TicketPlaced({
  ticket,
  placed,
  onClose,
}: {
  ticket: TicketForm;
  placed: Placed;
  onClose: () => void;
}) {
  const { action, quantity, symbol, exchange, pricetype, price, product, place } = ticket;
  return (
    <Stack>
      <Alert color="green" title="Order placed" role="status">
        <Text>
          Order id{' '}
          <strong data-testid="ticket-orderid">{placed.orderid ?? placed.orderids?.join(', ')}</strong>
          {placed.mode === 'analyze' ? ' (sandbox)' : ''}
        </Text>
        <Text data-testid="ticket-message">
          {placed.message ??
            `${placed.mode === 'analyze' ? 'The sandbox' : 'The broker'} accepted ${action} ${String(quantity)} ${symbol.trim().toUpperCase()} on ${exchange}, ${pricetype}${hasLimitPrice(pricetype) ? ` at ${String(price)}` : ''}, ${product}.`}
        </Text>
        {placed.orderid && <PlacedStatus orderid={placed.orderid} />}
      </Alert>
      <Group>
        <Button onClick={() => place.reset()}>Place another</Button>
        <Button variant="default" onClick={onClose}>
          Close
        </Button>
      </Group>
    </Stack>
  );
}
