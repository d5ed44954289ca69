/**
 * The order ticket (docs/rules/web.md#order-ticket): a symbol with suggestions from the session
 * search, exchange, BUY or SELL, quantity checked against the lot size before sending, price type
 * and the prices it needs, product as the exchange allows; placed through the desk
 * (docs/rules/web.md#desk-calls), so the sandbox takes it in analyzer mode and the broker in live
 * mode — after a confirmation that names the broker. The server's messages show under the fields
 * they name (docs/rules/web.md#field-messages); the order id and the answer's message afterwards.
 */
import {
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  NativeSelect,
  NumberInput,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import '@mantine/core/styles/FloatingIndicator.css';
import '@mantine/core/styles/SegmentedControl.css';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import {
  CASH_EXCHANGES,
  DERIVATIVE_EXCHANGES,
  FNO_ORDER_EXCHANGES,
  ORDER_EXCHANGES,
  type OrderExchange,
} from '../../../../src/domain/exchanges';
import {
  ACTIONS,
  hasLimitPrice,
  hasTriggerPrice,
  PRICE_TYPES,
  PRODUCTS,
  type Action,
  type PriceType,
  type Product,
} from '../../../../src/domain/orders';
import { useMode } from '../../api/auth';
import { api, ApiError, fieldError, type Answer } from '../../api/client';
import { DESK_KEY, desk, type DeskAnswer } from '../../api/desk';
import type { TicketPrefill } from './ticket-context';

type SearchItem = Answer<'/search/api/search'>['results'][number];

/** The facts of a contract the ticket checks against. */
interface Facts {
  symbol: string;
  exchange: string;
  lotsize: number;
  tick_size: number;
  expiry?: string;
  name?: string;
}

/** The form's fields, as the placeorder body names them. */
const FIELDS = [
  'symbol',
  'exchange',
  'action',
  'quantity',
  'pricetype',
  'price',
  'trigger_price',
  'product',
  'strategy',
] as const;
type Field = (typeof FIELDS)[number];

/**
 * The products an exchange takes: CNC (delivery) on the cash exchanges, NRML (carry forward) on
 * the derivative exchanges, MIS (intraday) everywhere.
 */
export function productsFor(exchange: string): Product[] {
  return PRODUCTS.filter((p) =>
    p === 'CNC' ? CASH_EXCHANGES.has(exchange) : p === 'NRML' ? DERIVATIVE_EXCHANGES.has(exchange) : true,
  );
}

const isOrderExchange = (e: string | undefined): e is OrderExchange =>
  e !== undefined && (ORDER_EXCHANGES as readonly string[]).includes(e);

/**
 * The server's messages for a field: the validation object's entries by field, or a sentence that
 * starts with the field's name (`quantity must be a multiple of the lot size 65`).
 */
function serverError(err: unknown, field: Field): string | undefined {
  const listed = fieldError(err, field);
  if (listed) return listed;
  if (err instanceof ApiError && Object.keys(err.fields).length === 0 && leadingField(err.message) === field)
    return err.message;
  return undefined;
}

function leadingField(message: string): Field | undefined {
  const m = /^([a-z_]+)\b/.exec(message);
  return m && (FIELDS as readonly string[]).includes(m[1]!) ? (m[1] as Field) : undefined;
}

/** Whether every message of an error is shown under a field (no general alert needed). */
function allUnderFields(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  const keys = Object.keys(err.fields);
  if (keys.length > 0) return keys.every((k) => (FIELDS as readonly string[]).includes(k));
  return leadingField(err.message) !== undefined;
}

const num = (v: number | string): number | undefined => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  const t = v.trim();
  return t === '' || !Number.isFinite(Number(t)) ? undefined : Number(t);
};

const lots = (quantity: number, lotsize: number) => {
  const n = quantity / lotsize;
  return `${n} lot${n === 1 ? '' : 's'}`;
};

/** The lot-size rule of the order pipeline, said before sending (undefined when it holds). */
export function lotSizeProblem(exchange: string, quantity: number, lotsize: number | undefined) {
  if (!lotsize || lotsize <= 1 || !FNO_ORDER_EXCHANGES.has(exchange) || quantity % lotsize === 0) return;
  const lower = Math.floor(quantity / lotsize) * lotsize;
  const near = [lower, lower + lotsize].filter((q) => q > 0).join(' or ');
  return `Quantity must be a multiple of the lot size ${lotsize}: ${near}, for example.`;
}

