/**
 * Every page's document title (docs/rules/web.md#page-titles), set in one place: the router's
 * state names the route that drew the page, and this map names the page — "Positions · algodesk".
 * A page path added to `PAGE_PATHS`, `NEGOTIATED_PAGE_PATHS` or `PAGE_PATTERNS`
 * (src/modules/web/web-pages.ts) does not type-check until it has its entry here, and
 * test/web/page-titles.test.ts checks that no two pages share a title.
 */
import { NEGOTIATED_PAGE_PATHS, PAGE_PATHS, PAGE_PATTERNS } from '../../../src/modules/web/web-pages.js';

/** The product's name, the last part of every title (and the whole title before a page is known). */
export const APP_NAME = 'algodesk';

/** What a tab says on a path no route draws (the console's own 404 page). */
export const NOT_FOUND_TITLE = 'Page not found';

type RoutePath =
  | (typeof PAGE_PATHS)[keyof typeof PAGE_PATHS]
  | (typeof NEGOTIATED_PAGE_PATHS)[keyof typeof NEGOTIATED_PAGE_PATHS]
  | (typeof PAGE_PATTERNS)[keyof typeof PAGE_PATTERNS]['path'];

/** The page's name by the path of its route (a pattern for pages with an id: `/strategy/:id`). */
export const PAGE_TITLES: Record<RoutePath, string> = {
  [PAGE_PATHS.home]: 'Dashboard',
  [PAGE_PATHS.setup]: 'Set up',
  [PAGE_PATHS.login]: 'Sign in',
  [PAGE_PATHS.resetPassword]: 'Reset password',
  [PAGE_PATHS.dashboard]: 'Dashboard',
  [PAGE_PATHS.profile]: 'Profile',
  [PAGE_PATHS.securityLogs]: 'Security',
  [PAGE_PATHS.trafficLogs]: 'Traffic',
  [PAGE_PATHS.latencyLogs]: 'Latency',
  [PAGE_PATHS.admin]: 'Administration',
  [PAGE_PATHS.adminFreeze]: 'Freeze quantities',
  [PAGE_PATHS.adminHolidays]: 'Market holidays',
  [PAGE_PATHS.adminTimings]: 'Market timings',
  [PAGE_PATHS.adminErrors]: 'Error log',
  [PAGE_PATHS.adminSystem]: 'System',
  [PAGE_PATHS.adminUsers]: 'Users',
  [PAGE_PATHS.adminBrokers]: 'Broker apps',
  [PAGE_PATHS.scanners]: 'Scanners',
  [PAGE_PATHS.chartink]: 'Scanners',
  [PAGE_PATHS.flows]: 'Flows',
  [PAGE_PATHS.adminAgents]: 'Agents',
  [PAGE_PATHS.orderbook]: 'Order book',
  [PAGE_PATHS.tradebook]: 'Trade book',
  [PAGE_PATHS.gtt]: 'GTT orders',
  [PAGE_PATHS.positions]: 'Positions',
  [PAGE_PATHS.holdings]: 'Holdings',
  [PAGE_PATHS.actionCenter]: 'Action Center',
  [PAGE_PATHS.search]: 'Search',
  [PAGE_PATHS.strategies]: 'Strategies',
  [PAGE_PATHS.strategyNew]: 'New strategy',
  [PAGE_PATHS.analyzer]: 'Analyzer',
  [PAGE_PATHS.broker]: 'Broker',
  [PAGE_PATHS.masterContract]: 'Master contract',
  [NEGOTIATED_PAGE_PATHS.apikey]: 'API key',
  [NEGOTIATED_PAGE_PATHS.searchToken]: 'Token lookup',
  [PAGE_PATHS.watchlist]: 'Market watch',
  [PAGE_PATTERNS.strategy.path]: 'Strategy',
  [PAGE_PATTERNS.chart.path]: 'Chart',
  [PAGE_PATTERNS.optionChain.path]: 'Option chain',
};

/** The document title of a page: "Positions · algodesk". */
export const documentTitle = (page: string | undefined): string =>
  page ? `${page} · ${APP_NAME}` : APP_NAME;

/**
 * The title for the route that drew the page (its `path` as the router declares it): the map's
 * name, "Page not found" for the catch-all route, the product's name alone for a route the map
 * does not know yet.
 */
export function titleForRoute(routePath: string | undefined): string {
  if (routePath === '*') return documentTitle(NOT_FOUND_TITLE);
  if (routePath === undefined || !Object.hasOwn(PAGE_TITLES, routePath)) return documentTitle(undefined);
  return documentTitle(PAGE_TITLES[routePath as RoutePath]);
}

/** The part of a data router this needs: its state's deepest match, and a way to follow it. */
interface TitledRouter {
  state: { matches: ReadonlyArray<{ route: { path?: string } }> };
  subscribe(listener: (state: TitledRouter['state']) => void): () => void;
}

/** The route path of the deepest match (the page; the layout routes above it have none). */
const pagePath = (state: TitledRouter['state']): string | undefined => {
  for (let i = state.matches.length - 1; i >= 0; i--) {
    const path = state.matches[i]!.route.path;
    if (path !== undefined) return path;
  }
  return undefined;
};

/**
 * Keeps the document's title on the page the router shows, from the first page on (main.tsx
 * calls it once with `document`). Returns the unsubscribe.
 */
export function installPageTitles(router: TitledRouter, doc: { title: string }): () => void {
  const apply = (state: TitledRouter['state']) => {
    const title = titleForRoute(pagePath(state));
    if (doc.title !== title) doc.title = title;
  };
  apply(router.state);
  return router.subscribe(apply);
}
