/**
 * The flows page's shapes and constants (docs/rules/flow.md): a flow, a run with every node's
 * outcome, the webhook credentials issued once, the query key and API base, and the starter
 * definition a new flow begins from.
 */

export interface Flow {
  id: number;
  name: string;
  definition: unknown;
  enabled: boolean;
  created_at: number;
  updated_at: number;
}
export interface NodeOutcome {
  id: string;
  type: string;
  status: 'done' | 'skipped' | 'failed';
  result?: boolean;
  orderid?: string;
  message?: string;
}
export interface Run {
  id: number;
  ts: number;
  ip: string;
  result: string;
  http_status: number;
  symbol: string | null;
  message: string;
  nodes: NodeOutcome[] | null;
  duration_ms: number;
}
export interface Issued {
  webhook_token: string;
  webhook_url: string;
  secret: string;
}

export const KEY = ['flows'] as const;
export const BASE = '/flow/api/flows';

/** What a new flow starts from: buy or sell the webhook's action, within market hours. */
export const STARTER_DEFINITION = JSON.stringify(
  {
    exchange: 'NSE',
    symbol: 'SBIN',
    nodes: [
      {
        id: 'market_hours',
        type: 'condition',
        when: { kind: 'time_window', start: '09:20', end: '15:10' },
      },
      {
        id: 'order',
        type: 'place_order',
        symbol: '{{symbol}}',
        action: '{{webhook.action}}',
        quantity: 1,
        product: 'MIS',
      },
    ],
  },
  null,
  2,
);

export const nodeCount = (def: unknown) => {
  const nodes = (def as { nodes?: unknown } | null)?.nodes;
  return Array.isArray(nodes) ? nodes.length : 0;
};
