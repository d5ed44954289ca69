/**
 * The chart's legend: the open, high, low, close and volume of the candle under the cursor, or of
 * the newest candle when the cursor is elsewhere (docs/rules/web.md#number-formats, #times-in-ist).
 */
import { Group, Text } from '@mantine/core';
import { NO_NUMBER, formatCount, formatPrice } from '../../../format-number';
import { candleTimeLabel } from './chart-theme';
import type { Candle, HistoryInterval } from '../../../features/market/candles';

function Figure({
  label,
  value,
  testId,
  color,
}: {
  label: string;
  value: string;
  testId: string;
  color?: string;
}) {
  return (
    <Text size="sm" span style={{ fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' }}>
      <Text span c="dimmed" size="xs" fw={600} mr={4}>
        {label}
      </Text>
      <Text span fw={600} c={color} data-testid={testId}>
        {value}
      </Text>
    </Text>
  );
}

export function ChartLegend({ candle, interval }: { candle: Candle | undefined; interval: HistoryInterval }) {
  const tone = candle ? (candle.close >= candle.open ? 'teal.8' : 'red.8') : undefined;
  const price = (v: number | undefined) => (v === undefined ? NO_NUMBER : formatPrice(v));
  return (
    <Group
      gap="sm"
      wrap="wrap"
      mb={4}
      role="group"
      aria-label="Candle under the cursor"
      data-testid="chart-legend"
    >
      <Text size="xs" c="dimmed" data-testid="legend-time" style={{ whiteSpace: 'nowrap' }}>
        {candle ? candleTimeLabel(candle.time, interval) : NO_NUMBER}
      </Text>
      <Figure label="O" value={price(candle?.open)} testId="legend-open" color={tone} />
      <Figure label="H" value={price(candle?.high)} testId="legend-high" color={tone} />
      <Figure label="L" value={price(candle?.low)} testId="legend-low" color={tone} />
      <Figure label="C" value={price(candle?.close)} testId="legend-close" color={tone} />
      <Figure label="V" value={candle ? formatCount(candle.volume) : NO_NUMBER} testId="legend-volume" />
    </Group>
  );
}
