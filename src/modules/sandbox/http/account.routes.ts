/**
 * The console's `/analyzer` page reads (docs/rules/web.md#account-pages), for the signed-in user
 * only: `GET /sandbox/api/account` — the sandbox account's funds, the configuration's facts
 * (starting funds, leverage, MIS square-off times, automatic reset) read-only, and the price
 * source in use with its newest quote's time; `GET /sandbox/api/analyzer-log` — the user's own
 * analyzer-mode requests and answers (the administrator's `/logs/api/analyzer` shows everyone's).
 * A request is logged without its API key (docs/rules/orders.md); the answer strips credential
 * fields again so none can reach the page. And `POST /sandbox/reset`, the signed-in user's reset
 * of their own account.
 * The account's records (contract note, fills, equity) are records.routes.ts.
 */
import { Type } from 'typebox';
import { effectivePriceSource, type PriceSourceConfig } from '../../../config-sandbox.js';
import { ErrorBody } from '../../../platform/http/error-body.js';
import type { RateLimitHook } from '../../../platform/http/rate-limit.js';
import type { App } from '../../../platform/http/types.js';
import type { SessionGuard } from '../../auth/session.guard.js';
import { withoutSecrets } from '../../orders/order-log.writer.js';
import { moneyToRupees } from '../core/money.js';
import type { AnalyzerLogRepository } from '../store/analyzer-log.repository.js';
import type { PriceSource } from '../prices/price-source.js';
import type { SandboxBooks } from '../service/books.js';
import type { SandboxService } from '../service/sandbox.service.js';
import type { SandboxConfig } from '../../../config-sandbox.js';

const Iso = Type.String({ description: 'ISO 8601 time' });
const Rupees = Type.Number({ description: 'rupees' });
const SourceName = Type.Union([Type.Literal('broker'), Type.Literal('simulated'), Type.Literal('scripted')]);

const AccountResponse = Type.Object({
  status: Type.Literal('success'),
  /** The user's sandbox account now (created with the starting funds on first read). */
  funds: Type.Object({
    starting_funds: Rupees,
    available: Rupees,
    used_margin: Rupees,
    /** Gross: before charges. */
    realised_pnl: Rupees,
    /** What every fill since the last reset paid (docs/rules/sandbox.md#charges-booked); out of `available`. */
    charges: Rupees,
    /** realised_pnl − charges. */
    net_realised_pnl: Rupees,
    unrealised_pnl: Rupees,
    /** When the account was last reset (or made). */
    reset_at: Iso,
  }),
  /** The configuration (`SANDBOX_*`): facts, not settings the page changes. */
  settings: Type.Object({
    starting_funds: Rupees,
    /** Leverage by kind of trade (`SANDBOX_LEVERAGE`). */
    leverage: Type.Object({
      equity_mis: Type.Number(),
      equity_cnc: Type.Number(),
      equity_nrml: Type.Number(),
      futures: Type.Number(),
      option_buy: Type.Number(),
      option_sell: Type.Number(),
    }),
    /**
     * SPAN and exposure percent of the underlying's notional for futures and short options without
     * a broker calculator, by class of underlying (`SANDBOX_FNO_MARGIN`).
     */
    fno_margin: Type.Record(Type.String(), Type.Object({ span: Type.Number(), exposure: Type.Number() })),
    /** What every fill books in charges: `book` or `off` (`SANDBOX_CHARGES`). */
    charges: Type.Union([Type.Literal('book'), Type.Literal('off')]),
    /** MIS square-off time (IST `HH:MM`) by exchange (`SANDBOX_SQUARE_OFF`). */
    square_off: Type.Record(Type.String(), Type.String()),
    /** Automatic reset (`SANDBOX_RESET_DAY` at `SANDBOX_RESET_TIME` IST): never, daily or a weekday. */
    reset_day: Type.String(),
    reset_time: Type.String(),
    /**
     * `SANDBOX_SESSIONS`: `enforce`, orders are taken and fill only in the exchange's session
     * (docs/rules/sandbox.md#sessions-and-holidays); `ignore`, at any hour.
     */
    sessions: Type.Union([Type.Literal('enforce'), Type.Literal('ignore')]),
    /** An older quote fills nothing (`SANDBOX_MAX_QUOTE_AGE_SECONDS`). */
    max_quote_age_seconds: Type.Integer(),
  }),
  price_source: Type.Object({
    /** The source pricing the sandbox now. */
    name: SourceName,
    /** `SANDBOX_PRICE_SOURCE` as set (`auto` picks broker or simulated). */
    configured: Type.String(),
    /** True when its prices are not market data (simulated, scripted). */
    demo: Type.Boolean(),
    /** The newest quote it has given, of any instrument; null before the first. */
    last_quote_at: Type.Union([Iso, Type.Null()]),
  }),
});

