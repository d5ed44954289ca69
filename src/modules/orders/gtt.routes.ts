/**
 * OpenAlgo's GTT API (docs/rules/orders.md#gtt-orders): `placegttorder`, `modifygttorder`,
 * `cancelgttorder` and `gttorderbook`. Analyzer mode places them in the sandbox
 * (docs/rules/sandbox.md#gtt-orders); live mode at the user's broker (live-gtt.ts). A
 * semi-automatic key may not place, modify or cancel a GTT (a 403: GTTs are not queued for
 * approval). `ORDER_RATE_LIMIT` applies to the three writes, `API_RATE_LIMIT` to the book.
 */
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import { moneyToRupees } from '../../domain/money.js';
import { forbidden } from '../../platform/errors.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { AnalyzeModeService } from '../sandbox/service/analyze-mode.service.js';
import { istTimestamp } from '../sandbox/core/book-format.js';
import type { GttRequest } from '../sandbox/service/gtt.js';
import type { GttRow } from '../sandbox/store/rows.js';
import {
  CancelGttBody,
  GttBookAnswer,
  GttTriggerAnswer,
  gttRequest,
  ModifyGttBody,
  PlaceGttBody,
  type GttRowJson,
} from './gtt.schema.js';
import { ApiKeyBody } from './book.schema.js';
import type { LiveCallAnswer } from './order-pipeline.types.js';
import { orderRouteKit } from './order-route.js';
import { badRequest } from '../../platform/errors.js';

export interface GttRouteDeps {
  mode: AnalyzeModeService;
  apiKeyGuard: ApiKeyGuard;
  orderRateLimit: RateLimitHook;
  apiRateLimit: RateLimitHook;
  sandbox: {
    placeGtt(userId: number, req: GttRequest): Promise<GttRow>;
    modifyGtt(userId: number, id: number, req: GttRequest): Promise<GttRow>;
    cancelGtt(userId: number, id: number): Promise<GttRow>;
    gtts(userId: number, opts?: { activeOnly?: boolean }): Promise<GttRow[]>;
  };
  live: {
    gtt(userId: number, req: GttRequest, triggerId?: string): Promise<LiveCallAnswer>;
    cancelGtt(userId: number, triggerId: string): Promise<LiveCallAnswer>;
    gttBook(userId: number): Promise<LiveCallAnswer>;
  };
}

const rs = (m: number | null) => (m === null ? 0 : moneyToRupees(m));

/** A sandbox GTT as a `gttorderbook` row. */
export function sandboxGttRow(g: GttRow): GttRowJson {
  const legs: { trigger: number; price: number }[] = [];
  if (g.trigger_sl !== null) legs.push({ trigger: rs(g.trigger_sl), price: rs(g.price_sl) });
  if (g.trigger_tg !== null) legs.push({ trigger: rs(g.trigger_tg), price: rs(g.price_tg) });
  return {
    trigger_id: String(g.id),
    trigger_type: g.type === 'oco' ? 'two-leg' : 'single',
    status: g.status,
    symbol: g.symbol,
    exchange: g.exchange,
    trigger_prices: legs.map((l) => l.trigger),
    last_price: rs(g.last_price),
    legs: legs.map((l) => ({
      action: g.side,
      quantity: g.quantity,
      price: l.price,
      pricetype: g.price_type,
      product: g.product,
    })),
    created_at: istTimestamp(g.created_at),
    updated_at: istTimestamp(g.updated_at),
    expires_at: istTimestamp(g.expires_at),
    strategy: g.strategy ?? '',
    margin_blocked: rs(g.blocked_margin),
  };
}

/** A sandbox trigger id: a positive integer, or a 404 (nothing of the user's has another id). */
function sandboxId(id: string | number): number {
  const n = typeof id === 'number' ? id : /^[0-9]{1,15}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw badRequest(`trigger_id: '${id}' is not a sandbox GTT id`);
  return n;
}

export function gttRoutes(app: App, deps: GttRouteDeps): void {
  const { route } = orderRouteKit(deps);
  const writable = (orderMode: string | undefined, what: string) => {
    if (orderMode === 'semi_auto')
      throw forbidden(`${what} GTT order is not allowed in Semi-Auto mode: GTTs are not queued for approval`);
  };

  app.post(
    '/api/v1/placegttorder',
    route('Place a GTT (single trigger or OCO)', deps.orderRateLimit, PlaceGttBody, GttTriggerAnswer),
    async (req, reply) => {
      const principal = req.apiPrincipal!;
      writable(principal.orderMode, 'Place');
      const gtt = gttRequest(req.body as PlaceGttBody);
      if (!deps.mode.analyze) {
        const a = await deps.live.gtt(principal.userId, gtt);
        return reply.code(a.status).send(a.body);
      }
      const row = await deps.sandbox.placeGtt(principal.userId, gtt);
      return { status: 'success' as const, trigger_id: String(row.id), mode: 'analyze' as const };
    },
  );

  app.post(
    '/api/v1/modifygttorder',
    route('Modify an active GTT (a whole replacement)', deps.orderRateLimit, ModifyGttBody, GttTriggerAnswer),
    async (req, reply) => {
      const principal = req.apiPrincipal!;
      writable(principal.orderMode, 'Modify');
      const body = req.body as ModifyGttBody;
      const gtt = gttRequest(body);
      if (!deps.mode.analyze) {
        const a = await deps.live.gtt(principal.userId, gtt, String(body.trigger_id));
        return reply.code(a.status).send(a.body);
      }
      const row = await deps.sandbox.modifyGtt(principal.userId, sandboxId(body.trigger_id), gtt);
      return { status: 'success' as const, trigger_id: String(row.id), mode: 'analyze' as const };
    },
  );

  app.post(
    '/api/v1/cancelgttorder',
    route('Cancel an active GTT', deps.orderRateLimit, CancelGttBody, GttTriggerAnswer),
    async (req, reply) => {
      const principal = req.apiPrincipal!;
      writable(principal.orderMode, 'Cancel');
      const body = req.body as CancelGttBody;
      if (!deps.mode.analyze) {
        const a = await deps.live.cancelGtt(principal.userId, String(body.trigger_id));
        return reply.code(a.status).send(a.body);
      }
      const row = await deps.sandbox.cancelGtt(principal.userId, sandboxId(body.trigger_id));
      return { status: 'success' as const, trigger_id: String(row.id), mode: 'analyze' as const };
    },
  );

  app.post(
    '/api/v1/gttorderbook',
    route("The user's active GTTs", deps.apiRateLimit, ApiKeyBody, GttBookAnswer),
    async (req, reply) => {
      const userId = req.apiPrincipal!.userId;
      if (!deps.mode.analyze) {
        const a = await deps.live.gttBook(userId);
        return reply.code(a.status).send(a.body);
      }
      const rows = await deps.sandbox.gtts(userId, { activeOnly: true });
      return { status: 'success' as const, data: rows.map(sandboxGttRow), mode: 'analyze' as const };
    },
  );
}
