/**
 * `/positions`: the signed-in user's net positions as `/api/v1/positionbook` answers them
 * (docs/rules/web.md#desk-calls and #desk-books), refreshed by the live socket, its open positions'
 * prices and P&L ticking with the live feed (docs/rules/web.md#live-prices); sortable, filterable, exported as
 * CSV. An open position is closed with `placesmartorder` and a target `position_size` of 0 (one
 * MARKET order for the difference, docs/rules/orders.md#smart-and-basket-orders); every open
 * position at once with `closeposition`. Each after a confirmation, with the server's answer shown.
 * In analyzer mode the rows carry their fills' charges: a Charges and a Net P&L column (the P&L
 * less the charges, moving with the live P&L) show them (docs/rules/sandbox.md#charges-booked);
 * live mode's rows have none, and the columns are left out.
 */
import { Button, Card, Container, Group, Stack, Text, Title } from '@mantine/core';
import { useCallback, useMemo, useState } from 'react';
import { closingAction } from '../../../../src/domain/orders';
import { useDeskQuery } from '../../api/desk';
import { useLive } from '../../api/live';
import { ConfirmModal, OutcomeAlert, type Outcome } from '../../components/BookActions';
import { RowButton } from '../../components/BookGrid';
import { BookTable, type BookColumn, type BookFilter } from '../../components/BookTable';
import { DeskGate } from '../../components/DeskGate';
import { LiveStatus, PricesStale } from '../../components/LiveStatus';
import { ErrorState, Loading } from '../../components/states';
import { useCloseAllPositionsMutation, useClosePositionMutation } from '../../features/desk/api/orders';
import { useMarkedPositions, type Position } from '../../features/desk/live-marks';
import {
  formatCount,
  formatMoney,
  formatPrice,
  formatRupees,
  formatSignedMoney,
  formatSignedRupees,
} from '../../format-number';

const keyOf = (p: Position) => `${p.exchange}:${p.symbol}:${p.product}`;
const sideOf = (p: Position) => (p.quantity > 0 ? 'Long' : p.quantity < 0 ? 'Short' : 'Closed');
const pnlStyle = (v: number) => ({
  color: v > 0 ? 'var(--mantine-color-teal-8)' : v < 0 ? 'var(--mantine-color-red-8)' : undefined,
});
const money = (get: (p: Position) => number, signed = false) => ({
  value: get,
  render: (p: Position) => {
    const v = get(p);
    return signed ? <span style={pnlStyle(v)}>{formatSignedMoney(v)}</span> : formatPrice(v);
  },
  numeric: true,
});

// On a phone the card leads with the symbol, then quantity, LTP and P&L (docs/rules/web.md#phone-width).
const COLUMNS: BookColumn<Position>[] = [
  {
    key: 'symbol',
    label: 'Symbol',
    value: (p) => p.symbol,
    render: (p) => <strong>{p.symbol}</strong>,
    phone: 'lead',
  },
  { key: 'exchange', label: 'Exchange', value: (p) => p.exchange, phone: 9 },
  { key: 'product', label: 'Product', value: (p) => p.product, phone: 8 },
  { key: 'side', label: 'Side', value: sideOf, phone: 7 },
  {
    key: 'quantity',
    label: 'Net quantity',
    value: (p) => p.quantity,
    render: (p) => formatCount(p.quantity),
    numeric: true,
    phone: 1,
  },
  { key: 'average_price', label: 'Avg. price', ...money((p) => p.average_price), phone: 4 },
  { key: 'ltp', label: 'LTP', ...money((p) => p.ltp), phone: 2 },
  { key: 'realized_pnl', label: 'Realised P&L', ...money((p) => p.realized_pnl, true), phone: 5 },
  { key: 'unrealized_pnl', label: 'Unrealised P&L', ...money((p) => p.unrealized_pnl, true), phone: 6 },
  { key: 'pnl', label: 'P&L', ...money((p) => p.pnl, true), phone: 3 },
];

/** The P&L less the fills' charges, to the paisa (the positionbook's `net_pnl`, at the live P&L). */
const netOf = (p: Position) => Math.round((p.pnl - (p.charges ?? 0)) * 100) / 100;

// The sandbox's charges (analyzer mode): after the P&L; on a phone the net beside the P&L.
const WITH_CHARGES: BookColumn<Position>[] = [
  ...COLUMNS,
  {
    key: 'charges',
    label: 'Charges',
    value: (p) => p.charges ?? 0,
    render: (p) => formatMoney(p.charges ?? 0),
    numeric: true,
    phone: 6,
  },
  { key: 'net_pnl', label: 'Net P&L', ...money(netOf, true), phone: 3 },
];

const FILTERS: BookFilter<Position>[] = [
  { key: 'side', label: 'Side', value: sideOf, options: ['Long', 'Short', 'Closed'] },
  { key: 'exchange', label: 'Exchange', value: (p) => p.exchange },
  { key: 'product', label: 'Product', value: (p) => p.product },
];

