/**
 * `/search`: the master contract's instruments by one box (symbol, name, or terms such as
 * "NIFTY 26000 CE") and the F&O filters — exchange, instrument type, underlying, expiry (of the
 * chosen underlying) and strike range — through `GET /search/api/search`
 * (docs/rules/market.md#fno-or-general-search). Without a query and an exchange the server
 * searches nothing (docs/rules/market.md#empty-session-search) and the page says so. Each result
 * opens the order ticket (BUY or SELL); the arrow keys move through the results and Enter opens
 * the ticket for the chosen one (docs/rules/web.md#order-ticket).
 */
import {
  Button,
  Card,
  Container,
  Group,
  NativeSelect,
  NumberInput,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useRef, useState, type KeyboardEvent } from 'react';
import { DERIVATIVE_EXCHANGES, EXCHANGES, ORDER_EXCHANGES } from '../../../../src/domain/exchanges';
import { INSTRUMENT_TYPES } from '../../../../src/domain/instruments';
import { fieldError, onlyFieldErrors } from '../../api/client';
import { useOrderTicket, type TicketPrefill } from '../../components/ticket/ticket-context';
import { Empty, ErrorState, Loading } from '../../components/states';
import {
  searchQuery as query,
  useExpiries,
  useInstrumentSearch,
  useUnderlyings,
  type SearchItem as Item,
} from '../../features/search/api/search';
import { formatCount, formatPrice } from '../../format-number';

const TYPE_CHOICES = [
  { value: '', label: 'Any type' },
  { value: 'options', label: 'Options (CE and PE)' },
  { value: 'futures', label: 'Futures' },
  ...INSTRUMENT_TYPES.map((t) => ({ value: t, label: t })),
];
const FILTER_FIELDS = ['q', 'exchange', 'instrumenttype', 'expiry', 'underlying', 'strike_min', 'strike_max'];

const tradable = (exchange: string) => (ORDER_EXCHANGES as readonly string[]).includes(exchange);

const numberOrUndefined = (v: number | string) => (typeof v === 'number' ? v : undefined);

