import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { SearchService } from './search.service.js';
import { pageForBrowsers } from '../web/negotiated-page.js';
import type { WebShell } from '../web/web.plugin.js';
import {
  ExpiriesQuery,
  ExpiriesResponse,
  LegacySearchQuery,
  PublicSearchBody,
  PublicSearchResponse,
  SessionSearchQuery,
  SessionSearchResponse,
  TokenQuery,
  TokenResponse,
  UnderlyingsQuery,
  UnderlyingsResponse,
} from './search.schema.js';

/** `POST /api/v1/search {apikey, query, exchange?}` (OpenAlgo-compatible; API rate limit). */
export function publicSearchRoutes(
  app: App,
  deps: { search: SearchService; apiKeyGuard: ApiKeyGuard; rateLimit: RateLimitHook },
): void {
  app.post(
    '/api/v1/search',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.apiKeyGuard,
      schema: {
        summary: 'Search instruments',
        tags: ['openalgo-api'],
        body: PublicSearchBody,
        response: { 200: PublicSearchResponse, 400: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      },
    },
    // The body is serialised by the service (per-instrument JSON kept), so it is sent as text.
    async (req, reply) =>
      reply
        .type('application/json; charset=utf-8')
        // A string payload is sent as is (the 200 schema stays as the documented shape).
        .send((await deps.search.publicSearchJson(req.body.query, req.body.exchange)) as never),
  );
}

/** `/search/*`: any logged-in user, no rate limiter (spec "Limits"). */
export function sessionSearchRoutes(
  app: App,
  deps: {
    search: SearchService;
    guard: SessionGuard;
    /** The console's app shell when it is built (the web module registers after this one). */
    webShell?: () => WebShell | undefined;
  },
): void {
  const user = { preHandler: deps.guard() };
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };
  app.get(
    '/search/api/search',
    {
      ...user,
      schema: {
        summary: 'Search instruments',
        tags: ['market'],
        querystring: SessionSearchQuery,
        response: { 200: SessionSearchResponse, ...errors },
      },
    },
    (req) => deps.search.sessionSearch(req.query),
  );
  app.get(
    '/search/api/expiries',
    {
      ...user,
      schema: {
        summary: 'Expiry dates of an underlying',
        tags: ['market'],
        querystring: ExpiriesQuery,
        response: { 200: ExpiriesResponse, ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, expiries: await deps.search.expiries(req.query) }),
  );
  app.get(
    '/search/api/underlyings',
    {
      ...user,
      schema: {
        summary: 'Underlyings that have derivatives',
        tags: ['market'],
        querystring: UnderlyingsQuery,
        response: { 200: UnderlyingsResponse, ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, underlyings: await deps.search.underlyings(req.query) }),
  );
  // Legacy search: the query comes from `symbol`, not `q`.
  app.get(
    '/search/',
    {
      ...user,
      schema: {
        summary: 'Search instruments (the legacy form: the query in `symbol`)',
        tags: ['market'],
        querystring: LegacySearchQuery,
        response: { 200: SessionSearchResponse, ...errors },
      },
    },
    (req) => deps.search.sessionSearch({ q: req.query.symbol, exchange: req.query.exchange }),
  );
  app.get(
    '/search/token',
    {
      // Also the console's page (docs/rules/web.md#negotiated-pages).
      onRequest: pageForBrowsers(deps.webShell),
      ...user,
      schema: {
        summary: 'Look up an instrument by symbol or token',
        tags: ['market'],
        querystring: TokenQuery,
        response: { 200: TokenResponse, ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await deps.search.token(req.query) }),
  );
}