export default function PositionsPage() {
  const live = useLive();
  const book = useDeskQuery('positionbook', { refetchInterval: live.refetchInterval });
  const [outcome, setOutcome] = useState<Outcome>();
  const [closing, setClosing] = useState<Position>();
  const [closingAll, setClosingAll] = useState(false);

  const close = useClosePositionMutation({
    onSuccess: (a, p) => {
      setClosing(undefined);
      setOutcome({
        ok: true,
        message: a.orderid
          ? `Closing order ${a.orderid} placed for ${p.symbol} (${closingAction(p.quantity)} ${Math.abs(p.quantity)} at market).`
          : (a.message ?? `Nothing to close for ${p.symbol}.`),
      });
    },
  });
  const closeAll = useCloseAllPositionsMutation({
    onSuccess: (a) => {
      setClosingAll(false);
      setOutcome({ ok: (a.failed_closures ?? 0) === 0, message: a.message });
    },
  });

  const actions = useCallback(
    (p: Position) =>
      p.quantity !== 0 ? (
        <RowButton
          tone="red"
          label={`Close ${p.symbol} ${p.exchange} ${p.product}`}
          onClick={() => setClosing(p)}
        >
          Close
        </RowButton>
      ) : null,
    [],
  );

  // The open positions' prices tick between order events (docs/rules/web.md#live-prices).
  const ticks = useMarkedPositions(book.data?.data);
  const rows = ticks.rows;
  const open = rows?.filter((p) => p.quantity !== 0).length ?? 0;
  const total = rows?.reduce((s, p) => s + p.pnl, 0) ?? 0;
  // Analyzer mode's rows carry charges; live mode's do not (the columns are left out).
  const charged = rows?.some((p) => p.charges !== undefined) ?? false;
  const charges = rows?.reduce((s, p) => s + (p.charges ?? 0), 0) ?? 0;
  const columns = useMemo(() => (charged ? WITH_CHARGES : COLUMNS), [charged]);
  const cents = (v: number) => Math.round(v * 100) / 100;

  return (
    <Container fluid>
      <Group justify="space-between" mb="md">
        <Title order={1} size="h2">
          Positions
        </Title>
        <Group gap="xs">
          {ticks.stale && <PricesStale />}
          <LiveStatus state={live.state} />
        </Group>
      </Group>
      <DeskGate>
        <Stack gap="md">
          {rows && rows.length > 0 && (
            <Group gap="lg">
              <Text size="sm">Open positions: {formatCount(open)}</Text>
              <Text size="sm" data-testid="positions-total-pnl">
                Total P&L: <span style={pnlStyle(total)}>{formatSignedRupees(cents(total))}</span>
              </Text>
              {charged && (
                <>
                  <Text size="sm" data-testid="positions-charges">
                    Charges: {formatRupees(cents(charges))}
                  </Text>
                  <Text size="sm" data-testid="positions-net-pnl">
                    Net P&L:{' '}
                    <span style={pnlStyle(total - charges)}>
                      {formatSignedRupees(cents(total - charges))}
                    </span>
                  </Text>
                </>
              )}
            </Group>
          )}
          <OutcomeAlert outcome={outcome} onClose={() => setOutcome(undefined)} />
          <Card withBorder p={{ base: 'xs', sm: 'md' }}>
            {book.isPending && <Loading label="Loading the positions…" />}
            {book.isError && <ErrorState error={book.error} title="The positions could not be loaded" />}
            {rows && (
              <BookTable
                label="Positions"
                noun={['position', 'positions']}
                rows={rows}
                columns={columns}
                rowKey={keyOf}
                filters={FILTERS}
                actions={actions}
                empty="No position today. Filled orders net into positions here."
                toolbar={
                  <Button
                    color="red"
                    variant="light"
                    disabled={open === 0}
                    onClick={() => setClosingAll(true)}
                  >
                    Close all positions
                  </Button>
                }
              />
            )}
          </Card>
        </Stack>
      </DeskGate>

      <ConfirmModal
        opened={closing !== undefined}
        title="Close this position?"
        confirmLabel="Close position"
        pending={close.isPending}
        error={close.error}
        onConfirm={() => closing && close.mutate(closing)}
        onClose={() => {
          setClosing(undefined);
          close.reset();
        }}
      >
        {closing && (
          <Text>
            {sideOf(closing)} {formatCount(Math.abs(closing.quantity))} <strong>{closing.symbol}</strong> (
            {closing.exchange}, {closing.product}): a MARKET order to {closingAction(closing.quantity)}{' '}
            {formatCount(Math.abs(closing.quantity))} is placed now and fills at the market price.
          </Text>
        )}
      </ConfirmModal>
      <ConfirmModal
        opened={closingAll}
        title="Close every open position?"
        confirmLabel="Close all"
        pending={closeAll.isPending}
        error={closeAll.error}
        onConfirm={() => closeAll.mutate()}
        onClose={() => {
          setClosingAll(false);
          closeAll.reset();
        }}
      >
        <Text>
          {`A MARKET order is placed against ${open === 1 ? 'the 1 open position' : `each of the ${open} open positions`}, less what working orders on the other side already close.`}
        </Text>
      </ConfirmModal>
    </Container>
  );
}
