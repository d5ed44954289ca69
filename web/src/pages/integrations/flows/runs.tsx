/**
 * A flow's runs as the webhook page shows them (docs/rules/flow.md#flow-runs), refreshed every
 * 10 s: each row opens to every node's outcome and its order id or message.
 */
import type { ReactNode } from 'react';
import { istDateTime } from '../../../ist-time';
import { OutcomeBadge } from '../../../components/webhooks/badges';
import { receivedColumns, type Column } from '../../../components/webhooks/columns';
import type { SourceAudit } from '../../../components/webhooks/WebhookSourcePage';
import { useFlowRuns } from '../../../features/integrations/api/flows';
import type { FlowRun, NodeOutcome } from '../../../features/integrations/api/types';

/** What a node did: its order, its message, or whether its condition held. */
function nodeDetail(n: NodeOutcome): ReactNode {
  if (n.orderid) return <>order {n.orderid}</>;
  if (n.message) return n.message;
  if (n.result !== undefined) return <>condition {n.result ? 'held' : 'did not hold'}</>;
  return '—';
}

/** The run's nodes, in the order they ran. */
const NODE_COLUMNS: Column<NodeOutcome>[] = [
  { header: 'Node', cell: (n) => n.id, mono: true },
  { header: 'Type', cell: (n) => n.type },
  { header: 'Outcome', cell: (n) => <OutcomeBadge status={n.status} /> },
  { header: 'Order id or message', cell: nodeDetail },
];

export const RUNS: SourceAudit<FlowRun, NodeOutcome> = {
  label: 'Runs',
  use: useFlowRuns,
  empty: 'This flow has not run yet.',
  rowTestId: 'run-row',
  columns: [
    ...receivedColumns(istDateTime),
    { header: 'Symbol', cell: (r) => r.symbol ?? '—', mono: true },
    { header: 'Message', cell: (r) => r.message },
  ],
  parts: { header: 'Nodes', of: (r) => r.nodes, key: (n) => n.id, columns: NODE_COLUMNS },
  partsLabel: (r) => `Nodes of the run at ${istDateTime(r.ts)}`,
};
