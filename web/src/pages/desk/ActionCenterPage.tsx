/**
 * `/action-center`: the orders a key in semi-automatic mode queued for the user's decision
 * (docs/rules/orders.md#action-center, docs/rules/web.md#desk-books) — pending, approved and rejected, one tab each. A pending
 * order is approved (placed now, in the mode the service is in), rejected with a reason (1-500
 * characters, kept with it) or deleted; all pending orders approved at once, oldest first. Each
 * after a confirmation, with the server's answer shown. The lists refresh when the live socket
 * says the queue changed (docs/rules/orders.md#live-socket).
 */
import {
  Badge,
  Button,
  Card,
  Container,
  Group,
  Modal,
  Stack,
  Tabs,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/Tabs.css';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState, type FormEvent } from 'react';
import { api, fieldError } from '../../api/client';
import { useLive } from '../../api/live';
import {
  BookTable,
  ConfirmModal,
  OutcomeAlert,
  RowButton,
  rupees,
  type BookColumn,
  type BookFilter,
  type Outcome,
} from '../../components/BookTable';
import { LiveStatus } from '../../components/LiveStatus';
import { ErrorState, Loading } from '../../components/states';

type Status = 'pending' | 'approved' | 'rejected';

/** A queued order as `GET /action-center/api/orders` lists it (action-center.service.ts `toView`). */
interface PendingOrder {
  id: number;
  api_type: string;
  order: {
    strategy: string;
    symbol: string;
    exchange: string;
    action: string;
    quantity: number;
    pricetype: string;
    product: string;
    price: string;
    trigger_price: string;
    disclosed_quantity: string;
    splitsize?: number;
  };
  status: Status;
  reason: string | null;
  orderid: string | null;
  /** The placement's answer, with its HTTP status (approved orders). */
  response: { http_status?: number; status?: string; message?: string; orderid?: string } | null;
  created_at: string;
  decided_at: string | null;
}
interface ListAnswer {
  status: 'success';
  data: PendingOrder[];
}
interface ApproveAnswer {
  message: string;
  http_status: number;
  result: { status: string; orderid?: string; message?: string };
}
interface ApproveAllAnswer {
  message: string;
  results: Array<{
    id: number;
    status: number;
    body: { status: string; orderid?: string; message?: string };
  }>;
}

const KEY = 'action-center';

const ist = (iso: string | null) =>
  iso
    ? new Date(iso).toLocaleString('en-IN', {
        timeZone: 'Asia/Kolkata',
        hour12: false,
        day: '2-digit',
        month: 'short',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
    : '';

const sideStyle = (action: string) => ({
  color: action === 'BUY' ? 'var(--mantine-color-teal-8)' : 'var(--mantine-color-red-8)',
  fontWeight: 600,
});

const priceOf = (o: PendingOrder['order']) =>
  o.pricetype === 'LIMIT' || o.pricetype === 'SL' ? `₹${rupees(Number(o.price))}` : 'market';

/** The columns every tab shares: the order itself. */
const ORDER_COLUMNS: BookColumn<PendingOrder>[] = [
  { key: 'id', label: 'Id', value: (p) => p.id, numeric: true },
  {
    key: 'symbol',
    label: 'Symbol',
    value: (p) => p.order.symbol,
    render: (p) => <strong>{p.order.symbol}</strong>,
  },
  { key: 'exchange', label: 'Exchange', value: (p) => p.order.exchange },
  {
    key: 'action',
    label: 'Side',
    value: (p) => p.order.action,
    render: (p) => <span style={sideStyle(p.order.action)}>{p.order.action}</span>,
  },
  { key: 'quantity', label: 'Quantity', value: (p) => p.order.quantity, numeric: true },
  { key: 'pricetype', label: 'Type', value: (p) => p.order.pricetype },
  {
    key: 'price',
    label: 'Price',
    value: (p) => Number(p.order.price),
    render: (p) => priceOf(p.order),
    numeric: true,
  },
  { key: 'trigger_price', label: 'Trigger', value: (p) => Number(p.order.trigger_price), csvOnly: true },
  { key: 'product', label: 'Product', value: (p) => p.order.product },
  { key: 'strategy', label: 'Strategy', value: (p) => p.order.strategy },
  { key: 'api_type', label: 'Via', value: (p) => p.api_type, csvOnly: true },
];

const QUEUED: BookColumn<PendingOrder> = {
  key: 'created_at',
  label: 'Queued',
  value: (p) => p.created_at,
  render: (p) => <span style={{ whiteSpace: 'nowrap' }}>{ist(p.created_at)}</span>,
};
const DECIDED: BookColumn<PendingOrder> = {
  key: 'decided_at',
  label: 'Decided',
  value: (p) => p.decided_at ?? '',
  render: (p) => <span style={{ whiteSpace: 'nowrap' }}>{ist(p.decided_at)}</span>,
};

const resultOf = (p: PendingOrder): string => {
  const r = p.response;
  if (!r) return 'placing…';
  if (r.status === 'success') return p.orderid ? `placed as order ${p.orderid}` : (r.message ?? 'placed');
  return `refused: ${r.message ?? `HTTP ${r.http_status ?? '?'}`}`;
};

const COLUMNS: Record<Status, BookColumn<PendingOrder>[]> = {
  pending: [QUEUED, ...ORDER_COLUMNS],
  approved: [
    QUEUED,
    DECIDED,
    ...ORDER_COLUMNS,
    {
      key: 'orderid',
      label: 'Order id',
      value: (p) => p.orderid ?? '',
      render: (p) => <code>{p.orderid}</code>,
    },
    { key: 'result', label: 'Result', value: resultOf },
  ],
  rejected: [
    QUEUED,
    DECIDED,
    ...ORDER_COLUMNS,
    { key: 'reason', label: 'Reason', value: (p) => p.reason ?? '' },
  ],
};

const FILTERS: BookFilter<PendingOrder>[] = [
  { key: 'action', label: 'Side', value: (p) => p.order.action },
  { key: 'exchange', label: 'Exchange', value: (p) => p.order.exchange },
];

const EMPTY: Record<Status, string> = {
  pending:
    'No order waiting. With the API key in semi-automatic mode, orders from your scripts wait here for your decision.',
  approved: 'No approved order yet.',
  rejected: 'No rejected order yet.',
};

function useOrders(status: Status, refetchInterval: number | false, enabled = true) {
  return useQuery({
    queryKey: [KEY, status],
    queryFn: () => {
      if (status === 'pending') return api<ListAnswer>('GET', '/action-center/api/orders?status=pending');
      if (status === 'approved') return api<ListAnswer>('GET', '/action-center/api/orders?status=approved');
      return api<ListAnswer>('GET', '/action-center/api/orders?status=rejected');
    },
    refetchInterval,
    enabled,
  });
}

const orderText = (p: PendingOrder) =>
  `${p.order.action} ${p.order.quantity} ${p.order.symbol} (${p.order.exchange}, ${p.order.product}, ${p.order.pricetype}${
    p.order.pricetype === 'LIMIT' || p.order.pricetype === 'SL' ? ` at ₹${rupees(Number(p.order.price))}` : ''
  })`;

function approvedMessage(id: number, r: ApproveAnswer['result']): Outcome {
  return r.status === 'success'
    ? {
        ok: true,
        message: r.orderid
          ? `Pending order ${id} approved: placed as order ${r.orderid}.`
          : `Pending order ${id} approved${r.message ? `: ${r.message}` : '.'}`,
      }
    : {
        ok: false,
        message: `Pending order ${id} approved, but the order was refused: ${r.message ?? 'no reason given'}`,
      };
}

/** The reject form: the reason is required and kept with the order. */
function RejectForm({
  order,
  onDone,
  onClose,
}: {
  order: PendingOrder;
  onDone: (o: Outcome) => void;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState(false);
  const reject = useMutation({
    mutationFn: () =>
      api<{ message: string }>('POST', `/action-center/api/orders/${order.id}/reject`, {
        reason: reason.trim(),
      }),
    onSuccess: async (a) => {
      await qc.invalidateQueries({ queryKey: [KEY] });
      onDone({ ok: true, message: a.message });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (reason.trim() === '') {
      setMissing(true);
      return;
    }
    reject.mutate();
  };
  const err = reject.error;
  return (
    <form onSubmit={submit} noValidate aria-label={`Reject pending order ${order.id}`}>
      <Stack>
        <Text>{orderText(order)} is not placed. The reason is kept with it.</Text>
        {err && !fieldError(err, 'reason') && <ErrorState error={err} title="Not rejected" />}
        <Textarea
          label="Reason"
          required
          withAsterisk={false}
          autosize
          minRows={2}
          maxLength={500}
          value={reason}
          onChange={(e) => {
            setReason(e.currentTarget.value);
            setMissing(false);
          }}
          error={missing ? 'Say why the order is rejected.' : fieldError(err, 'reason')}
          data-autofocus
        />
        <Group>
          <Button type="submit" color="red" loading={reject.isPending}>
            Reject order
          </Button>
          <Button variant="default" onClick={onClose}>
            Back
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function OrdersTab({ status, refetchInterval }: { status: Status; refetchInterval: number | false }) {
  const list = useOrders(status, refetchInterval);
  const label = `${status[0]!.toUpperCase()}${status.slice(1)} orders`;
  if (list.isPending) return <Loading label={`Loading the ${status} orders…`} />;
  if (list.isError)
    return <ErrorState error={list.error} title={`The ${status} orders could not be loaded`} />;
  return (
    <BookTable
      label={label}
      noun={[`${status} order`, `${status} orders`]}
      rows={list.data.data}
      columns={COLUMNS[status]}
      rowKey={(p) => String(p.id)}
      filters={FILTERS}
      empty={EMPTY[status]}
    />
  );
}

export default function ActionCenterPage() {
  const live = useLive();
  const qc = useQueryClient();
  const [tab, setTab] = useState<Status>('pending');
  const [outcome, setOutcome] = useState<Outcome>();
  const [approving, setApproving] = useState<PendingOrder>();
  const [rejecting, setRejecting] = useState<PendingOrder>();
  const [deleting, setDeleting] = useState<PendingOrder>();
  const [approvingAll, setApprovingAll] = useState(false);
  // The socket says when the queue changes (docs/rules/orders.md#live-socket): no polling while it is up.
  const pending = useOrders('pending', live.refetchInterval);
  const refresh = () => qc.invalidateQueries({ queryKey: [KEY] });

  const approve = useMutation({
    mutationFn: (p: PendingOrder) => api<ApproveAnswer>('POST', `/action-center/api/orders/${p.id}/approve`),
    onSuccess: async (a, p) => {
      setApproving(undefined);
      setOutcome(approvedMessage(p.id, a.result));
      await refresh();
    },
  });
  const approveAll = useMutation({
    mutationFn: () => api<ApproveAllAnswer>('POST', '/action-center/api/orders/approve-all'),
    onSuccess: async (a) => {
      setApprovingAll(false);
      const refused = a.results.filter((r) => r.body.status !== 'success');
      setOutcome({
        ok: refused.length === 0,
        message:
          refused.length === 0
            ? `${a.message}.`
            : `${a.message}; ${refused.length} refused: ${refused.map((r) => `${r.id}: ${r.body.message ?? r.status}`).join('; ')}`,
      });
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (p: PendingOrder) => api<{ message: string }>('DELETE', `/action-center/api/orders/${p.id}`),
    onSuccess: async (a) => {
      setDeleting(undefined);
      setOutcome({ ok: true, message: a.message });
      await refresh();
    },
  });

  const actions = useCallback(
    (p: PendingOrder) => (
      <>
        <RowButton tone="solid" label={`Approve pending order ${p.id}`} onClick={() => setApproving(p)}>
          Approve
        </RowButton>
        <RowButton tone="red" label={`Reject pending order ${p.id}`} onClick={() => setRejecting(p)}>
          Reject
        </RowButton>
        <RowButton tone="gray" label={`Delete pending order ${p.id}`} onClick={() => setDeleting(p)}>
          Delete
        </RowButton>
      </>
    ),
    [],
  );

  const waiting = pending.data?.data.length ?? 0;

  return (
    <Container fluid>
      <Group justify="space-between" mb="md">
        <Title order={1} size="h2">
          Action Center
        </Title>
        <LiveStatus state={live.state} />
      </Group>
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Orders your API key sends in semi-automatic mode wait here until you approve or reject them.
          Approved orders are placed at once, in the mode the service is in now.
        </Text>
        <OutcomeAlert outcome={outcome} onClose={() => setOutcome(undefined)} />
        <Card withBorder>
          <Tabs value={tab} onChange={(v) => setTab((v as Status | null) ?? 'pending')} keepMounted={false}>
            <Tabs.List mb="md">
              <Tabs.Tab
                value="pending"
                rightSection={
                  waiting > 0 ? (
                    <Badge size="sm" circle>
                      {waiting}
                    </Badge>
                  ) : undefined
                }
              >
                Pending
              </Tabs.Tab>
              <Tabs.Tab value="approved">Approved</Tabs.Tab>
              <Tabs.Tab value="rejected">Rejected</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="pending">
              {pending.isPending && <Loading label="Loading the pending orders…" />}
              {pending.isError && (
                <ErrorState error={pending.error} title="The pending orders could not be loaded" />
              )}
              {pending.data && (
                <BookTable
                  label="Pending orders"
                  noun={['pending order', 'pending orders']}
                  rows={pending.data.data}
                  columns={COLUMNS.pending}
                  rowKey={(p) => String(p.id)}
                  filters={FILTERS}
                  actions={actions}
                  empty={EMPTY.pending}
                  toolbar={
                    <Button disabled={waiting === 0} onClick={() => setApprovingAll(true)}>
                      Approve all
                    </Button>
                  }
                />
              )}
            </Tabs.Panel>
            <Tabs.Panel value="approved">
              <OrdersTab status="approved" refetchInterval={live.refetchInterval} />
            </Tabs.Panel>
            <Tabs.Panel value="rejected">
              <OrdersTab status="rejected" refetchInterval={live.refetchInterval} />
            </Tabs.Panel>
          </Tabs>
        </Card>
      </Stack>

      <ConfirmModal
        opened={approving !== undefined}
        title="Approve this order?"
        confirmLabel="Approve and place"
        color="blue"
        pending={approve.isPending}
        error={approve.error}
        onConfirm={() => approving && approve.mutate(approving)}
        onClose={() => {
          setApproving(undefined);
          approve.reset();
        }}
      >
        {approving && <Text>{orderText(approving)} is placed now.</Text>}
      </ConfirmModal>
      <ConfirmModal
        opened={approvingAll}
        title="Approve every pending order?"
        confirmLabel="Approve all"
        color="blue"
        pending={approveAll.isPending}
        error={approveAll.error}
        onConfirm={() => approveAll.mutate()}
        onClose={() => {
          setApprovingAll(false);
          approveAll.reset();
        }}
      >
        <Text>
          {waiting === 1 ? 'The 1 pending order is' : `All ${waiting} pending orders are`} placed now, oldest
          first.
        </Text>
      </ConfirmModal>
      <ConfirmModal
        opened={deleting !== undefined}
        title="Delete this pending order?"
        confirmLabel="Delete"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onClose={() => {
          setDeleting(undefined);
          remove.reset();
        }}
      >
        {deleting && (
          <Text>{orderText(deleting)} is removed from the queue without a decision on record.</Text>
        )}
      </ConfirmModal>
      <Modal
        opened={rejecting !== undefined}
        onClose={() => setRejecting(undefined)}
        title={rejecting ? `Reject pending order ${rejecting.id}` : 'Reject order'}
      >
        {rejecting && (
          <RejectForm
            key={rejecting.id}
            order={rejecting}
            onClose={() => setRejecting(undefined)}
            onDone={(o) => {
              setRejecting(undefined);
              setOutcome(o);
            }}
          />
        )}
      </Modal>
    </Container>
  );
}
