/**
 * `/orderbook`: the signed-in user's orders as `/api/v1/orderbook` answers them (the sandbox in
 * analyzer mode, the broker in live mode; docs/rules/web.md#desk-calls and #desk-books) with its statistics,
 * refreshed by the live socket. Sortable and filterable, exported as CSV; a working order can be
 * modified (a form with its fields) or cancelled, and every working order cancelled at once, each
 * after a confirmation, with the server's answer shown.
 */
import {
  Button,
  Card,
  Container,
  Group,
  Modal,
  NativeSelect,
  NumberInput,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState, type FormEvent } from 'react';
import { hasLimitPrice, hasTriggerPrice, PRICE_TYPES, type PriceType } from '../../../../src/domain/orders';
import { fieldError, onlyFieldErrors } from '../../api/client';
import { desk, DESK_KEY, useDeskQuery, type DeskAnswer, type DeskBody } from '../../api/desk';
import { useLive } from '../../api/live';
import {
  BookTable,
  ConfirmModal,
  OutcomeAlert,
  priceOrDash,
  RowButton,
  rupees,
  type BookColumn,
  type BookFilter,
  type Outcome,
} from '../../components/BookTable';
import { DeskGate } from '../../components/DeskGate';
import { LiveStatus } from '../../components/LiveStatus';
import { ErrorState, Loading } from '../../components/states';

type Order = DeskAnswer<'orderbook'>['data']['orders'][number];

const WORKING = new Set(['open', 'trigger pending']);
const isWorking = (o: Order) => WORKING.has(o.order_status);
const STATUSES = ['open', 'trigger pending', 'complete', 'cancelled', 'rejected'] as const;

const sideStyle = (action: string) => ({
  color: action === 'BUY' ? 'var(--mantine-color-teal-8)' : 'var(--mantine-color-red-8)',
  fontWeight: 600,
});

const COLUMNS: BookColumn<Order>[] = [
  {
    key: 'timestamp',
    label: 'Time',
    value: (o) => o.timestamp,
    // The book is the day's: the time is enough on screen (the CSV keeps the date).
    render: (o) => <span title={o.timestamp}>{o.timestamp.slice(11)}</span>,
  },
  { key: 'orderid', label: 'Order id', value: (o) => o.orderid },
  {
    key: 'symbol',
    label: 'Symbol',
    value: (o) => o.symbol,
    // The exchange beside the symbol (its own column in the CSV): the book has many columns.
    render: (o) => (
      <span style={{ whiteSpace: 'nowrap' }}>
        <strong>{o.symbol}</strong>{' '}
        <small style={{ color: 'var(--mantine-color-dimmed)' }}>{o.exchange}</small>
      </span>
    ),
  },
  { key: 'exchange', label: 'Exchange', value: (o) => o.exchange, csvOnly: true },
  {
    key: 'action',
    label: 'Side',
    value: (o) => o.action,
    render: (o) => <span style={sideStyle(o.action)}>{o.action}</span>,
  },
  { key: 'pricetype', label: 'Type', value: (o) => o.pricetype },
  { key: 'product', label: 'Product', value: (o) => o.product },
  {
    key: 'filled',
    label: 'Filled / qty',
    value: (o) => o.quantity,
    render: (o) => `${o.filled_quantity} / ${o.quantity}`,
    numeric: true,
    screenOnly: true,
  },
  { key: 'quantity', label: 'Quantity', value: (o) => o.quantity, csvOnly: true },
  { key: 'filled_quantity', label: 'Filled', value: (o) => o.filled_quantity, csvOnly: true },
  { key: 'pending_quantity', label: 'Pending quantity', value: (o) => o.pending_quantity, csvOnly: true },
  { key: 'price', label: 'Price', value: (o) => o.price, render: (o) => rupees(o.price), numeric: true },
  {
    key: 'trigger_price',
    label: 'Trigger',
    value: (o) => o.trigger_price,
    render: (o) => priceOrDash(o.trigger_price),
    numeric: true,
  },
  {
    key: 'average_price',
    label: 'Avg. price',
    value: (o) => o.average_price,
    render: (o) => priceOrDash(o.average_price),
    numeric: true,
  },
  {
    key: 'order_status',
    label: 'Status',
    value: (o) => o.order_status,
    render: (o) => (
      <>
        <span data-testid="order-status">{o.order_status}</span>
        {o.rejection_reason && (
          <Text size="xs" c="dimmed" maw={220} lineClamp={2} title={o.rejection_reason}>
            {o.rejection_reason}
          </Text>
        )}
      </>
    ),
  },
  { key: 'rejection_reason', label: 'Reason', value: (o) => o.rejection_reason, csvOnly: true },
  { key: 'strategy', label: 'Strategy', value: (o) => o.strategy, csvOnly: true },
];

const FILTERS: BookFilter<Order>[] = [
  { key: 'status', label: 'Status', value: (o) => o.order_status, options: STATUSES },
  { key: 'action', label: 'Side', value: (o) => o.action },
  { key: 'exchange', label: 'Exchange', value: (o) => o.exchange },
  { key: 'product', label: 'Product', value: (o) => o.product },
];

const MODIFY_FIELDS = ['pricetype', 'quantity', 'price', 'trigger_price', 'disclosed_quantity'];

const num = (v: number | string) => (typeof v === 'number' ? v : Number(v));

