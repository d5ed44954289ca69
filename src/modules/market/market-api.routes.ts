/**
 * OpenAlgo's market utilities on `/api/v1` (API key, API rate limit): `symbol`, `expiry`,
 * `instruments`, `intervals`, `market/holidays` and `market/timings`. `optionsymbol` needs a
 * price, so the sandbox module registers it with its price source
 * (src/modules/sandbox/http/utilities.routes.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import { isBroker } from '../../domain/brokers.js';
import { DERIVATIVE_EXCHANGES, HOLIDAY_EXCHANGES } from '../../domain/exchanges.js';
import { badRequest, notFound } from '../../platform/errors.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import { documentHook, hookDoc } from '../../platform/http/hook-doc.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { ContractsService } from './contracts.service.js';
import type { HolidaysService } from './holidays.service.js';
import { HISTORY_INTERVALS } from './history-intervals.js';
import type { InstrumentsExport } from './instruments-export.js';
import {
  API_MAX_YEAR,
  API_MIN_YEAR,
  ApiKeyOnlyBody,
  ExpiryBody,
  ExpiryResponse,
  HolidaysBody,
  HolidaysResponse,
  InstrumentsQuery,
  InstrumentsResponse,
  IntervalsResponse,
  SymbolBody,
  SymbolResponse,
  TimingsBody,
  TimingsResponse,
} from './market-api.schema.js';
import { expandInstrumentTypes } from './search-rules.js';
import type { SearchService } from './search.service.js';
import { expiryLabel } from './symbology.js';
import { isIsoDate, type ExchangeSession } from './timings.service.js';

export interface MarketApiDeps {
  search: Pick<SearchService, 'item'>;
  contracts: Pick<ContractsService, 'get' | 'expiries'>;
  exporter: InstrumentsExport;
  holidays: Pick<HolidaysService, 'list' | 'currentYear'>;
  sessionsOn(date: string): ExchangeSession[];
  /** `BROKER_NAME`; undefined when no live broker is configured. */
  brokerName: string | undefined;
  apiKeyGuard: ApiKeyGuard;
  rateLimit: RateLimitHook;
}

/** A quoted, bounded echo of client input for a message. */
const shown = (s: string) => JSON.stringify(s.length > 24 ? `${s.slice(0, 24)}…` : s);

const errors = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

/** The API-key guard for a GET: the key is the `apikey` query parameter (OpenAlgo's GET convention). */
function queryKeyGuard(guard: ApiKeyGuard): ApiKeyGuard {
  return documentHook<ApiKeyGuard>(
    function apiKeyFromQuery(req: FastifyRequest, reply: FastifyReply, done) {
      req.body = { apikey: (req.query as { apikey?: unknown }).apikey };
      guard(req, reply, done);
    },
    { answers: hookDoc(guard).answers ?? [] },
  );
}

