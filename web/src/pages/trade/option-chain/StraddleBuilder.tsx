/**
 * A straddle (the ATM call and put) or a strangle (a call and a put N strikes out of the money)
 * from the chain shown: bought or sold, in lots, NRML or MIS, at market. The legs show their live
 * LTPs and the combined premium; "Place basket" repeats the legs in a confirmation (naming the
 * broker and the risk in live mode, docs/rules/web.md#order-ticket) and sends them as one
 * `basketorder` (docs/rules/orders.md#smart-and-basket-orders), then shows each leg's answer.
 */
import {
  Alert,
  Button,
  Card,
  Group,
  NativeSelect,
  NumberInput,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useMemo, useState } from 'react';
import { ConfirmModal } from '../../../components/BookActions';
import { useConfirmingBrokerSession } from '../../../features/desk/api/orders';
import { formatCount, formatPrice, formatRupees } from '../../../format-number';
import {
  basketOrders,
  builderLegs,
  combinedPremium,
  type BuilderKind,
  type Chain,
} from '../../../features/market/option-chain-model';
import classes from './option-chain.module.css';
import { useBasket, type BasketAnswer } from '../../../features/market/api/option-chain';

const WIDTHS = [1, 2, 3, 4, 5];

function BrokerName() {
  const session = useConfirmingBrokerSession();
  const broker = session.data?.data?.broker;
  return broker ? <strong data-testid="basket-broker">{broker}</strong> : <>your broker</>;
}

