import { describe, expect, it } from 'vitest';
import { NEGOTIATED_PAGE_PATHS, PAGE_PATHS, PAGE_PATTERNS } from '../../src/modules/web/web-pages.js';
import { installPageTitles, PAGE_TITLES, titleForRoute } from '../../web/src/layout/page-titles.js';

/** A router's state with `path` as its page's route, under a layout route without a path. */
const stateAt = (path: string | undefined) => ({ matches: [{ route: {} }, { route: { path } }] });

describe('docs/rules/web.md#page-titles: every page names its tab', () => {
  const routes = [
    ...Object.values(PAGE_PATHS),
    ...Object.values(NEGOTIATED_PAGE_PATHS),
    ...Object.values(PAGE_PATTERNS).map((p) => p.path),
  ];

  it('has a name for every page path the server answers with the console', () => {
    for (const path of routes) expect(titleForRoute(path), path).toMatch(/^\S.* · algodesk$/);
    expect(Object.keys(PAGE_TITLES).sort()).toEqual([...new Set(routes)].sort());
  });

  it('names each page apart, but for the paths that are one page (/ and /dashboard, /chartink and /scanners)', () => {
    const byTitle = new Map<string, string[]>();
    for (const path of routes)
      byTitle.set(titleForRoute(path), [...(byTitle.get(titleForRoute(path)) ?? []), path]);
    const shared = [...byTitle.values()].filter((paths) => paths.length > 1).map((p) => p.sort());
    expect(shared.sort()).toEqual(
      [
        [PAGE_PATHS.home, PAGE_PATHS.dashboard].sort(),
        [PAGE_PATHS.chartink, PAGE_PATHS.scanners].sort(),
      ].sort(),
    );
  });

  it('writes "<page> · algodesk", "Page not found" for the catch-all, the name alone for an unknown route', () => {
    expect(titleForRoute(PAGE_PATHS.positions)).toBe('Positions · algodesk');
    expect(titleForRoute(PAGE_PATTERNS.strategy.path)).toBe('Strategy · algodesk');
    expect(titleForRoute('*')).toBe('Page not found · algodesk');
    expect(titleForRoute('/not-a-route-yet')).toBe('algodesk');
    expect(titleForRoute(undefined)).toBe('algodesk');
  });

  it('follows the router: the first page at once, then each navigation', () => {
    let listener: ((s: ReturnType<typeof stateAt>) => void) | undefined;
    const router = {
      state: stateAt(PAGE_PATHS.login),
      subscribe(fn: (s: ReturnType<typeof stateAt>) => void) {
        listener = fn;
        return () => (listener = undefined);
      },
    };
    const doc = { title: 'algodesk' };
    const stop = installPageTitles(router, doc);
    expect(doc.title).toBe('Sign in · algodesk');
    listener!(stateAt(PAGE_PATHS.orderbook));
    expect(doc.title).toBe('Order book · algodesk');
    listener!(stateAt('*'));
    expect(doc.title).toBe('Page not found · algodesk');
    stop();
    expect(listener).toBeUndefined();
  });
});
