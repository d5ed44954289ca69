/**
 * `/gtt`: the signed-in user's active GTT orders as `gttorderbook` answers them (the sandbox in
 * analyzer mode, the broker in live mode; docs/rules/web.md#gtt-page and #desk-calls), refreshed
 * after each change and on every live order event (a GTT that fires places an order). A new GTT is
 * placed from a form; an active one is modified (a prefilled form) or cancelled after a
 * confirmation, with the server's answer shown.
 */
import { Button, Card, Container, Group, Modal, Stack, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useCallback, useMemo, useState } from 'react';
import { useMode } from '../../api/auth';
import { useDeskReady } from '../../api/desk';
import { useLive } from '../../api/live';
import { ConfirmModal, OutcomeAlert, type Outcome } from '../../components/BookActions';
import { RowButton } from '../../components/BookGrid';
import { BookTable } from '../../components/BookTable';
import { DeskGate } from '../../components/DeskGate';
import { LiveStatus } from '../../components/LiveStatus';
import { ErrorState, Loading } from '../../components/states';
import { useCancelGttMutation, useGttBook, type Gtt } from '../../features/gtt/api/gtt';
import { formatCount, formatRupees } from '../../format-number';
import { COLUMNS, FILTERS, WITH_MARGIN } from './gtt/columns';
import { GttForm } from './gtt/GttForm';
import { limitsText, triggersText } from './gtt/gtt-model';
import { sideStyle } from './orderbook/columns';

/** Below the component kit's `sm` breakpoint: a phone (the form takes the whole screen). */
const PHONE = '(max-width: 47.99em)';

export default function GttPage() {
  const live = useLive();
  const book = useGttBook(live.refetchInterval);
  const { ready } = useDeskReady();
  const mode = useMode(true);
  const phone = useMediaQuery(PHONE, false, { getInitialValueInEffect: false });
  const [outcome, setOutcome] = useState<Outcome>();
  const [creating, setCreating] = useState(false);
  const [modifying, setModifying] = useState<Gtt>();
  const [cancelling, setCancelling] = useState<Gtt>();

  const cancel = useCancelGttMutation({
    onRefreshed: (a) => {
      setCancelling(undefined);
      setOutcome({ ok: true, message: `GTT ${a.trigger_id} cancelled.` });
    },
  });

  const actions = useCallback(
    (g: Gtt) => (
      <>
        <RowButton label={`Modify GTT ${g.trigger_id}`} onClick={() => setModifying(g)}>
          Modify
        </RowButton>
        <RowButton tone="red" label={`Cancel GTT ${g.trigger_id}`} onClick={() => setCancelling(g)}>
          Cancel
        </RowButton>
      </>
    ),
    [],
  );

  const rows = book.data?.data;
  // Analyzer mode's rows carry the margin each reserves; live mode's do not (the column is left out).
  const reserving = rows?.some((g) => g.margin_blocked !== undefined) ?? false;
  const reserved = rows?.reduce((sum, g) => sum + (g.margin_blocked ?? 0), 0) ?? 0;
  const columns = useMemo(() => (reserving ? WITH_MARGIN : COLUMNS), [reserving]);
  const analyze = mode.data?.analyze_mode === true;
  const done = (o: Outcome) => {
    setCreating(false);
    setModifying(undefined);
    setOutcome(o);
  };

  return (
    <Container fluid>
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={1} size="h2">
          GTT orders
        </Title>
        <Group gap="sm">
          <LiveStatus state={live.state} />
          <Button onClick={() => setCreating(true)} disabled={!ready}>
            New GTT
          </Button>
        </Group>
      </Group>
      <Text c="dimmed" size="sm" mb="md">
        A GTT (good till triggered) waits — up to a year — until the price reaches its trigger, then places
        its order. A single GTT has one trigger; an OCO has a stoploss below the price and a target above it,
        and the one reached first places its order.
        {analyze ? ' In the sandbox each reserves the margin of the order it would place.' : ''}
      </Text>
      <DeskGate>
        <Stack gap="md">
          {rows && rows.length > 0 && (
            <Group gap="lg" data-testid="gtt-summary">
              <Text size="sm">Active: {formatCount(rows.length)}</Text>
              {reserving && <Text size="sm">Margin reserved: {formatRupees(reserved)}</Text>}
            </Group>
          )}
          <OutcomeAlert outcome={outcome} onClose={() => setOutcome(undefined)} />
          <Card withBorder p={{ base: 'xs', sm: 'md' }}>
            {book.isPending && <Loading label="Loading the GTT orders…" />}
            {book.isError && <ErrorState error={book.error} title="The GTT orders could not be loaded" />}
            {rows && (
              <BookTable
                label="GTT orders"
                noun={['GTT', 'GTTs']}
                rows={rows}
                columns={columns}
                rowKey={(g) => g.trigger_id}
                filters={FILTERS}
                actions={actions}
                empty="No active GTT. Place one with “New GTT”: it waits for its trigger price."
              />
            )}
          </Card>
        </Stack>
      </DeskGate>

      <Modal
        opened={creating}
        onClose={() => setCreating(false)}
        title="New GTT"
        size="lg"
        fullScreen={phone}
      >
        {creating && <GttForm onDone={done} onClose={() => setCreating(false)} />}
      </Modal>
      <Modal
        opened={modifying !== undefined}
        onClose={() => setModifying(undefined)}
        title={modifying ? `Modify GTT ${modifying.trigger_id}` : 'Modify GTT'}
        size="lg"
        fullScreen={phone}
      >
        {modifying && (
          <GttForm
            key={modifying.trigger_id}
            gtt={modifying}
            onDone={done}
            onClose={() => setModifying(undefined)}
          />
        )}
      </Modal>
      <ConfirmModal
        opened={cancelling !== undefined}
        title="Cancel this GTT?"
        confirmLabel="Cancel GTT"
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
            GTT <code>{cancelling.trigger_id}</code>:{' '}
            <span style={sideStyle(cancelling.legs[0]?.action ?? '')}>{cancelling.legs[0]?.action}</span>{' '}
            {formatCount(cancelling.legs[0]?.quantity)} <strong>{cancelling.symbol}</strong> (
            {cancelling.exchange}), {triggersText(cancelling)}, limit {limitsText(cancelling)}. It stops
            waiting and places nothing
            {cancelling.margin_blocked !== undefined ? '; the margin it reserves is released' : ''}.
          </Text>
        )}
      </ConfirmModal>
    </Container>
  );
}