const LogEntry = Type.Object({
  id: Type.Integer(),
  /** The order event (`order_placed`, `order_rejected`, …). */
  event: Type.String(),
  /** The API call (`placeorder`, `cancelorder`, …). */
  api_type: Type.String(),
  order_id: Type.Union([Type.String(), Type.Null()]),
  status_code: Type.Integer(),
  /** The request as received, without the API key. */
  request: Type.Unknown(),
  /** The answer sent. */
  response: Type.Unknown(),
  created_at: Iso,
});
const LogResponse = Type.Object({ status: Type.Literal('success'), data: Type.Array(LogEntry) });

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};
const clean = (v: unknown): unknown =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? withoutSecrets(v as Record<string, unknown>) : v;

export function sandboxAccountRoutes(
  app: App,
  deps: {
    analyzerLog: AnalyzerLogRepository;
    books: SandboxBooks;
    prices: () => PriceSource;
    config: PriceSourceConfig & { sandbox: SandboxConfig };
    guard: SessionGuard;
    rateLimit: RateLimitHook;
  },
): void {
  const user = { onRequest: deps.rateLimit, preHandler: deps.guard() };
  const errors = { 400: ErrorBody, 401: ErrorBody, 429: ErrorBody };
  const sc = deps.config.sandbox;
  const iso = (t: number) => new Date(t).toISOString();

  app.get(
    '/sandbox/api/account',
    {
      ...user,
      schema: {
        summary: "The user's sandbox account, its configuration and the price source",
        tags: ['sandbox'],
        response: { 200: AccountResponse, ...errors },
      },
    },
    async (req) => {
      const f = await deps.books.funds(req.session!.userId);
      const source = deps.prices();
      const name = source.kind ?? effectivePriceSource(deps.config);
      const last = source.lastQuoteAt?.();
      return {
        status: 'success' as const,
        funds: {
          starting_funds: moneyToRupees(f.startingFunds),
          available: moneyToRupees(f.available),
          used_margin: moneyToRupees(f.usedMargin),
          realised_pnl: moneyToRupees(f.realisedPnl),
          charges: moneyToRupees(f.charges),
          net_realised_pnl: moneyToRupees(f.realisedPnl - f.charges),
          unrealised_pnl: moneyToRupees(f.unrealisedPnl),
          reset_at: iso(Number(f.resetAt)),
        },
        settings: {
          starting_funds: moneyToRupees(sc.startingFunds),
          leverage: {
            equity_mis: sc.leverage.equityMis,
            equity_cnc: sc.leverage.equityCnc,
            equity_nrml: sc.leverage.equityNrml,
            futures: sc.leverage.futures,
            option_buy: sc.leverage.optionBuy,
            option_sell: sc.leverage.optionSell,
          },
          fno_margin: Object.fromEntries(Object.entries(sc.fnoMargin).map(([k, v]) => [k, { ...v }])),
          charges: sc.charges,
          square_off: { ...sc.squareOff },
          reset_day: sc.resetDay,
          reset_time: sc.resetTime,
          sessions: sc.sessions,
          max_quote_age_seconds: Math.round(sc.maxQuoteAgeMs / 1000),
        },
        price_source: {
          name,
          configured: sc.priceSource,
          demo: source.demo === true || name !== 'broker',
          last_quote_at: last === undefined ? null : iso(last),
        },
      };
    },
  );

  app.get(
    '/sandbox/api/analyzer-log',
    {
      ...user,
      schema: {
        summary: "The user's analyzer-mode requests and answers, newest first",
        tags: ['sandbox'],
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) }),
        response: { 200: LogResponse, ...errors },
      },
    },
    async (req) => {
      const rows = await deps.analyzerLog.recentOf(req.session!.userId, req.query.limit ?? 100);
      return {
        status: 'success' as const,
        data: rows.map((r) => ({
          id: Number(r.id),
          event: r.event,
          api_type: r.api_type,
          order_id: r.order_id,
          status_code: r.status_code,
          request: clean(parse(r.request)),
          response: clean(parse(r.response)),
          created_at: iso(Number(r.created_at)),
        })),
      };
    },
  );
}

/** `POST /sandbox/reset`: the logged-in user resets their own sandbox account (CSRF). */
export function sandboxSessionRoutes(
  app: App,
  deps: { service: SandboxService; guard: SessionGuard; rateLimit: RateLimitHook },
): void {
  app.post(
    '/sandbox/reset',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard(),
      schema: {
        summary: "Reset the user's sandbox account",
        tags: ['sandbox'],
        response: {
          200: Type.Object({ status: Type.Literal('success'), message: Type.String() }),
          401: ErrorBody,
          403: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (req) => {
      await deps.service.reset(req.session!.userId);
      return { status: 'success' as const, message: 'Sandbox account reset' };
    },
  );
}
