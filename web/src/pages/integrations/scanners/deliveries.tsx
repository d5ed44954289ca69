/**
 * A scanner's deliveries as the webhook page shows them (docs/rules/scanner.md#scanner-audit): the
 * last 100 alerts it received, refreshed every 10 s, each with its result, HTTP status and action
 * and, on demand, every symbol's outcome.
 */
import { istDateTime } from '../../../ist-time';
import { OutcomeBadge } from '../../../components/webhooks/badges';
import { receivedColumns, type Column } from '../../../components/webhooks/columns';
import type { SourceAudit } from '../../../components/webhooks/WebhookSourcePage';
import { useScannerDeliveries } from '../../../features/integrations/api/scanners';
import type { ScannerDelivery } from '../../../features/integrations/api/types';

type SymbolResult = NonNullable<ScannerDelivery['results']>[number];

/** A symbol of the alert: what was ordered, or why not. */
const SYMBOL_COLUMNS: Column<SymbolResult>[] = [
  { header: 'Symbol', cell: (r) => r.symbol, mono: true },
  { header: 'Outcome', cell: (r) => <OutcomeBadge status={r.status} /> },
  { header: 'Quantity', cell: (r) => r.quantity ?? '—' },
  { header: 'Order id or message', cell: (r) => r.orderid ?? r.message ?? '—' },
];

export const DELIVERIES: SourceAudit<ScannerDelivery, SymbolResult> = {
  label: 'Deliveries',
  use: useScannerDeliveries,
  empty: 'No alert has reached this scanner yet. Paste its webhook URL into Chartink’s alert.',
  rowTestId: 'delivery-row',
  columns: [
    ...receivedColumns(istDateTime),
    { header: 'HTTP', cell: (d) => d.http_status },
    { header: 'Action', cell: (d) => d.action ?? '—' },
    { header: 'Message', cell: (d) => d.message },
  ],
  // The alert's symbols, one row each.
  parts: { header: 'Symbols', of: (d) => d.results, key: (r) => r.symbol, columns: SYMBOL_COLUMNS },
  partsLabel: (d) => `Symbols of the delivery at ${istDateTime(d.ts)}`,
};
