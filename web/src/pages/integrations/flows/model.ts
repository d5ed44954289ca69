/**
 * The flows page's constants (docs/rules/flow.md): the starter definition a new flow begins from,
 * and the number of nodes of a definition. The shapes the server answers are in
 * features/integrations/api/types.ts.
 */

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
