/**
 * The market depth of one instrument (docs/rules/web.md#depth): the book's levels as the feed
 * streams them (five on every Indian exchange; fewer when the source has fewer), bids on the left
 * and offers on the right, each level's price, quantity and orders, and the totals bid and offered
 * over the whole book (the quote's total buy and sell quantities; the levels' sum when the source
 * does not give them). Subscribed in Depth mode on the live socket while shown (the page, or the
 * ticket, holds the socket). A value the feed does not have is a dash, never 0.
 */
import { Group, Paper, Table, Text } from '@mantine/core';
import '@mantine/core/styles/Table.css';
import { useMemo } from 'react';
import { tickKey, useLiveTicks, type DepthLevel, type LiveQuote } from '../../api/live-ticks';
import { formatCount, formatPrice, NO_NUMBER } from '../../format-number';
import { PricesStale } from '../LiveStatus';

/** The levels a ladder shows at most. */
export const DEPTH_ROWS = 5;

const num = { fontVariantNumeric: 'tabular-nums' } as const;

/** The total of one side: the feed's figure, else the sum of the levels shown, else nothing. */
function total(given: number | null | undefined, side: DepthLevel[]): number | null {
  if (typeof given === 'number') return given;
  const known = side.filter((l) => typeof l.quantity === 'number');
  return known.length ? known.reduce((s, l) => s + l.quantity!, 0) : null;
}

const count = (v: number | null | undefined) => (typeof v === 'number' ? formatCount(v) : NO_NUMBER);

/** The ladder for a quote already subscribed in Depth mode (the ticket shares its subscription). */
export function DepthTable({ quote, label }: { quote: LiveQuote | undefined; label: string }) {
  const buy = quote?.depth?.buy ?? [];
  const sell = quote?.depth?.sell ?? [];
  const rows = Math.min(DEPTH_ROWS, Math.max(buy.length, sell.length, 1));
  const buyTotal = total(quote?.total_buy_quantity, buy);
  const sellTotal = total(quote?.total_sell_quantity, sell);
  return (
    <Table
      aria-label={label}
      data-testid="depth-ladder"
      withRowBorders={false}
      verticalSpacing={2}
      horizontalSpacing={6}
      fz="xs"
      style={num}
    >
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Bid</Table.Th>
          <Table.Th ta="right">Orders</Table.Th>
          <Table.Th ta="right">Qty</Table.Th>
          <Table.Th>Offer</Table.Th>
          <Table.Th ta="right">Orders</Table.Th>
          <Table.Th ta="right">Qty</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {Array.from({ length: rows }, (_, i) => {
          const b = buy[i];
          const s = sell[i];
          return (
            <Table.Tr key={i} data-testid="depth-level">
              <Table.Td c="teal.7" fw={i === 0 ? 700 : undefined}>
                {b ? formatPrice(b.price) : NO_NUMBER}
              </Table.Td>
              <Table.Td ta="right">{count(b?.orders)}</Table.Td>
              <Table.Td ta="right">{count(b?.quantity)}</Table.Td>
              <Table.Td c="red.7" fw={i === 0 ? 700 : undefined}>
                {s ? formatPrice(s.price) : NO_NUMBER}
              </Table.Td>
              <Table.Td ta="right">{count(s?.orders)}</Table.Td>
              <Table.Td ta="right">{count(s?.quantity)}</Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
      <Table.Tfoot>
        <Table.Tr>
          <Table.Th colSpan={2}>Total bid</Table.Th>
          <Table.Th ta="right" data-testid="depth-total-buy">
            {count(buyTotal)}
          </Table.Th>
          <Table.Th colSpan={2}>Total offer</Table.Th>
          <Table.Th ta="right" data-testid="depth-total-sell">
            {count(sellTotal)}
          </Table.Th>
        </Table.Tr>
      </Table.Tfoot>
    </Table>
  );
}

/** The depth of `symbol` on `exchange`, live from the feed while shown. */
export function DepthLadder({ symbol, exchange }: { symbol: string; exchange: string }) {
  const refs = useMemo(() => [{ symbol, exchange }], [symbol, exchange]);
  const ticks = useLiveTicks(refs, 'Depth');
  const quote = ticks.quotes.get(tickKey({ symbol, exchange }));
  return (
    <Paper withBorder p="xs">
      <Group justify="space-between" mb={4}>
        <Text size="sm" fw={600}>
          Market depth
        </Text>
        {ticks.stale && <PricesStale />}
      </Group>
      <DepthTable quote={quote} label={`Market depth of ${symbol} ${exchange}`} />
    </Paper>
  );
}
