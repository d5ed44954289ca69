/**
 * The sandbox account's records for the `/analyzer` page (docs/rules/sandbox.md#contract-note,
 * #daily-equity), for the signed-in user only: `GET /sandbox/api/contract-note?day=YYYY-MM-DD[&format=csv]`
 * — one IST day's trades by exchange with their charges and the totals; `GET
 * /sandbox/api/fills?format=csv` — every fill with its charges; `GET /sandbox/api/equity` — the
 * account's daily equity, today's as it is now.
 */
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Clock } from '../../../platform/clock.js';
import { badRequest } from '../../../platform/errors.js';
import { ErrorBody } from '../../../platform/http/error-body.js';
import type { RateLimitHook } from '../../../platform/http/rate-limit.js';
import type { App } from '../../../platform/http/types.js';
import type { SessionGuard } from '../../auth/session.guard.js';
import { istDateOf } from '../../market/timings.service.js';
import { istTimestamp } from '../core/book-format.js';
import { contractNoteCsv, fillsCsv, type CHARGE_COLUMNS, type NoteTotals } from '../core/contract-note.js';
import { moneyToRupees, tradeValue, type Money } from '../core/money.js';
import type { SandboxBooks } from '../service/books.js';
import type { TradeRow } from '../store/rows.js';

const Rupees = Type.Number({ description: 'rupees' });

const IsoDay = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'IST day, YYYY-MM-DD' });
const ChargeFields = {
  brokerage: Rupees,
  stt: Type.Number({ description: 'rupees: STT, or CTT on commodities' }),
  exchange_charges: Rupees,
  sebi_fee: Rupees,
  stamp_duty: Rupees,
  gst: Rupees,
  /** Their sum. */
  charges: Rupees,
};
const TradeJson = Type.Object({
  trade_id: Type.String(),
  order_id: Type.String(),
  /** IST `YYYY-MM-DD HH:MM:SS`. */
  timestamp: Type.String(),
  exchange: Type.String(),
  symbol: Type.String(),
  product: Type.String(),
  action: Type.String(),
  quantity: Type.Integer(),
  price: Rupees,
  value: Rupees,
  ...ChargeFields,
  strategy: Type.Union([Type.String(), Type.Null()]),
});
const NoteTotalsJson = Type.Object({
  trades: Type.Integer(),
  buy_value: Rupees,
  sell_value: Rupees,
  ...ChargeFields,
  /** sell value − buy value − charges: received (> 0) or paid (< 0). */
  net_obligation: Rupees,
});
const ContractNoteResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({
    day: Type.String(),
    exchanges: Type.Array(
      Type.Object({ exchange: Type.String(), trades: Type.Array(TradeJson), totals: NoteTotalsJson }),
    ),
    totals: NoteTotalsJson,
  }),
});
const FillsResponse = Type.Object({ status: Type.Literal('success'), data: Type.Array(TradeJson) });
const EquityResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(
    Type.Object({
      day: Type.String(),
      available: Rupees,
      used_margin: Rupees,
      /** Since the last reset, gross. */
      realised_pnl: Rupees,
      /** Since the last reset. */
      charges: Rupees,
      unrealised_pnl: Rupees,
      /** Delivery holdings at the day's last prices (at cost when unmarked). */
      holdings_value: Rupees,
      /** available + used margin + holdings' value + unrealised P&L. */
      equity: Rupees,
    }),
  ),
});

const chargesOfRow = (t: Record<(typeof CHARGE_COLUMNS)[number] | 'charges', Money>) => ({
  brokerage: moneyToRupees(t.brokerage),
  stt: moneyToRupees(t.stt),
  exchange_charges: moneyToRupees(t.exchange_charges),
  sebi_fee: moneyToRupees(t.sebi_fee),
  stamp_duty: moneyToRupees(t.stamp_duty),
  gst: moneyToRupees(t.gst),
  charges: moneyToRupees(t.charges),
});
const tradeJson = (t: TradeRow) => ({
  trade_id: String(t.id),
  order_id: String(t.order_id),
  timestamp: istTimestamp(t.created_at),
  exchange: t.exchange,
  symbol: t.symbol,
  product: t.product,
  action: t.side,
  quantity: t.quantity,
  price: moneyToRupees(t.price),
  value: moneyToRupees(tradeValue(t.price, t.quantity)),
  ...chargesOfRow(t),
  strategy: t.strategy,
});