export function StraddleBuilder({
  chain,
  exchange,
  ltpOf,
  mode,
}: {
  chain: Chain;
  /** Where the options trade (NFO or BFO). */
  exchange: string;
  ltpOf: (symbol: string) => number | null;
  mode: 'analyze' | 'live' | undefined;
}) {
  const [kind, setKind] = useState<BuilderKind>('straddle');
  const [width, setWidth] = useState(1);
  const [action, setAction] = useState<'BUY' | 'SELL'>('BUY');
  const [lots, setLots] = useState<number | string>(1);
  const [product, setProduct] = useState<'NRML' | 'MIS'>('NRML');
  const [confirming, setConfirming] = useState(false);
  const [answer, setAnswer] = useState<BasketAnswer>();
  const basket = useBasket((a) => {
    setConfirming(false);
    setAnswer(a);
  });

  const built = useMemo(() => builderLegs(chain, kind, width), [chain, kind, width]);
  const legs = 'legs' in built ? built.legs : [];
  const lotCount = typeof lots === 'number' && Number.isInteger(lots) && lots > 0 ? lots : null;
  const premium = lotCount === null ? null : combinedPremium(legs, ltpOf, lotCount);
  const orders = lotCount === null ? [] : basketOrders(legs, { action, lots: lotCount, product, exchange });

  return (
    <Card withBorder p={{ base: 'xs', sm: 'md' }} component="section" aria-labelledby="builder-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="builder-title">
          Straddle / strangle
        </Title>
        <Group gap="sm" align="flex-end">
          <NativeSelect
            label="Strategy"
            value={kind}
            onChange={(e) => setKind(e.currentTarget.value as BuilderKind)}
            data={[
              { value: 'straddle', label: 'Straddle (ATM call + put)' },
              { value: 'strangle', label: 'Strangle (OTM call + put)' },
            ]}
          />
          {kind === 'strangle' && (
            <NativeSelect
              label="Strikes from ATM"
              value={String(width)}
              onChange={(e) => setWidth(Number(e.currentTarget.value))}
              data={WIDTHS.map(String)}
            />
          )}
          <NativeSelect
            label="Side"
            value={action}
            onChange={(e) => setAction(e.currentTarget.value as 'BUY' | 'SELL')}
            data={['BUY', 'SELL']}
          />
          <NumberInput
            label="Lots"
            value={lots}
            onChange={setLots}
            min={1}
            step={1}
            allowDecimal={false}
            allowNegative={false}
            w={90}
            error={lotCount === null ? 'A whole number of lots' : undefined}
          />
          <NativeSelect
            label="Product"
            value={product}
            onChange={(e) => setProduct(e.currentTarget.value as 'NRML' | 'MIS')}
            data={['NRML', 'MIS']}
          />
        </Group>
        {'missing' in built ? (
          <Text c="dimmed" role="status">
            {built.missing}
          </Text>
        ) : (
          <>
            <Table aria-label="Basket legs" data-testid="basket-legs" withRowBorders>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Leg</Table.Th>
                  <Table.Th ta="right">Quantity</Table.Th>
                  <Table.Th ta="right">LTP</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {legs.map((l) => (
                  <Table.Tr key={l.symbol} data-testid="basket-leg">
                    <Table.Td>
                      {action} {l.type === 'CE' ? 'call' : 'put'} {formatPrice(l.strike)}
                      <Text size="xs" c="dimmed" className={classes.mono} data-testid="basket-leg-symbol">
                        {l.symbol}
                      </Text>
                    </Table.Td>
                    <Table.Td ta="right">
                      {lotCount === null ? '—' : formatCount(l.lotsize * lotCount)}
                    </Table.Td>
                    <Table.Td ta="right" data-testid="basket-leg-ltp">
                      {formatPrice(ltpOf(l.symbol))}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <Group justify="space-between" wrap="wrap">
              <Text size="sm" data-testid="basket-premium">
                Combined premium: <strong>{premium ? formatPrice(premium.perUnit) : '—'}</strong> per unit ·{' '}
                {premium ? formatRupees(premium.total) : '—'} {action === 'BUY' ? 'paid' : 'received'}
              </Text>
              <Button
                color={action === 'BUY' ? 'green' : 'red'}
                disabled={orders.length === 0}
                onClick={() => {
                  basket.reset();
                  setConfirming(true);
                }}
              >
                Place basket
              </Button>
            </Group>
          </>
        )}
        {answer && (
          <Alert
            color={answer.results.every((r) => r.status === 'success') ? 'green' : 'orange'}
            title={`Basket sent${answer.mode === 'analyze' ? ' to the sandbox' : ''}: ${answer.results.length} orders`}
            role="status"
            withCloseButton
            closeButtonLabel="Dismiss"
            onClose={() => setAnswer(undefined)}
          >
            <ul className={classes.list}>
              {answer.results.map((r, i) => (
                <li key={`${r.symbol}-${i}`} data-testid="basket-result">
                  {r.symbol}:{' '}
                  {r.status === 'success'
                    ? `order ${r.orderid ?? r.orderids?.join(', ') ?? (r.pending_order_id !== undefined ? `queued (${r.pending_order_id})` : '')}`
                    : `not placed: ${r.message ?? 'refused'}`}
                </li>
              ))}
            </ul>
          </Alert>
        )}
      </Stack>

      <ConfirmModal
        opened={confirming}
        title="Place this basket?"
        confirmLabel={`Place ${orders.length} orders`}
        color={action === 'BUY' ? 'green' : 'red'}
        pending={basket.isPending}
        error={basket.error}
        onConfirm={() => basket.mutate(orders)}
        onClose={() => setConfirming(false)}
      >
        {mode === 'live' ? (
          <Text>
            These orders go to <BrokerName /> now, at market: live orders with real money
            {action === 'SELL' ? ', and a sold option’s loss is not capped' : ''}.
          </Text>
        ) : (
          <Text>Analyzer mode: the orders go to the sandbox, at market.</Text>
        )}
        <ul className={classes.list} data-testid="basket-confirm-legs">
          {orders.map((o) => (
            <li key={o.symbol} className={classes.mono}>
              {o.action} {formatCount(o.quantity)} {o.symbol} {o.exchange} · {o.pricetype} · {o.product}
            </li>
          ))}
        </ul>
      </ConfirmModal>
    </Card>
  );
}
