/**
 * The tools algodesk offers agents (docs/rules/mcp.md#mcp-tools), one per `/api/v1` call, grouped
 * by scope: `read:market`, `read:account`, `write:orders`. A tool is run as the same HTTP call a
 * script would make — the same validation, analyzer/live routing, Action Center, rate limits and
 * events — so the agent can do nothing the user's own API could not. Input shapes are given to
 * the agent loosely typed and described; the route's schema is the judge of every field.
 */
import { z } from 'zod';

export const MCP_SCOPES = ['read:market', 'read:account', 'write:orders'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

export interface McpTool {
  name: string;
  scope: McpScope;
  title: string;
  description: string;
  /** The `/api/v1` path the tool calls (POST, the API key in the body). */
  path: string;
  input: z.ZodRawShape;
  /** Fields the tool always sends, over whatever the agent gave (what makes the call this tool's). */
  fixed?: Readonly<Record<string, unknown>>;
}

const str = (d: string) => z.string().describe(d);
const opt = (d: string) => z.string().optional().describe(d);
const num = (d: string) => z.union([z.number(), z.string()]).describe(d);
const symbol = {
  symbol: str('Symbol in OpenAlgo format, e.g. SBIN, NIFTY25AUG2626000CE'),
  exchange: str('NSE, BSE, NFO, BFO, CDS, BCD, MCX, NSE_INDEX, BSE_INDEX'),
};
const order = {
  strategy: str('A name for the strategy placing the order'),
  ...symbol,
  action: str('BUY or SELL'),
  quantity: num('Quantity (units, a multiple of the lot size for F&O)'),
  pricetype: opt('MARKET (default), LIMIT, SL or SL-M'),
  product: opt('MIS (default), CNC or NRML'),
  price: num('Limit price for LIMIT and SL').optional(),
  trigger_price: num('Trigger price for SL and SL-M').optional(),
};

const tool = (
  scope: McpScope,
  name: string,
  title: string,
  description: string,
  path: string,
  input: z.ZodRawShape = {},
): McpTool => ({
  name,
  scope,
  title,
  description,
  path,
  input,
});

export const MCP_TOOLS: readonly McpTool[] = [
  // read:market
  tool(
    'read:market',
    'search_symbols',
    'Search symbols',
    'Search the master contract for instruments matching a query.',
    'search',
    {
      query: str('Text to search, e.g. SBIN or NIFTY 26000 CE'),
      exchange: opt('Limit to one exchange'),
    },
  ),
  tool(
    'read:market',
    'get_quote',
    'Quote',
    'Last price, bid, ask, OHLC, volume and OI of one instrument.',
    'quotes',
    symbol,
  ),
  tool(
    'read:market',
    'get_multi_quotes',
    'Quotes',
    'Quotes of several instruments in one call.',
    'multiquotes',
    {
      symbols: z.array(z.object(symbol)).describe('The instruments'),
    },
  ),
  tool(
    'read:market',
    'get_depth',
    'Market depth',
    'Five levels of bids and asks of one instrument.',
    'depth',
    symbol,
  ),
  tool('read:market', 'get_history', 'Candles', 'Historical candles of one instrument.', 'history', {
    ...symbol,
    interval: str('1m, 3m, 5m, 10m, 15m, 30m, 1h or D (the broker decides which it serves)'),
    start_date: str('YYYY-MM-DD'),
    end_date: str('YYYY-MM-DD'),
  }),
  tool(
    'read:market',
    'get_expiries',
    'Expiry dates',
    'Expiry dates of futures or options of an underlying.',
    'expiry',
    {
      ...symbol,
      instrumenttype: str('futures or options'),
    },
  ),
  tool(
    'read:market',
    'get_option_chain',
    'Option chain',
    'Calls and puts around the at-the-money strike.',
    'optionchain',
    {
      underlying: str('e.g. NIFTY'),
      exchange: str('The underlying exchange, e.g. NSE_INDEX'),
      expiry_date: str('DDMMMYY, e.g. 25AUG26'),
      strike_count: num('Strikes each side of ATM').optional(),
    },
  ),
  tool(
    'read:market',
    'get_option_symbol',
    'Option symbol',
    'The option symbol at an offset from ATM (ATM, ITMn, OTMn).',
    'optionsymbol',
    {
      underlying: str('e.g. NIFTY'),
      exchange: str('The underlying exchange, e.g. NSE_INDEX'),
      expiry_date: str('DDMMMYY'),
      offset: str('ATM, ITM1…ITM50, OTM1…OTM50'),
      option_type: str('CE or PE'),
    },
  ),
  tool('read:market', 'get_holidays', 'Market holidays', 'Trading holidays of a year.', 'market/holidays', {
    year: num('e.g. 2026').optional(),
  }),
  tool(
    'read:market',
    'get_timings',
    'Market timings',
    'Each exchange’s session on a date.',
    'market/timings',
    { date: str('YYYY-MM-DD') },
  ),
  // read:account
  tool('read:account', 'get_funds', 'Funds', 'Available cash, collateral, M2M and used margin.', 'funds'),
  tool('read:account', 'get_order_book', 'Order book', 'The day’s orders with statistics.', 'orderbook'),
  tool('read:account', 'get_trade_book', 'Trade book', 'The day’s fills.', 'tradebook'),
  tool('read:account', 'get_position_book', 'Positions', 'Net positions.', 'positionbook'),
  tool('read:account', 'get_holdings', 'Holdings', 'Delivery holdings with statistics.', 'holdings'),
  tool('read:account', 'get_order_status', 'Order status', 'One order’s current state.', 'orderstatus', {
    orderid: str('The order id'),
    strategy: opt('The strategy name'),
  }),
  tool(
    'read:account',
    'get_open_position',
    'Open position',
    'Net quantity of one position.',
    'openposition',
    {
      ...symbol,
      product: str('MIS, CNC or NRML'),
      strategy: opt('The strategy name'),
    },
  ),
  tool(
    'read:account',
    'get_analyzer_status',
    'Analyzer mode',
    'Whether orders go to the sandbox (analyzer) or the broker (live).',
    'analyzer',
  ),
  tool(
    'read:account',
    'list_strategies',
    'Strategies',
    'The user’s strategies and their state.',
    'strategy/list',
    { status: opt('Filter by status') },
  ),
  tool('read:account', 'get_strategy_runs', 'Strategy runs', 'A strategy’s runs.', 'strategy/runs', {
    strategy_id: num('The strategy id'),
  }),
  tool(
    'read:account',
    'get_strategy_events',
    'Strategy events',
    'A strategy’s event trail.',
    'strategy/events',
    {
      strategy_id: num('The strategy id'),
      run_id: num('Only this run').optional(),
      limit: num('At most this many').optional(),
    },
  ),
  // write:orders
  tool(
    'write:orders',
    'place_order',
    'Place an order',
    'Places one order (analyzer or live as the service is set; the Action Center for a semi-automatic key).',
    'placeorder',
    order,
  ),
  tool(
    'write:orders',
    'place_smart_order',
    'Smart order',
    'Places the order that brings a position to position_size.',
    'placesmartorder',
    {
      ...order,
      position_size: num('The target net position (signed)'),
    },
  ),
  tool(
    'write:orders',
    'place_basket_order',
    'Basket order',
    'Places up to 50 orders, BUY legs first.',
    'basketorder',
    {
      strategy: str('A name for the strategy'),
      orders: z.array(z.object(order).partial({ strategy: true })).describe('The legs'),
    },
  ),
  tool(
    'write:orders',
    'place_split_order',
    'Split order',
    'Places an order in chunks of splitsize.',
    'splitorder',
    {
      ...order,
      splitsize: num('The most each child order carries'),
    },
  ),
  tool('write:orders', 'modify_order', 'Modify an order', 'Changes an open order.', 'modifyorder', {
    ...order,
    orderid: str('The order id'),
    disclosed_quantity: num('Disclosed quantity').optional(),
  }),
  tool('write:orders', 'cancel_order', 'Cancel an order', 'Cancels one open order.', 'cancelorder', {
    orderid: str('The order id'),
    strategy: opt('The strategy name'),
  }),
  tool(
    'write:orders',
    'cancel_all_orders',
    'Cancel all orders',
    'Cancels every open order.',
    'cancelallorder',
    { strategy: opt('The strategy name') },
  ),
  tool(
    'write:orders',
    'close_all_positions',
    'Close positions',
    'Closes every open position with MARKET orders.',
    'closeposition',
    { strategy: opt('The strategy name') },
  ),
  {
    // OpenAlgo's way to close one position: a smart order to a position size of 0, which sells a
    // long or buys back a short at market (nothing when there is no position).
    ...tool(
      'write:orders',
      'close_position',
      'Close a position',
      'Closes one open position (symbol, exchange, product) with a MARKET order; nothing when flat.',
      'placesmartorder',
      {
        strategy: str('A name for the strategy closing the position'),
        ...symbol,
        product: str('MIS, CNC or NRML: the product of the position'),
      },
    ),
    fixed: { action: 'SELL', quantity: '0', position_size: '0', pricetype: 'MARKET' },
  },
  tool(
    'write:orders',
    'start_strategy',
    'Start a strategy',
    'Starts a batch strategy run.',
    'strategy/start',
    {
      strategy_id: num('The strategy id'),
      mode: str('sandbox or live'),
    },
  ),
  tool(
    'write:orders',
    'stop_strategy',
    'Stop a strategy',
    'Stops a strategy’s run and exits its legs.',
    'strategy/stop',
    { strategy_id: num('The strategy id') },
  ),
];

export const toolByName = (name: string): McpTool | undefined => MCP_TOOLS.find((t) => t.name === name);
