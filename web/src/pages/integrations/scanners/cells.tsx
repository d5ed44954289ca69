/**
 * The cells of a scanner's row (or phone card) in the scanners list: its mode as a badge, its
 * sizing with the number of overrides, and its trading window with the square-off time.
 */
import { Badge, Text } from '@mantine/core';
import { formatCount, formatRupees } from '../../../format-number';
import type { Scanner } from '../../../features/integrations/api/types';

// docs/rules/web.md#number-formats: shares are a count, capital is money.
const sizing = (s: Scanner) =>
  s.quantity !== null ? `${formatCount(s.quantity)} shares` : `${formatRupees(s.capital ?? 0)} per symbol`;

export const modeBadge = (s: Scanner) => (
  <Badge color={s.mode === 'live' ? 'red' : 'orange'} variant="light" style={{ minWidth: 'max-content' }}>
    {s.mode === 'live' ? 'Live' : 'Analyze'}
  </Badge>
);
export const sizingCell = (s: Scanner) => (
  <>
    {sizing(s)}
    {Object.keys(s.overrides).length > 0 && (
      <Text size="xs" c="dimmed" component="span" display="block">
        {Object.keys(s.overrides).length} override{Object.keys(s.overrides).length === 1 ? '' : 's'}
      </Text>
    )}
  </>
);
export const windowCell = (s: Scanner) => (
  <>
    {s.window_start}–{s.window_end}
    {s.squareoff_time && (
      <Text size="xs" c="dimmed" component="span" display="block">
        square-off {s.squareoff_time}
      </Text>
    )}
  </>
);
