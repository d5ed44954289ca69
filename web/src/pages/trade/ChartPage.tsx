/**
 * `/chart/:exchange/:symbol`: one instrument's candlestick chart (docs/rules/web.md#live-prices).
 * The broker's history (`history` desk call, at an interval `intervals` offers) drawn as candles
 * with their volume, continued live from the feed on the page's socket; the user's fills, working
 * orders and open position's average price drawn on it from the books (refreshed by the live
 * socket's order events) and listed in words for screen readers; the market depth beside it (under
 * it on a phone); Buy and Sell open the order ticket for the instrument, and the symbol box opens
 * another's chart. A refused history (no broker session) is said with the server's message, and
 * the feed's ticks are still drawn.
 */
import {
  Box,
  Button,
  Container,
  Flex,
  Group,
  SegmentedControl,
  Stack,
  Text,
  Title,
  VisuallyHidden,
  useComputedColorScheme,
} from '@mantine/core';
import '@mantine/core/styles/SegmentedControl.css';
import { useMemo, useState } from 'react';
import { useParams } from 'react-router';
import { useDeskQuery } from '../../api/desk';
import { useHistory, useIntervals } from '../../features/market/api/chart';
import { useLive } from '../../api/live';
import { DepthLadder } from '../../components/depth/DepthLadder';
import { LiveStatus } from '../../components/LiveStatus';
import { ErrorState } from '../../components/states';
import { useOrderTicket } from '../../components/ticket/ticket-context';
import {
  defaultInterval,
  offeredIntervals,
  type Candle,
  type HistoryInterval,
} from '../../features/market/candles';
import { priceMarks, tradeMarks } from './chart/overlays';
import { PriceChart } from './chart/PriceChart';
import { SymbolSwitcher } from './chart/SymbolSwitcher';

/** What is offered when the server names no intervals (no broker configured): history says why. */
const FALLBACK_INTERVALS: HistoryInterval[] = ['1m', '5m', '15m', '1h', 'D'];
const NO_CANDLES: Candle[] = [];

export default function ChartPage() {
  const { exchange = '', symbol = '' } = useParams();
  const live = useLive();
  const ticket = useOrderTicket();
  const scheme = useComputedColorScheme('light');

  const intervals = useIntervals();
  const offered = useMemo(() => {
    const list = intervals.data ? offeredIntervals(intervals.data.data) : [];
    return list.length > 0 ? list : FALLBACK_INTERVALS;
  }, [intervals.data]);
  const [chosen, setChosen] = useState<HistoryInterval>();
  const interval = chosen && offered.includes(chosen) ? chosen : defaultInterval(offered);

  const history = useHistory(symbol, exchange, interval, !intervals.isPending);
  const candles = history.data?.candles ?? (history.isError ? NO_CANDLES : undefined);

  const trades = useDeskQuery('tradebook', { refetchInterval: live.refetchInterval });
  const orders = useDeskQuery('orderbook', { refetchInterval: live.refetchInterval });
  const positions = useDeskQuery('positionbook', { refetchInterval: live.refetchInterval });
  const marks = useMemo(
    () =>
      tradeMarks(trades.data?.data ?? [], {
        symbol,
        exchange,
        interval,
        nowMs: Date.now(),
        ...(candles?.length ? { anchor: candles.at(-1)!.time, from: candles[0]!.time } : {}),
      }),
    [trades.data, symbol, exchange, interval, candles],
  );
  const lines = useMemo(
    () => priceMarks(orders.data?.data.orders ?? [], positions.data?.data ?? [], { symbol, exchange }),
    [orders.data, positions.data, symbol, exchange],
  );

  return (
    <Container size="xl" px={{ base: 'xs', sm: 'md' }}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs" wrap="wrap" align="baseline">
            <Title order={2}>{symbol}</Title>
            <Text c="dimmed">{exchange}</Text>
            <LiveStatus state={live.state} />
          </Group>
          <Group gap="xs">
            <Button color="teal" onClick={() => ticket.open({ symbol, exchange, action: 'BUY' })}>
              Buy
            </Button>
            <Button color="red" onClick={() => ticket.open({ symbol, exchange, action: 'SELL' })}>
              Sell
            </Button>
          </Group>
        </Group>

        <Group justify="space-between" align="end" wrap="wrap" gap="xs">
          <Box maw="100%" style={{ overflowX: 'auto' }}>
            <Text size="sm" fw={500} mb={4} id="chart-interval-label">
              Interval
            </Text>
            <SegmentedControl
              aria-labelledby="chart-interval-label"
              size="xs"
              data={offered}
              value={interval}
              onChange={(v) => setChosen(v as HistoryInterval)}
            />
          </Box>
          {/* Anew for each instrument: the box is empty again on the chart it opened. */}
          <SymbolSwitcher key={`${exchange}:${symbol}`} />
        </Group>

        {history.isPending && history.fetchStatus !== 'idle' && (
          <Text size="sm" c="dimmed" role="status">
            Loading the {interval} candles of {symbol}…
          </Text>
        )}
        {history.isError && (
          <Box>
            <ErrorState error={history.error} title={`No history for ${symbol} ${exchange}`} />
            <Text size="sm" c="dimmed" mt={4}>
              The live feed&apos;s ticks are drawn as they come.
            </Text>
          </Box>
        )}
        {history.data && history.data.candles.length === 0 && (
          <Text size="sm" c="dimmed" role="status">
            No {interval} candles of {symbol} {exchange} from {history.data.range.start_date} to{' '}
            {history.data.range.end_date}; the live feed&apos;s ticks are drawn as they come.
          </Text>
        )}

        <Flex direction={{ base: 'column', md: 'row' }} gap="sm" align="stretch">
          <Box style={{ flex: 1, minWidth: 0 }}>
            <PriceChart
              symbol={symbol}
              exchange={exchange}
              interval={interval}
              history={candles}
              scheme={scheme}
              trades={marks}
              lines={lines}
            />
          </Box>
          <Box w={{ base: '100%', md: 340 }} style={{ flexShrink: 0 }}>
            <DepthLadder symbol={symbol} exchange={exchange} />
          </Box>
        </Flex>

        <VisuallyHidden>
          <ul aria-label="Orders on the chart">
            {marks.length + lines.length === 0 && (
              <li>No fills or working orders of {symbol} on the chart.</li>
            )}
            {lines.map((l) => (
              <li key={l.key}>{l.description}</li>
            ))}
            {marks.map((m, i) => (
              <li key={`${m.time}:${i}`}>{m.description}</li>
            ))}
          </ul>
        </VisuallyHidden>
      </Stack>
    </Container>
  );
}
