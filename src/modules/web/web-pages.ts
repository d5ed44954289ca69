/**
 * The web console's pages: the client-side paths the server answers with the app shell
 * (docs/rules/web.md#app-shell-paths). One list, read by the server (which paths get the shell)
 * and by the console's router (web/src/routes.tsx), so the two never differ. Paths are
 * OpenAlgo's, so its users find their way. Exact paths only: an unknown path (a scanner's probe)
 * still answers the JSON 404 and feeds the 404 tracker. A leaf file: no imports.
 */
export const PAGE_PATHS = {
  home: '/',
  setup: '/setup',
  login: '/login',
  resetPassword: '/reset-password',
  dashboard: '/dashboard',
  profile: '/profile',
  securityLogs: '/logs/security',
  trafficLogs: '/logs/traffic',
  latencyLogs: '/logs/latency',
  admin: '/admin',
  adminFreeze: '/admin/freeze',
  adminHolidays: '/admin/holidays',
  adminTimings: '/admin/timings',
  adminErrors: '/admin/errors',
  adminSystem: '/admin/system',
  adminUsers: '/admin/users',
  adminBrokers: '/admin/brokers',
  scanners: '/scanners',
  /** OpenAlgo's name of the scanners page. */
  chartink: '/chartink',
  flows: '/flows',
  adminAgents: '/admin/mcp',
  orderbook: '/orderbook',
  tradebook: '/tradebook',
  gtt: '/gtt',
  positions: '/positions',
  holdings: '/holdings',
  actionCenter: '/action-center',
  search: '/search',
  strategies: '/strategy',
  strategyNew: '/strategy/new',
  analyzer: '/analyzer',
  broker: '/broker',
  masterContract: '/master-contract',
  watchlist: '/watchlist',
} as const;

export type PageName = keyof typeof PAGE_PATHS;
export type PagePath = (typeof PAGE_PATHS)[PageName];

/** Every page path, each answered with the app shell by the server. */
export const ALL_PAGE_PATHS: readonly PagePath[] = Object.values(PAGE_PATHS);

/**
 * Console pages whose path is also a JSON route of the server (OpenAlgo's `/apikey`, whose
 * `GET` scripts already read as JSON): the route answers a browser's navigation (`Accept`
 * led by `text/html`) with the app shell and every other request as before
 * (docs/rules/web.md#negotiated-pages). The web plugin registers no route of its own for them.
 */
export const NEGOTIATED_PAGE_PATHS = {
  apikey: '/apikey',
  /** The legacy token lookup (`GET /search/token?symbol=…` answers JSON). */
  searchToken: '/search/token',
} as const;

/** An exchange as a page path names it (`NSE`, `NSE_INDEX`). */
const EXCHANGE_PARAM = /^[A-Z][A-Z_]{1,11}$/;
/** A trading symbol or underlying as a path segment carries it, decoded (`NIFTY 50`, `M&M`, `BAJAJ-AUTO`). */
const SYMBOL_PARAM = /^[A-Z0-9][A-Z0-9 &._-]{0,59}$/;

/**
 * Pages with parameters in their path (docs/rules/web.md#app-shell-paths): the pattern in the
 * console's router's syntax, and what each parameter must be (decoded). A path that does not
 * match (`/strategy/x`) is not a page and answers the JSON 404.
 */
export const PAGE_PATTERNS = {
  strategy: { path: '/strategy/:id', params: { id: /^[1-9]\d{0,9}$/ } },
  chart: { path: '/chart/:exchange/:symbol', params: { exchange: EXCHANGE_PARAM, symbol: SYMBOL_PARAM } },
  optionChain: { path: '/optionchain/:underlying', params: { underlying: SYMBOL_PARAM } },
} as const;

/** The console's path of one strategy's page. */
export const strategyPagePath = (id: number | string): string => `/strategy/${id}`;

/** The console's chart of one instrument. */
export const chartPagePath = (exchange: string, symbol: string): string =>
  `/chart/${encodeURIComponent(exchange)}/${encodeURIComponent(symbol)}`;

/** The console's option chain of one underlying. */
export const optionChainPagePath = (underlying: string): string =>
  `/optionchain/${encodeURIComponent(underlying)}`;

/** Whether a request's `Accept` header asks for a page (a browser's navigation) rather than data. */
export function wantsPage(accept: string | undefined): boolean {
  return accept !== undefined && /^\s*text\/html\b/i.test(accept);
}