/** Symbol suggestions from the session search, as the person types (debounced). */
function Suggestions({
  text,
  exchange,
  onPick,
}: {
  text: string;
  exchange: string;
  onPick: (item: SearchItem) => void;
}) {
  const [q] = useDebouncedValue(text.trim(), 250);
  const found = useQuery({
    queryKey: ['ticket-suggestions', q, exchange],
    queryFn: () =>
      api<Answer<'/search/api/search'>>(
        'GET',
        '/search/api/search?' + new URLSearchParams({ q, exchange }).toString(),
      ),
    enabled: q.length >= 2,
    staleTime: 30_000,
  });
  if (q.length < 2) return null;
  if (found.isPending)
    return (
      <Text size="sm" c="dimmed" role="status">
        Looking for “{q}”…
      </Text>
    );
  if (found.isError)
    return (
      <Text size="sm" c="red" role="alert">
        Suggestions failed: {found.error.message}
      </Text>
    );
  const items = found.data.results.filter((r) => isOrderExchange(r.exchange)).slice(0, 8);
  if (items.length === 0)
    return (
      <Text size="sm" c="dimmed" role="status">
        No {exchange} symbol matches “{q}”.
      </Text>
    );
  return (
    <Paper withBorder p={4} role="list" aria-label="Symbol suggestions">
      {items.map((r) => (
        <UnstyledButton
          key={`${r.exchange}:${r.symbol}`}
          role="listitem"
          onClick={() => onPick(r)}
          display="block"
          w="100%"
          px="xs"
          py={4}
          aria-label={`${r.symbol} ${r.exchange}`}
        >
          <Group gap="xs" wrap="nowrap" justify="space-between">
            <Text size="sm" ff="monospace">
              {r.symbol}
            </Text>
            <Text size="xs" c="dimmed">
              {r.exchange} · lot {r.lotsize}
              {r.expiry ? ` · ${r.expiry}` : ''}
            </Text>
          </Group>
        </UnstyledButton>
      ))}
    </Paper>
  );
}

/** The contract's facts: from the opener, a picked suggestion, or looked up by symbol and exchange. */
function useFacts(symbol: string, exchange: string, known: Facts | undefined) {
  const [s] = useDebouncedValue(symbol.trim().toUpperCase(), 300);
  // Several terms ("NIFTY 26000 CE") are a search, not a symbol: the suggestions answer them.
  const terms = /\s/.test(symbol.trim());
  const matches = known && known.symbol === symbol.trim().toUpperCase() && known.exchange === exchange;
  const lookup = useQuery({
    queryKey: ['ticket-facts', s, exchange],
    // `/search/token` answers an empty list for an unknown symbol (no error to log).
    queryFn: () =>
      api<Answer<'/search/token'>>(
        'GET',
        '/search/token?' + new URLSearchParams({ symbol: s, exchange }).toString(),
      ),
    enabled: !matches && !terms && s.length > 0,
    staleTime: 60_000,
  });
  if (matches) return { facts: known, state: 'known' as const };
  if (terms) return { facts: undefined, state: 'terms' as const };
  if (s !== symbol.trim().toUpperCase() || lookup.isPending)
    return { facts: undefined, state: s ? ('looking' as const) : ('none' as const) };
  if (lookup.isError) return { facts: undefined, state: 'error' as const, error: lookup.error };
  const row = lookup.data.data[0];
  return row
    ? { facts: { ...row } as Facts, state: 'known' as const }
    : { facts: undefined, state: 'unknown' as const };
}

function BrokerName() {
  const session = useQuery({
    queryKey: ['broker-session'],
    queryFn: () => api<Answer<'/broker/session'>>('GET', '/broker/session'),
  });
  if (session.isPending) return <>your broker (checking the session…)</>;
  if (session.isError || !session.data.data) return <>your broker (no broker session is connected)</>;
  return <strong data-testid="ticket-broker">{session.data.data.broker}</strong>;
}

type Placed = DeskAnswer<'placeorder'>;

/** The placed order's state as the order book has it (refreshed with the books: key ['desk', …]). */
function PlacedStatus({ orderid }: { orderid: string }) {
  const status = useQuery({
    queryKey: [...DESK_KEY, 'orderstatus', orderid],
    queryFn: () => desk('orderstatus', { orderid }),
  });
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
      {o.filled_quantity > 0 ? ` · ${o.filled_quantity} filled at ${o.average_price}` : ''}
      {o.pending_quantity > 0 ? ` · ${o.pending_quantity} pending` : ''}
      {o.rejection_reason ? ` · ${o.rejection_reason}` : ''}
    </Text>
  );
}

