/**
 * `/orderbook`: the signed-in user's orders as `/api/v1/orderbook` answers them (the sandbox in
 * analyzer mode, the broker in live mode; docs/rules/web.md#desk-calls and #desk-books) with its statistics,
 * refreshed by the live socket. Sortable and filterable, exported as CSV; a working order can be
 * modified (a form with its fields) or cancelled, and every working order cancelled at once, each
 * after a confirmation, with the server's answer shown.
 */
import { Button, Card, Container, Group, Modal, Stack, Text, Title } from '@mantine/core';
import { useCallback, useState } from 'react';
import { hasLimitPrice } from '../../../../src/domain/orders';
import { useDeskQuery } from '../../api/desk';
import { useLive } from '../../api/live';
import { ConfirmModal, OutcomeAlert, type Outcome } from '../../components/BookActions';
import { RowButton } from '../../components/BookGrid';
import { BookTable } from '../../components/BookTable';
import { DeskGate } from '../../components/DeskGate';
import { LiveStatus } from '../../components/LiveStatus';
import { ErrorState, Loading } from '../../components/states';
import { useCancelAllOrdersMutation, useCancelOrderMutation } from '../../features/desk/api/orders';
import { formatCount, formatPrice } from '../../format-number';
import { COLUMNS, FILTERS, isWorking, sideStyle, type Order } from './orderbook/columns';
import { ModifyForm } from './orderbook/ModifyForm';

export default function OrderbookPage() {
  const live = useLive();
  const book = useDeskQuery('orderbook', { refetchInterval: live.refetchInterval });
  const [outcome, setOutcome] = useState<Outcome>();
  const [modifying, setModifying] = useState<Order>();
  const [cancelling, setCancelling] = useState<Order>();
  const [cancellingAll, setCancellingAll] = useState(false);

  const cancel = useCancelOrderMutation({
    onSuccess: (a) => {
      setCancelling(undefined);
      setOutcome({ ok: true, message: a.message ?? `Order ${a.orderid} cancelled.` });
    },
  });
  const cancelAll = useCancelAllOrdersMutation({
    onSuccess: (a) => {
      setCancellingAll(false);
      const failed = a.failed_cancellations.map((f) => `${f.orderid}: ${f.message}`).join('; ');
      setOutcome({
        ok: a.failed_cancellations.length === 0,
        message: failed ? `${a.message} ${failed}` : a.message,
      });
    },
  });

  const actions = useCallback(
    (o: Order) =>
      isWorking(o) ? (
        <>
          <RowButton label={`Modify order ${o.orderid}`} onClick={() => setModifying(o)}>
            Modify
          </RowButton>
          <RowButton tone="red" label={`Cancel order ${o.orderid}`} onClick={() => setCancelling(o)}>
            Cancel
          </RowButton>
        </>
      ) : null,
    [],
  );

  const data = book.data?.data;
  const working = data?.orders.filter(isWorking).length ?? 0;
  const stats = data?.statistics;

  return (
    <Container fluid>
      <Group justify="space-between" mb="md">
        <Title order={1} size="h2">
          Order book
        </Title>
        <LiveStatus state={live.state} />
      </Group>
      <DeskGate>
        <Stack gap="md">
          {stats && (
            <Group gap="lg" data-testid="orderbook-statistics">
              <Text size="sm">Buy orders: {formatCount(stats.total_buy_orders)}</Text>
              <Text size="sm">Sell orders: {formatCount(stats.total_sell_orders)}</Text>
              <Text size="sm">Open: {formatCount(stats.total_open_orders)}</Text>
              <Text size="sm">Completed: {formatCount(stats.total_completed_orders)}</Text>
              <Text size="sm">Rejected: {formatCount(stats.total_rejected_orders)}</Text>
            </Group>
          )}
          <OutcomeAlert outcome={outcome} onClose={() => setOutcome(undefined)} />
          <Card withBorder p={{ base: 'xs', sm: 'md' }}>
            {book.isPending && <Loading label="Loading the order book…" />}
            {book.isError && <ErrorState error={book.error} title="The order book could not be loaded" />}
            {data && (
              <BookTable
                label="Orders"
                noun={['order', 'orders']}
                rows={data.orders}
                columns={COLUMNS}
                rowKey={(o) => o.orderid}
                filters={FILTERS}
                actions={actions}
                empty="No order today. Orders placed through the API, a strategy or the order ticket show here."
                toolbar={
                  <Button
                    color="red"
                    variant="light"
                    disabled={working === 0}
                    onClick={() => setCancellingAll(true)}
                  >
                    Cancel all open orders
                  </Button>
                }
              />
            )}
          </Card>
        </Stack>
      </DeskGate>

      <Modal
        opened={modifying !== undefined}
        onClose={() => setModifying(undefined)}
        title={modifying ? `Modify order ${modifying.orderid}` : 'Modify order'}
        size="lg"
      >
        {modifying && (
          <ModifyForm
            key={modifying.orderid}
            order={modifying}
            onClose={() => setModifying(undefined)}
            onDone={(o) => {
              setModifying(undefined);
              setOutcome(o);
            }}
          />
        )}
      </Modal>
      <ConfirmModal
        opened={cancelling !== undefined}
        title="Cancel this order?"
        confirmLabel="Cancel order"
        pending={cancel.isPending}
        error={cancel.error}
        onConfirm={() => cancelling && cancel.mutate(cancelling)}
        onClose={() => {
          setCancelling(undefined);
          cancel.reset();
        }}
      >
        {cancelling && (
          <Text>
            Order <code>{cancelling.orderid}</code>:{' '}
            <span style={sideStyle(cancelling.action)}>{cancelling.action}</span>{' '}
            {formatCount(cancelling.quantity)} <strong>{cancelling.symbol}</strong> ({cancelling.exchange},{' '}
            {cancelling.pricetype}
            {hasLimitPrice(cancelling.pricetype) ? ` at ₹${formatPrice(cancelling.price)}` : ''}). It stops
            working and the margin it blocked is released.
          </Text>
        )}
      </ConfirmModal>
      <ConfirmModal
        opened={cancellingAll}
        title="Cancel every open order?"
        confirmLabel="Cancel all"
        pending={cancelAll.isPending}
        error={cancelAll.error}
        onConfirm={() => cancelAll.mutate()}
        onClose={() => {
          setCancellingAll(false);
          cancelAll.reset();
        }}
      >
        <Text>
          {working === 1 ? 'The 1 open order' : `All ${formatCount(working)} open orders`} (open or waiting
          for a trigger) are cancelled. Completed, rejected and cancelled orders stay as they are.
        </Text>
      </ConfirmModal>
    </Container>
  );
}