/** A real calendar date (2026-02-31 is not). */
function isCalendarDay(day: string): boolean {
  const d = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === day;
}

export function sandboxRecordRoutes(
  app: App,
  deps: { books: SandboxBooks; guard: SessionGuard; rateLimit: RateLimitHook; clock: Clock },
): void {
  const user = { onRequest: deps.rateLimit, preHandler: deps.guard() };
  const errors = { 400: ErrorBody, 401: ErrorBody, 429: ErrorBody };
  const csv = (reply: FastifyReply, filename: string, body: string) =>
    reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${filename}"`)
      .send(body);

  app.get(
    '/sandbox/api/contract-note',
    {
      ...user,
      schema: {
        summary: "One IST day's contract note of the user's sandbox account (JSON or CSV)",
        tags: ['sandbox'],
        querystring: Type.Object(
          {
            /** IST day; today when absent. */
            day: Type.Optional(IsoDay),
            format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])),
          },
          { additionalProperties: false },
        ),
        response: { 200: ContractNoteResponse, ...errors },
      },
    },
    async (req, reply) => {
      const day = req.query.day ?? istDateOf(deps.clock.now());
      if (!isCalendarDay(day)) throw badRequest(`day: ${day} is not a calendar date (YYYY-MM-DD)`);
      const note = await deps.books.contractNote(req.session!.userId, day);
      if (req.query.format === 'csv') return csv(reply, `contract-note-${day}.csv`, contractNoteCsv(note));
      const totals = (t: NoteTotals) => ({
        trades: t.trades,
        buy_value: moneyToRupees(t.buy_value),
        sell_value: moneyToRupees(t.sell_value),
        ...chargesOfRow(t),
        net_obligation: moneyToRupees(t.net_obligation),
      });
      return {
        status: 'success' as const,
        data: {
          day,
          exchanges: note.exchanges.map((e) => ({
            exchange: e.exchange,
            trades: e.trades.map(tradeJson),
            totals: totals(e.totals),
          })),
          totals: totals(note.totals),
        },
      };
    },
  );

  app.get(
    '/sandbox/api/fills',
    {
      ...user,
      schema: {
        summary: "Every fill of the user's sandbox account since its last reset, with charges (JSON or CSV)",
        tags: ['sandbox'],
        querystring: Type.Object(
          { format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])) },
          { additionalProperties: false },
        ),
        response: { 200: FillsResponse, ...errors },
      },
    },
    async (req, reply) => {
      const fills = await deps.books.fills(req.session!.userId);
      if (req.query.format === 'csv')
        return csv(reply, `fills-${istDateOf(deps.clock.now())}.csv`, fillsCsv(fills));
      return { status: 'success' as const, data: fills.map(tradeJson) };
    },
  );

  app.get(
    '/sandbox/api/equity',
    {
      ...user,
      schema: {
        summary: "The user's sandbox account day by day (IST), today's as it is now",
        tags: ['sandbox'],
        response: { 200: EquityResponse, ...errors },
      },
    },
    async (req) => {
      const rows = await deps.books.equityHistory(req.session!.userId);
      return {
        status: 'success' as const,
        data: rows.map((r) => ({
          day: r.day,
          available: moneyToRupees(r.available),
          used_margin: moneyToRupees(r.used_margin),
          realised_pnl: moneyToRupees(r.realised_pnl),
          charges: moneyToRupees(r.charges),
          unrealised_pnl: moneyToRupees(r.unrealised_pnl),
          holdings_value: moneyToRupees(r.holdings_value),
          equity: moneyToRupees(r.equity),
        })),
      };
    },
  );
}