export default function OrderTicket({
  opened,
  prefill,
  onClose,
}: {
  opened: boolean;
  prefill: TicketPrefill;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const mode = useMode(opened);
  const live = mode.data?.mode === 'live';
  const initialExchange: OrderExchange = isOrderExchange(prefill.exchange) ? prefill.exchange : 'NSE';
  const [symbol, setSymbol] = useState(prefill.symbol ?? '');
  const [exchange, setExchange] = useState<OrderExchange>(initialExchange);
  const [action, setAction] = useState<Action>(prefill.action ?? 'BUY');
  const [quantity, setQuantity] = useState<number | string>(prefill.quantity ?? prefill.lotsize ?? '');
  const [pricetype, setPricetype] = useState<PriceType>(prefill.pricetype ?? 'MARKET');
  const [price, setPrice] = useState<number | string>(prefill.price ?? '');
  const [trigger, setTrigger] = useState<number | string>('');
  const [product, setProduct] = useState<Product>(
    prefill.product && productsFor(initialExchange).includes(prefill.product)
      ? prefill.product
      : productsFor(initialExchange)[0]!,
  );
  const [strategy, setStrategy] = useState('Order ticket');
  const [known, setKnown] = useState<Facts | undefined>(
    prefill.symbol && prefill.lotsize !== undefined
      ? {
          symbol: prefill.symbol,
          exchange: initialExchange,
          lotsize: prefill.lotsize,
          tick_size: prefill.tick_size ?? 0,
        }
      : undefined,
  );
  const [suggest, setSuggest] = useState(false);
  const [checked, setChecked] = useState<Partial<Record<Field, string>>>({});
  const [confirming, setConfirming] = useState(false);
  const formId = useId();
  const { facts, ...lookup } = useFacts(symbol, exchange, known);

  const place = useMutation({
    mutationFn: () => {
      const body = {
        strategy: strategy.trim(),
        symbol: symbol.trim().toUpperCase(),
        exchange,
        action,
        quantity: num(quantity) ?? String(quantity),
        pricetype,
        product,
        ...(hasLimitPrice(pricetype) ? { price: num(price) ?? 0 } : {}),
        ...(hasTriggerPrice(pricetype) ? { trigger_price: num(trigger) ?? 0 } : {}),
      };
      return desk('placeorder', body);
    },
    onSettled: () => setConfirming(false),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: DESK_KEY }),
  });
  const err = place.error;

  const changeExchange = (e: OrderExchange) => {
    setExchange(e);
    if (!productsFor(e).includes(product)) setProduct(productsFor(e)[0]!);
  };
  const pick = (item: SearchItem) => {
    setSymbol(item.symbol);
    if (isOrderExchange(item.exchange)) changeExchange(item.exchange);
    setKnown({ ...item });
    if (num(quantity) === undefined && item.lotsize > 1) setQuantity(item.lotsize);
    setSuggest(false);
  };

  /** The checks the ticket can make itself; the server checks everything again. */
  const check = (): boolean => {
    const problems: Partial<Record<Field, string>> = {};
    if (!symbol.trim()) problems.symbol = 'Give the symbol to trade.';
    const q = num(quantity);
    if (q === undefined || !Number.isInteger(q) || q <= 0)
      problems.quantity = 'Quantity must be a whole number above 0.';
    else {
      const lot = lotSizeProblem(exchange, q, facts?.lotsize);
      if (lot) problems.quantity = lot;
    }
    setChecked(problems);
    return Object.keys(problems).length === 0;
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    place.reset();
    if (!check()) return;
    if (live) setConfirming(true);
    else place.mutate();
  };

  const error = (f: Field) => checked[f] ?? serverError(err, f);
  const q = num(quantity);
  const lotLine =
    facts && facts.lotsize > 1
      ? `Lot size ${facts.lotsize}${q && q > 0 && q % facts.lotsize === 0 ? `: ${lots(q, facts.lotsize)}` : ''}`
      : facts
        ? `Lot size ${facts.lotsize}`
        : undefined;
  const tickLine = facts && facts.tick_size > 0 ? `Tick size ${facts.tick_size}` : undefined;
  const placed: Placed | undefined = place.data;

  return (
    <Modal opened={opened} onClose={onClose} title="Order ticket" size="lg">
      {placed ? (
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
      ) : confirming ? (
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
      ) : (
        <form onSubmit={submit} noValidate aria-label="Order ticket" id={formId}>
          <Stack gap="sm">
            {mode.data && (
              <Text size="sm" c={live ? 'red' : 'yellow.8'}>
                {live
                  ? 'Live mode: the order goes to your broker after a confirmation.'
                  : 'Analyzer mode: the order goes to the sandbox, not to the broker.'}
              </Text>
            )}
            {err && !allUnderFields(err) && (
              <Alert color="red" title="Order not placed" role="alert">
                {err.message}
              </Alert>
            )}
            {err && allUnderFields(err) && (
              <Text size="sm" c="red" role="alert">
                Order not placed: see the messages under the fields.
              </Text>
            )}
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <Stack gap={4}>
                <TextInput
                  label="Symbol"
                  required
                  withAsterisk={false}
                  placeholder="NIFTY 26000 CE"
                  autoComplete="off"
                  value={symbol}
                  onChange={(e) => {
                    setSymbol(e.currentTarget.value);
                    setSuggest(true);
                  }}
                  error={error('symbol')}
                  data-autofocus
                />
              </Stack>
              <NativeSelect
                label="Exchange"
                data={[...ORDER_EXCHANGES]}
                value={exchange}
                onChange={(e) => changeExchange(e.currentTarget.value as OrderExchange)}
                error={error('exchange')}
              />
            </SimpleGrid>
            {suggest && <Suggestions text={symbol} exchange={exchange} onPick={pick} />}
            <Text size="sm" c="dimmed" data-testid="ticket-facts" aria-live="polite">
              {lookup.state === 'looking' && 'Looking the symbol up…'}
              {lookup.state === 'terms' && 'Choose the contract among the suggestions.'}
              {lookup.state === 'unknown' &&
                `${symbol.trim().toUpperCase()} is not in the ${exchange} master contract.`}
              {lookup.state === 'error' && 'The symbol could not be looked up.'}
              {facts &&
                [
                  facts.symbol,
                  facts.exchange,
                  lotLine,
                  tickLine,
                  facts.expiry ? `expiry ${facts.expiry}` : '',
                ]
                  .filter(Boolean)
                  .join(' · ')}
            </Text>
            <Stack gap={4}>
              <Text size="sm" fw={500} id={`${formId}-action`}>
                Action
              </Text>
              <SegmentedControl
                aria-labelledby={`${formId}-action`}
                data={[...ACTIONS]}
                value={action}
                onChange={(v) => setAction(v as Action)}
                color={action === 'BUY' ? 'green' : 'red'}
                fullWidth
              />
              {error('action') && (
                <Text size="xs" c="red">
                  {error('action')}
                </Text>
              )}
            </Stack>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <NumberInput
                label="Quantity"
                required
                withAsterisk={false}
                allowDecimal={false}
                allowNegative={false}
                clampBehavior="none"
                value={quantity}
                onChange={(v) => {
                  setQuantity(v);
                  setChecked((c) => ({ ...c, quantity: undefined }));
                }}
                step={facts && facts.lotsize > 1 ? facts.lotsize : 1}
                description={lotLine}
                error={error('quantity')}
              />
              <NativeSelect
                label="Product"
                data={productsFor(exchange)}
                value={product}
                onChange={(e) => setProduct(e.currentTarget.value as Product)}
                error={error('product')}
              />
            </SimpleGrid>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <NativeSelect
                label="Price type"
                data={[...PRICE_TYPES]}
                value={pricetype}
                onChange={(e) => setPricetype(e.currentTarget.value as PriceType)}
                error={error('pricetype')}
              />
              {hasLimitPrice(pricetype) && (
                <NumberInput
                  label="Price"
                  required
                  withAsterisk={false}
                  allowNegative={false}
                  decimalScale={4}
                  clampBehavior="none"
                  value={price}
                  onChange={setPrice}
                  description={tickLine}
                  error={error('price')}
                />
              )}
              {hasTriggerPrice(pricetype) && (
                <NumberInput
                  label="Trigger price"
                  required
                  withAsterisk={false}
                  allowNegative={false}
                  decimalScale={4}
                  clampBehavior="none"
                  value={trigger}
                  onChange={setTrigger}
                  description={tickLine}
                  error={error('trigger_price')}
                />
              )}
            </SimpleGrid>
            <TextInput
              label="Strategy tag"
              description="Shown in the order book and logs."
              value={strategy}
              onChange={(e) => setStrategy(e.currentTarget.value)}
              error={error('strategy')}
            />
            <Group justify="space-between">
              <Badge color={action === 'BUY' ? 'green' : 'red'} variant="light">
                {action} {product}
              </Badge>
              <Group>
                <Button variant="default" onClick={onClose}>
                  Cancel
                </Button>
                <Button type="submit" color={action === 'BUY' ? 'green' : 'red'} loading={place.isPending}>
                  {live ? 'Review the order' : `Place ${action} order`}
                </Button>
              </Group>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
