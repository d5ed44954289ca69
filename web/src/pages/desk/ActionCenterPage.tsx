/**
 * `/action-center`: the orders a key in semi-automatic mode queued for the user's decision
 * (docs/rules/orders.md#action-center, docs/rules/web.md#desk-books) — pending, approved and rejected, one tab each. A pending
 * order is approved (placed now, in the mode the service is in), rejected with a reason (1-500
 * characters, kept with it) or deleted; all pending orders approved at once, oldest first. Each
 * after a confirmation, with the server's answer shown. The lists refresh when the live socket
 * says the queue changed (docs/rules/orders.md#live-socket).
 */
import { Badge, Button, Card, Container, Group, Modal, Stack, Tabs, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Tabs.css';
import { useCallback, useState } from 'react';
import { useLive } from '../../api/live';
import { ConfirmModal, OutcomeAlert, type Outcome } from '../../components/BookActions';
import { RowButton } from '../../components/BookGrid';
import { BookTable } from '../../components/BookTable';
import { LiveStatus } from '../../components/LiveStatus';
import { ErrorState, Loading } from '../../components/states';
import {
  useApproveAllMutation,
  useApproveMutation,
  useDeletePendingMutation,
  usePendingOrders,
} from '../../features/desk/api/action-center';
import { COLUMNS, EMPTY, FILTERS } from './action-center/columns';
import { OrdersTab } from './action-center/OrdersTab';
import { approvedMessage, orderText, type PendingOrder, type Status } from './action-center/queue';
import { RejectForm } from './action-center/RejectForm';

export default function ActionCenterPage() {
  const live = useLive();
  const [tab, setTab] = useState<Status>('pending');
  const [outcome, setOutcome] = useState<Outcome>();
  const [approving, setApproving] = useState<PendingOrder>();
  const [rejecting, setRejecting] = useState<PendingOrder>();
  const [deleting, setDeleting] = useState<PendingOrder>();
  const [approvingAll, setApprovingAll] = useState(false);
  // The socket says when the queue changes (docs/rules/orders.md#live-socket): no polling while it is up.
  const pending = usePendingOrders('pending', live.refetchInterval);

  const approve = useApproveMutation({
    onSuccess: (a, p) => {
      setApproving(undefined);
      setOutcome(approvedMessage(p.id, a.result));
    },
  });
  const approveAll = useApproveAllMutation({
    onSuccess: (a) => {
      setApprovingAll(false);
      const refused = a.results.filter((r) => r.body.status !== 'success');
      setOutcome({
        ok: refused.length === 0,
        message:
          refused.length === 0
            ? `${a.message}.`
            : `${a.message}; ${refused.length} refused: ${refused.map((r) => `${r.id}: ${r.body.message ?? r.status}`).join('; ')}`,
      });
    },
  });
  const remove = useDeletePendingMutation({
    onSuccess: (a) => {
      setDeleting(undefined);
      setOutcome({ ok: true, message: a.message });
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
        <Card withBorder p={{ base: 'xs', sm: 'md' }}>
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