function ResultsTable({
  rows,
  onTrade,
}: {
  rows: Item[];
  onTrade: (r: Item, action: 'BUY' | 'SELL') => void;
}) {
  const refs = useRef<Array<HTMLTableRowElement | null>>([]);
  const [active, setActive] = useState(0);
  const move = (i: number) => {
    const next = Math.max(0, Math.min(rows.length - 1, i));
    setActive(next);
    refs.current[next]?.focus();
  };
  const onKey = (e: KeyboardEvent<HTMLTableRowElement>, i: number) => {
    if (e.target !== e.currentTarget) return;
    if (e.key === 'ArrowDown') move(i + 1);
    else if (e.key === 'ArrowUp') move(i - 1);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(rows.length - 1);
    else if (e.key === 'Enter' && tradable(rows[i]!.exchange)) onTrade(rows[i]!, 'BUY');
    else return;
    e.preventDefault();
  };
  return (
    <Table.ScrollContainer minWidth={900} maxHeight={560}>
      <Table highlightOnHover stickyHeader aria-label="Search results">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Symbol</Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Exchange</Table.Th>
            <Table.Th>Type</Table.Th>
            <Table.Th ta="right">Lot size</Table.Th>
            <Table.Th ta="right">Tick size</Table.Th>
            <Table.Th>Expiry</Table.Th>
            <Table.Th ta="right">Strike</Table.Th>
            <Table.Th ta="right">Freeze qty</Table.Th>
            <Table.Th>Trade</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r, i) => (
            <Table.Tr
              key={`${r.exchange}:${r.symbol}`}
              ref={(el) => {
                refs.current[i] = el;
              }}
              tabIndex={i === active ? 0 : -1}
              aria-selected={i === active}
              data-testid="search-row"
              onKeyDown={(e) => onKey(e, i)}
              onFocus={() => setActive(i)}
              bg={i === active ? 'var(--mantine-color-blue-light)' : undefined}
              style={{ outlineOffset: -2 }}
            >
              <Table.Td ff="monospace">{r.symbol}</Table.Td>
              <Table.Td>{r.name}</Table.Td>
              <Table.Td>{r.exchange}</Table.Td>
              <Table.Td>{r.instrumenttype}</Table.Td>
              <Table.Td ta="right">{formatCount(r.lotsize)}</Table.Td>
              <Table.Td ta="right">{formatPrice(r.tick_size)}</Table.Td>
              <Table.Td>{r.expiry || '—'}</Table.Td>
              <Table.Td ta="right">{r.strike > 0 ? r.strike : '—'}</Table.Td>
              <Table.Td ta="right">{formatCount(r.freeze_qty)}</Table.Td>
              <Table.Td>
                {tradable(r.exchange) ? (
                  <Group gap={4} wrap="nowrap">
                    <Button
                      size="compact-xs"
                      color="green"
                      tabIndex={-1}
                      aria-label={`Buy ${r.symbol} ${r.exchange}`}
                      onClick={() => onTrade(r, 'BUY')}
                    >
                      BUY
                    </Button>
                    <Button
                      size="compact-xs"
                      color="red"
                      tabIndex={-1}
                      aria-label={`Sell ${r.symbol} ${r.exchange}`}
                      onClick={() => onTrade(r, 'SELL')}
                    >
                      SELL
                    </Button>
                  </Group>
                ) : (
                  <Text size="xs" c="dimmed">
                    Not traded
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export default function SearchPage() {
  const ticket = useOrderTicket();
  const [q, setQ] = useState('');
  const [exchange, setExchange] = useState('');
  const [type, setType] = useState('');
  const [underlying, setUnderlying] = useState('');
  const [expiry, setExpiry] = useState('');
  const [strikeMin, setStrikeMin] = useState<number | string>('');
  const [strikeMax, setStrikeMax] = useState<number | string>('');
  const tableRef = useRef<HTMLDivElement>(null);

  const fnoExchange = exchange && DERIVATIVE_EXCHANGES.has(exchange) ? exchange : undefined;
  const underlyings = useUnderlyings(fnoExchange);
  const expiries = useExpiries(underlying, fnoExchange, type);

  const params = query({
    q: q.trim(),
    exchange,
    instrumenttype: type,
    underlying,
    expiry,
    strike_min: numberOrUndefined(strikeMin),
    strike_max: numberOrUndefined(strikeMax),
  });
  const [debounced] = useDebouncedValue(params, 300);
  // docs/rules/market.md#empty-session-search: no query and no exchange searches nothing.
  const searchable = q.trim() !== '' || exchange !== '';
  const results = useInstrumentSearch(debounced, searchable);
  const err = results.error;

  const trade = (r: Item, action: 'BUY' | 'SELL') => {
    const derivative = DERIVATIVE_EXCHANGES.has(r.exchange);
    const prefill: TicketPrefill = {
      symbol: r.symbol,
      exchange: r.exchange,
      action,
      lotsize: r.lotsize,
      tick_size: r.tick_size,
      quantity: r.lotsize > 0 ? r.lotsize : 1,
      product: derivative ? 'NRML' : 'CNC',
    };
    ticket.open(prefill);
  };

  /** Down arrow from the search box goes to the first result. */
  const fromBox = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'ArrowDown') return;
    const row = tableRef.current?.querySelector<HTMLTableRowElement>('tbody tr[tabindex="0"]');
    if (row) {
      e.preventDefault();
      row.focus();
    }
  };

  const rows = results.data?.results ?? [];
  return (
    <Container size="xl">
      <Title order={1} size="h2" mb="md">
        Search instruments
      </Title>
      <Stack gap="lg">
        <Card withBorder>
          <form role="search" aria-label="Search instruments" onSubmit={(e) => e.preventDefault()}>
            <Stack>
              <TextInput
                label="Search"
                description="A symbol, a name, or terms such as NIFTY 26000 CE (every term must match)."
                placeholder="NIFTY 26000 CE"
                value={q}
                onChange={(e) => setQ(e.currentTarget.value)}
                onKeyDown={fromBox}
                error={fieldError(err, 'q')}
                data-hotkey-search
                autoComplete="off"
                data-autofocus
              />
              <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }}>
                <NativeSelect
                  label="Exchange (optional)"
                  data={[
                    { value: '', label: 'Any exchange' },
                    ...EXCHANGES.map((e) => ({ value: e, label: e })),
                  ]}
                  value={exchange}
                  onChange={(e) => setExchange(e.currentTarget.value)}
                  error={fieldError(err, 'exchange')}
                />
                <NativeSelect
                  label="Instrument type (optional)"
                  data={TYPE_CHOICES}
                  value={type}
                  onChange={(e) => setType(e.currentTarget.value)}
                  error={fieldError(err, 'instrumenttype')}
                />
                <NativeSelect
                  label="Underlying (optional)"
                  data={[
                    {
                      value: '',
                      label: underlyings.isPending
                        ? 'Loading…'
                        : underlyings.isError
                          ? 'Not loaded'
                          : underlyings.data.underlyings.length === 0
                            ? 'None with derivatives'
                            : 'Any underlying',
                    },
                    ...(underlyings.data?.underlyings ?? []).map((u) => ({ value: u, label: u })),
                  ]}
                  value={underlying}
                  onChange={(e) => {
                    setUnderlying(e.currentTarget.value);
                    setExpiry('');
                  }}
                  error={underlyings.isError ? underlyings.error.message : fieldError(err, 'underlying')}
                />
                <NativeSelect
                  label="Expiry (optional)"
                  description={underlying ? undefined : 'Choose an underlying first'}
                  disabled={underlying === ''}
                  data={[
                    {
                      value: '',
                      label: !underlying
                        ? 'Any expiry'
                        : expiries.isPending
                          ? 'Loading…'
                          : expiries.isError
                            ? 'Not loaded'
                            : expiries.data.expiries.length === 0
                              ? 'No expiry from today'
                              : 'Any expiry',
                    },
                    ...(expiries.data?.expiries ?? []).map((x) => ({ value: x, label: x })),
                  ]}
                  value={expiry}
                  onChange={(e) => setExpiry(e.currentTarget.value)}
                  error={expiries.isError ? expiries.error.message : fieldError(err, 'expiry')}
                />
                <NumberInput
                  label="Strike from (optional)"
                  allowNegative={false}
                  value={strikeMin}
                  onChange={setStrikeMin}
                  error={fieldError(err, 'strike_min')}
                />
                <NumberInput
                  label="Strike to (optional)"
                  allowNegative={false}
                  value={strikeMax}
                  onChange={setStrikeMax}
                  error={fieldError(err, 'strike_max')}
                />
              </SimpleGrid>
            </Stack>
          </form>
        </Card>
        <Card withBorder ref={tableRef}>
          {!searchable ? (
            <Empty>
              Type a symbol, a name or terms such as “NIFTY 26000 CE”, or choose an exchange: the filters
              alone search nothing.
            </Empty>
          ) : results.isPending ? (
            <Loading label="Searching…" />
          ) : results.isError && !onlyFieldErrors(err, FILTER_FIELDS) ? (
            <ErrorState error={err} title="Search failed" />
          ) : results.isError ? (
            <Empty>Correct the filter marked above.</Empty>
          ) : rows.length === 0 ? (
            <Empty>No instrument matches. Check the spelling, or widen the filters.</Empty>
          ) : (
            <Stack gap="xs">
              <Group justify="space-between">
                <Text size="sm" data-testid="search-count" role="status">
                  {results.data.total === rows.length
                    ? `${formatCount(rows.length)} result${rows.length === 1 ? '' : 's'}`
                    : `${formatCount(results.data.total)} results, the first ${formatCount(rows.length)} shown: narrow the search`}
                  {results.isFetching ? ' (updating…)' : ''}
                </Text>
                <Text size="xs" c="dimmed">
                  ↑ and ↓ move through the results; Enter opens the order ticket.
                </Text>
              </Group>
              <ResultsTable key={debounced} rows={rows} onTrade={trade} />
            </Stack>
          )}
        </Card>
      </Stack>
    </Container>
  );
}
