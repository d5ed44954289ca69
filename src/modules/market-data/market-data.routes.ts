import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import { badRequest } from '../../platform/errors.js';
import { documentHook, hookDoc } from '../../platform/http/hook-doc.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { MarketDataService } from './market-data.service.js';
import type { OptionsService } from './options.service.js';
import {
  ChainBody,
  ChainResponse,
  DepthResponse,
  GreeksBody,
  GreeksResponse,
  MultiGreeksBody,
  MultiGreeksResponse,
  SyntheticBody,
  SyntheticResponse,
  TickerParams,
  TickerQuery,
  TickerResponse,
  HistoryBody,
  HistoryResponse,
  MultiQuotesBody,
  MultiQuotesResponse,
  QuotesResponse,
  SymbolBody,
} from './market-data.schema.js';

/** Every failure a data route may answer: bad input, key, session, broker status, timeout. */
const errors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
  502: ErrorBody,
  503: ErrorBody,
  504: ErrorBody,
};

/** `POST /api/v1/{quotes,multiquotes,depth,history}` (OpenAlgo-compatible; API rate limit). */
export function marketDataRoutes(
  app: App,
  deps: { data: MarketDataService; apiKeyGuard: ApiKeyGuard; rateLimit: RateLimitHook },
): void {
  const guarded = { onRequest: deps.rateLimit, preHandler: deps.apiKeyGuard };
  const tags = ['openalgo-api'];
  const userOf = (req: { apiPrincipal?: { userId: number } }) => req.apiPrincipal!.userId;

  app.post(
    '/api/v1/quotes',
    {
      ...guarded,
      schema: {
        summary: 'Quote of one symbol (OHLC, LTP, best bid and ask, previous close, volume, OI)',
        tags,
        body: SymbolBody,
        response: { 200: QuotesResponse, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await deps.data.quote(userOf(req), req.body.symbol, req.body.exchange),
    }),
  );

  app.post(
    '/api/v1/multiquotes',
    {
      ...guarded,
      schema: {
        summary: 'Quotes of many symbols in one batched broker call',
        tags,
        body: MultiQuotesBody,
        response: { 200: MultiQuotesResponse, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      results: await deps.data.multiQuotes(userOf(req), req.body.symbols),
    }),
  );

  app.post(
    '/api/v1/depth',
    {
      ...guarded,
      schema: {
        summary: 'Market depth of one symbol: five bid and ask levels',
        tags,
        body: SymbolBody,
        response: { 200: DepthResponse, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await deps.data.depth(userOf(req), req.body.symbol, req.body.exchange),
    }),
  );

  app.post(
    '/api/v1/history',
    {
      ...guarded,
      schema: {
        summary: "Historical candles of one symbol from the broker's historical API",
        tags,
        body: HistoryBody,
        response: { 200: HistoryResponse, ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await deps.data.history(userOf(req), req.body) }),
  );
}

/**
 * `POST /api/v1/{optionchain,syntheticfuture,optiongreeks,multioptiongreeks}`: optiongreeks on its
 * own limit (`GREEKS_RATE_LIMIT`), the others on the API limit, as OpenAlgo has it.
 */
export function optionsRoutes(
  app: App,
  deps: {
    options: OptionsService;
    apiKeyGuard: ApiKeyGuard;
    rateLimit: RateLimitHook;
    greeksRateLimit: RateLimitHook;
  },
): void {
  const tags = ['openalgo-api'];
  const guarded = { onRequest: deps.rateLimit, preHandler: deps.apiKeyGuard };
  const userOf = (req: { apiPrincipal?: { userId: number } }) => req.apiPrincipal!.userId;

  app.post(
    '/api/v1/optionchain',
    {
      ...guarded,
      schema: {
        summary: 'Option chain of an underlying and expiry around the ATM strike, with quotes',
        tags,
        body: ChainBody,
        response: { 200: ChainResponse, ...errors },
      },
    },
    (req) => deps.options.optionChain(userOf(req), req.body),
  );

  app.post(
    '/api/v1/syntheticfuture',
    {
      ...guarded,
      schema: {
        summary: 'Synthetic future price from the ATM call and put (put-call parity)',
        tags,
        body: SyntheticBody,
        response: { 200: SyntheticResponse, ...errors },
      },
    },
    (req) => deps.options.syntheticFuture(userOf(req), req.body),
  );

  app.post(
    '/api/v1/optiongreeks',
    {
      onRequest: deps.greeksRateLimit,
      preHandler: deps.apiKeyGuard,
      schema: {
        summary: 'Implied volatility and Greeks (Black-76) of one option',
        tags,
        body: GreeksBody,
        response: { 200: GreeksResponse, ...errors },
      },
    },
    (req) => deps.options.optionGreeks(userOf(req), req.body),
  );

  app.post(
    '/api/v1/multioptiongreeks',
    {
      ...guarded,
      schema: {
        summary: 'Implied volatility and Greeks (Black-76) of up to 50 options in one batched quote',
        tags,
        body: MultiGreeksBody,
        response: { 200: MultiGreeksResponse, ...errors },
      },
    },
    (req) => deps.options.multiOptionGreeks(userOf(req), req.body),
  );
}

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

const IST_OFFSET_MS = 330 * 60_000;

/**
 * `GET /api/v1/ticker/<EXCHANGE:SYMBOL>?apikey=&interval=&from=&to=&format=json|txt`: the broker's
 * candles as history answers them (less `oi`), or OpenAlgo's plain-text rows
 * `SYMBOL,YYYY-MM-DD[,HH:MM:SS],open,high,low,close,volume` (IST; the time only intraday).
 */
export function tickerRoutes(
  app: App,
  deps: { data: MarketDataService; apiKeyGuard: ApiKeyGuard; rateLimit: RateLimitHook },
): void {
  app.get(
    '/api/v1/ticker/:symbol',
    {
      onRequest: deps.rateLimit,
      preHandler: queryKeyGuard(deps.apiKeyGuard),
      schema: {
        summary: 'Historical candles of EXCHANGE:SYMBOL as JSON or ticker text (OpenAlgo ticker)',
        tags: ['openalgo-api'],
        params: TickerParams,
        querystring: TickerQuery,
        response: { 200: TickerResponse, ...errors },
      },
    },
    async (req, reply) => {
      const parts = req.params.symbol.split(':');
      if (parts.length !== 2 || !parts[0] || !parts[1])
        throw badRequest('the path names one EXCHANGE:SYMBOL, such as NSE:RELIANCE');
      const [exchange, symbol] = [parts[0].toUpperCase(), parts[1].toUpperCase()];
      const q = req.query as TickerQuery;
      const interval = q.interval ?? 'D';
      const candles = await deps.data.history(req.apiPrincipal!.userId, {
        symbol,
        exchange,
        interval,
        start_date: q.from,
        end_date: q.to,
      });
      if (q.format === 'txt') {
        const daily = ['D', 'W', 'M'].includes(interval);
        const text = candles
          .map((c) => {
            const ist = new Date(c.timestamp * 1000 + IST_OFFSET_MS).toISOString();
            const when = daily ? ist.slice(0, 10) : `${ist.slice(0, 10)},${ist.slice(11, 19)}`;
            return `${symbol},${when},${c.open},${c.high},${c.low},${c.close},${c.volume}`;
          })
          .join('\n');
        // A string payload is sent as is (the 200 schema stays as the JSON shape).
        return reply.type('text/plain; charset=utf-8').send((text === '' ? '' : `${text}\n`) as never);
      }
      return {
        status: 'success' as const,
        data: candles.map(({ timestamp, open, high, low, close, volume }) => ({
          timestamp,
          open,
          high,
          low,
          close,
          volume,
        })),
      };
    },
  );
}