/** The modify form of one working order: its fields, prefilled; the server checks them. */
function ModifyForm({
  order,
  onDone,
  onClose,
}: {
  order: Order;
  onDone: (o: Outcome) => void;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const [pricetype, setPricetype] = useState<PriceType>(order.pricetype);
  const [quantity, setQuantity] = useState<number | string>(order.quantity);
  const [price, setPrice] = useState<number | string>(order.price);
  const [trigger, setTrigger] = useState<number | string>(order.trigger_price);
  const [disclosed, setDisclosed] = useState<number | string>(0);
  const modify = useMutation({
    mutationFn: () =>
      desk('modifyorder', {
        orderid: order.orderid,
        symbol: order.symbol,
        exchange: order.exchange,
        action: order.action,
        product: order.product,
        pricetype,
        quantity: num(quantity),
        price: hasLimitPrice(pricetype) ? num(price) : 0,
        trigger_price: hasTriggerPrice(pricetype) ? num(trigger) : 0,
        disclosed_quantity: num(disclosed || 0),
        ...(order.strategy ? { strategy: order.strategy } : {}),
      } as DeskBody<'modifyorder'>),
    onSuccess: async (a) => {
      await qc.invalidateQueries({ queryKey: DESK_KEY });
      onDone({ ok: true, message: a.message ?? `Order ${a.orderid} modified.` });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    modify.mutate();
  };
  const err = modify.error;
  return (
    <form onSubmit={submit} noValidate aria-label={`Modify order ${order.orderid}`}>
      <Stack>
        <Text>
          <span style={sideStyle(order.action)}>{order.action}</span> <strong>{order.symbol}</strong> on{' '}
          {order.exchange}, {order.product}. Symbol, exchange, side and product stay as they are.
        </Text>
        {err && !onlyFieldErrors(err, MODIFY_FIELDS) && <ErrorState error={err} title="Not modified" />}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NativeSelect
            label="Price type"
            data={[...PRICE_TYPES]}
            value={pricetype}
            onChange={(e) => setPricetype(e.currentTarget.value as PriceType)}
            error={fieldError(err, 'pricetype')}
          />
          <NumberInput
            label="Quantity"
            required
            withAsterisk={false}
            allowDecimal={false}
            allowNegative={false}
            clampBehavior="none"
            value={quantity}
            onChange={setQuantity}
            error={fieldError(err, 'quantity')}
          />
          <NumberInput
            label="Price"
            required
            withAsterisk={false}
            disabled={!hasLimitPrice(pricetype)}
            description={hasLimitPrice(pricetype) ? undefined : `${pricetype} orders carry no limit price`}
            allowNegative={false}
            decimalScale={4}
            clampBehavior="none"
            value={price}
            onChange={setPrice}
            error={fieldError(err, 'price')}
          />
          <NumberInput
            label="Trigger price"
            required
            withAsterisk={false}
            disabled={!hasTriggerPrice(pricetype)}
            description={hasTriggerPrice(pricetype) ? undefined : `${pricetype} orders carry no trigger`}
            allowNegative={false}
            decimalScale={4}
            clampBehavior="none"
            value={trigger}
            onChange={setTrigger}
            error={fieldError(err, 'trigger_price')}
          />
          <NumberInput
            label="Disclosed quantity (optional)"
            allowDecimal={false}
            allowNegative={false}
            clampBehavior="none"
            value={disclosed}
            onChange={setDisclosed}
            error={fieldError(err, 'disclosed_quantity')}
          />
        </SimpleGrid>
        <Group>
          <Button type="submit" loading={modify.isPending}>
            Modify order
          </Button>
          <Button variant="default" onClick={onClose}>
            Back
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export default function OrderbookPage() {
  const live = useLive();
  const book = useDeskQuery('orderbook', { refetchInterval: live.refetchInterval });
  const qc = useQueryClient();
  const [outcome, setOutcome] = useState<Outcome>();
  const [modifying, setModifying] = useState<Order>();
  const [cancelling, setCancelling] = useState<Order>();
  const [cancellingAll, setCancellingAll] = useState(false);

  const refresh = () => qc.invalidateQueries({ queryKey: DESK_KEY });
  const cancel = useMutation({
    mutationFn: (o: Order) => desk('cancelorder', { orderid: o.orderid }),
    onSuccess: async (a) => {
      setCancelling(undefined);
      setOutcome({ ok: true, message: a.message ?? `Order ${a.orderid} cancelled.` });
      await refresh();
    },
  });
  const cancelAll = useMutation({
    mutationFn: () => desk('cancelallorder', {}),
    onSuccess: async (a) => {
      setCancellingAll(false);
      const failed = a.failed_cancellations.map((f) => `${f.orderid}: ${f.message}`).join('; ');
      setOutcome({
        ok: a.failed_cancellations.length === 0,
        message: failed ? `${a.message} ${failed}` : a.message,
      });
      await refresh();
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
              <Text size="sm">Buy orders: {stats.total_buy_orders}</Text>
              <Text size="sm">Sell orders: {stats.total_sell_orders}</Text>
              <Text size="sm">Open: {stats.total_open_orders}</Text>
              <Text size="sm">Completed: {stats.total_completed_orders}</Text>
              <Text size="sm">Rejected: {stats.total_rejected_orders}</Text>
            </Group>
          )}
          <OutcomeAlert outcome={outcome} onClose={() => setOutcome(undefined)} />
          <Card withBorder>
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
            <span style={sideStyle(cancelling.action)}>{cancelling.action}</span> {cancelling.quantity}{' '}
            <strong>{cancelling.symbol}</strong> ({cancelling.exchange}, {cancelling.pricetype}
            {hasLimitPrice(cancelling.pricetype) ? ` at ₹${rupees(cancelling.price)}` : ''}). It stops working
            and the margin it blocked is released.
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
          {working === 1 ? 'The 1 open order' : `All ${working} open orders`} (open or waiting for a trigger)
          are cancelled. Completed, rejected and cancelled orders stay as they are.
        </Text>
      </ConfirmModal>
    </Container>
  );
}