export function marketApiRoutes(app: App, deps: MarketApiDeps): void {
  const post = (summary: string, body: unknown, ok: unknown) => ({
    onRequest: deps.rateLimit,
    preHandler: deps.apiKeyGuard,
    schema: { summary, tags: ['openalgo-api'], body, response: { 200: ok, ...errors } },
  });

  app.post(
    '/api/v1/symbol',
    post('The master-contract fields of one instrument', SymbolBody, SymbolResponse),
    async (req) => {
      const symbol = (req.body as SymbolBody).symbol.trim().toUpperCase();
      const { exchange } = req.body as SymbolBody;
      const inst = await deps.contracts.get(symbol, exchange);
      if (!inst) throw notFound(`Symbol ${shown(symbol)} not found on ${exchange}`);
      return { status: 'success' as const, data: { id: inst.id, ...deps.search.item(inst) } };
    },
  );

  app.post(
    '/api/v1/expiry',
    post("Expiry dates of an underlying's futures or options", ExpiryBody, ExpiryResponse),
    async (req) => {
      const body = req.body as ExpiryBody;
      if (!DERIVATIVE_EXCHANGES.has(body.exchange))
        throw badRequest(
          `exchange ${body.exchange} has no expiries; use ${[...DERIVATIVE_EXCHANGES].join(', ')}`,
        );
      const underlying = body.symbol.trim().toUpperCase();
      const expiries = await deps.contracts.expiries({
        exchanges: [body.exchange],
        underlying,
        instrumentTypes: expandInstrumentTypes([body.instrumenttype]),
      });
      if (expiries.length === 0)
        throw notFound(
          `No expiry dates found for ${shown(underlying)} ${body.instrumenttype} in ${body.exchange}`,
        );
      return {
        status: 'success' as const,
        message: `Found ${expiries.length} expiry dates for ${underlying} ${body.instrumenttype} in ${body.exchange}`,
        data: expiries.map(expiryLabel),
      };
    },
  );

  app.get(
    '/api/v1/instruments',
    {
      onRequest: deps.rateLimit,
      preHandler: queryKeyGuard(deps.apiKeyGuard),
      schema: {
        summary: 'The whole master contract, or one exchange of it (JSON or CSV, streamed)',
        tags: ['openalgo-api'],
        querystring: InstrumentsQuery,
        response: { 200: InstrumentsResponse, ...errors },
      },
    },
    async (req, reply) => {
      const { exchange, format = 'json' } = req.query;
      const opened = await deps.exporter.open(exchange);
      const stream = deps.exporter.stream(format, opened, exchange);
      if (format === 'csv')
        reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="instruments_${exchange ?? 'all'}.csv"`);
      else reply.type('application/json; charset=utf-8');
      // A stream is sent as it is read (the 200 schema documents the JSON shape).
      return reply.send(stream as never);
    },
  );

  app.post(
    '/api/v1/intervals',
    post("History intervals the configured broker's API serves", ApiKeyOnlyBody, IntervalsResponse),
    async () => {
      const broker = deps.brokerName;
      if (!broker || !isBroker(broker))
        throw notFound('No broker is configured (BROKER_NAME): the history intervals depend on the broker');
      return { status: 'success' as const, data: HISTORY_INTERVALS[broker] };
    },
  );

  app.post(
    '/api/v1/market/holidays',
    post('Market holidays of a year (special sessions included)', HolidaysBody, HolidaysResponse),
    async (req) => {
      const year = (req.body as { year?: number }).year ?? deps.holidays.currentYear();
      if (year < API_MIN_YEAR || year > API_MAX_YEAR)
        throw badRequest(`year must be between ${API_MIN_YEAR} and ${API_MAX_YEAR}`);
      const list = await deps.holidays.list(year);
      return {
        status: 'success' as const,
        year,
        timezone: 'Asia/Kolkata' as const,
        data: list.map((h) => ({
          date: h.holiday_date,
          description: h.description,
          holiday_type: h.holiday_type,
          closed_exchanges: h.closed_exchanges,
          open_exchanges: h.open_exchanges.map((o) => ({
            exchange: o.exchange,
            start_time: o.start_ms,
            end_time: o.end_ms,
          })),
        })),
      };
    },
  );

  app.post(
    '/api/v1/market/timings',
    post(
      "Each exchange's trading session on a date (none on weekends and holidays)",
      TimingsBody,
      TimingsResponse,
    ),
    async (req) => {
      const { date } = req.body as { date: string };
      if (!isIsoDate(date) || date < `${API_MIN_YEAR}-01-01` || date > `${API_MAX_YEAR}-12-31`)
        throw badRequest(
          `date ${shown(date)} must be a real calendar date written YYYY-MM-DD, ${API_MIN_YEAR}-01-01 to ${API_MAX_YEAR}-12-31`,
        );
      const listed = new Set<string>(HOLIDAY_EXCHANGES);
      return {
        status: 'success' as const,
        data: deps
          .sessionsOn(date)
          .filter((s) => s.open && listed.has(s.exchange))
          .map((s) => ({ exchange: s.exchange, start_time: s.start_ms!, end_time: s.end_ms! })),
      };
    },
  );
}
