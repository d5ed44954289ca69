/**
 * A scanner alert's delivery (docs/rules/scanner.md#scanner-delivery), in order: the webhook id →
 * enabled → the Chartink body → the action → the live switch → the trading window → the 60-second
 * de-duplication → each symbol through the order pipeline. Every delivery is audited
 * (docs/rules/scanner.md#scanner-audit): its row is written when it arrives and completed with
 * the outcome, and every order placed is recorded as it is placed, so a crash part-way leaves a
 * trace and the square-off still knows what the scanner opened.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { fromDbBool } from '../../platform/db/database.js';
import { auditPayload, canonical, holdsNul } from '../../platform/http/webhook-body.js';
import { DEDUPE_WINDOW_MS, WEBHOOK_MAX_BYTES } from '../../domain/limits.js';
import type { Action, Product } from '../../domain/orders.js';
import { istDay } from '../sandbox/ist-day.js';
import { istTimeOf, type ExchangeSession } from '../market/timings.service.js';
import type { Instrument } from '../market/instrument.js';
import type { OrderInput } from '../orders/order-rules.js';
import type { PipelineAnswer } from '../orders/order-pipeline.types.js';
import type { ScannerRepository, ScannerRow } from './scanner.repository.js';
import { webhookIdDigest } from './scanner.service.js';
import {
  SCANNER_ACTIONS,
  SYMBOL_PATTERN,
  type AlertAction,
  type ScannerMode,
  type SymbolResult,
} from './scanner.schema.js';

/** Every outcome of a delivery and its HTTP status. */
export const SCANNER_RESULTS = {
  ok: 200,
  rejected_dedupe: 200,
  rejected_payload: 400,
  rejected_action: 400,
  rejected_disabled: 403,
  rejected_live_disabled: 403,
  rejected_id: 404,
  rejected_window: 409,
  rejected_engine_error: 500,
} as const;
export type ScannerResult = keyof typeof SCANNER_RESULTS;

export interface ScannerAnswer {
  http: number;
  body: {
    status: 'success' | 'error';
    result: ScannerResult;
    message: string;
    scanner_id?: number;
    action?: AlertAction;
    results?: SymbolResult[];
  };
}

/** Where a scanner's orders go, and what they read. */
export interface ScannerTrading {
  instrument(symbol: string, exchange: string): Promise<Instrument | undefined>;
  sessionOn(exchange: string, date: string): ExchangeSession | undefined;
  /** Places one order through the placeorder pipeline in the scanner's mode. */
  place(userId: number, order: OrderInput, mode: ScannerMode): Promise<PipelineAnswer>;
  /**
   * What a new closing order could still close of the position in (symbol, exchange, product),
   * signed (the sandbox's or the broker's): the net less working closing orders.
   */
  closable(
    userId: number,
    mode: ScannerMode,
    key: { symbol: string; exchange: string; product: string },
  ): Promise<number>;
}

export interface ScannerWebhookDeps {
  repo: ScannerRepository;
  trading: ScannerTrading;
  clock: Clock;
  logger: Logger;
}

/** A parsed alert. */
interface Alert {
  body: Record<string, unknown>;
  stocks: { symbol: string; price: number }[];
  scanName: string;
}

const OPTIONAL_FIELDS = ['triggered_at', 'scan_name', 'scan_url', 'alert_name', 'webhook_url'];
const SYMBOL = new RegExp(SYMBOL_PATTERN);
const ALERT_WORDS: readonly AlertAction[] = SCANNER_ACTIONS.filter(
  (a): a is AlertAction => a !== 'FROM_SCAN_NAME',
);

class Refusal extends Error {
  constructor(
    readonly result: ScannerResult,
    message: string,
  ) {
    super(message);
  }
}

/** Chartink's body (docs/rules/scanner.md#scanner-payload), or the fault. */
export function parseAlert(raw: string | undefined): Alert | string {
  if (raw === undefined) return `Body over ${WEBHOOK_MAX_BYTES} bytes`;
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return 'Body must be JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'Body must be a JSON object';
  if (holdsNul(body)) return 'Body must not contain NUL characters';
  const b = body as Record<string, unknown>;
  for (const f of OPTIONAL_FIELDS)
    if (b[f] !== undefined && (typeof b[f] !== 'string' || b[f].length > 1000))
      return `${f} must be a string of at most 1000 characters`;
  if (typeof b.stocks !== 'string' || b.stocks.trim() === '')
    return 'stocks must be a non-empty comma-separated list';
  if (typeof b.trigger_prices !== 'string') return 'trigger_prices must be a comma-separated list of prices';
  const symbols = b.stocks.split(',').map((s) => s.trim().toUpperCase());
  const prices = b.trigger_prices.split(',').map((p) => p.trim());
  if (symbols.length !== prices.length)
    return `stocks names ${symbols.length} symbols but trigger_prices gives ${prices.length} prices`;
  const stocks: Alert['stocks'] = [];
  const seen = new Set<string>();
  for (const [i, symbol] of symbols.entries()) {
    if (!SYMBOL.test(symbol)) return `stock ${i + 1} is not a symbol (1-64 of A-Z 0-9 & - _ .)`;
    const price = /^\d+(\.\d+)?$/.test(prices[i]!) ? Number(prices[i]) : NaN;
    if (!(price > 0) || !Number.isFinite(price)) return `trigger price ${i + 1} must be a number above 0`;
    if (seen.has(symbol)) continue;
    seen.add(symbol);
    stocks.push({ symbol, price });
  }
  return { body: b, stocks, scanName: typeof b.scan_name === 'string' ? b.scan_name : '' };
}

/** The action of `FROM_SCAN_NAME`: the first alert word in the scan's name (docs/rules/scanner.md#scanner-action). */
export function actionFromName(scanName: string): AlertAction | undefined {
  let best: { action: AlertAction; at: number } | undefined;
  for (const w of ALERT_WORDS) {
    const m = new RegExp(`\\b${w}\\b`, 'i').exec(scanName);
    if (m && (!best || m.index < best.at)) best = { action: w, at: m.index };
  }
  return best?.action;
}

export class ScannerWebhook {
  constructor(private readonly deps: ScannerWebhookDeps) {}

  async deliver(rawId: string, raw: string | undefined, ip: string): Promise<ScannerAnswer> {
    const started = performance.now();
    const { repo, clock, logger } = this.deps;
    const audit: { scanner?: ScannerRow; action?: AlertAction; payload?: unknown; results?: SymbolResult[] } =
      {};
    const deliveryId = await repo
      .insertDelivery({
        scanner_id: null,
        ts: clock.now(),
        ip: ip.slice(0, 64),
        result: 'received',
        http_status: 0,
        action: null,
        message: 'received',
        payload: null,
        results: null,
        duration_ms: 0,
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'scanner delivery not audited');
        return undefined;
      });
    let result: ScannerResult;
    let message: string;
    try {
      ({ result, message } = await this.pipeline(rawId, raw, audit, deliveryId));
    } catch (err) {
      if (err instanceof Refusal) ({ result, message } = err);
      else {
        logger.error({ err, scannerId: audit.scanner?.id }, 'scanner webhook: engine error');
        result = 'rejected_engine_error';
        message = 'The scanner could not handle the alert';
      }
    }
    const http = SCANNER_RESULTS[result];
    const scannerId = audit.scanner ? Number(audit.scanner.id) : undefined;
    const body: ScannerAnswer['body'] = {
      status: result === 'ok' ? 'success' : 'error',
      result,
      message,
      ...(scannerId !== undefined ? { scanner_id: scannerId } : {}),
      ...(audit.action ? { action: audit.action } : {}),
      ...(audit.results ? { results: audit.results } : {}),
    };
    if (deliveryId !== undefined)
      await repo
        .completeDelivery(deliveryId, {
          scanner_id: scannerId ?? null,
          result,
          http_status: http,
          action: audit.action ?? null,
          message: message.slice(0, 1000),
          payload: audit.payload === undefined ? null : auditPayload(audit.payload),
          results: audit.results ? JSON.stringify(audit.results) : null,
          duration_ms: performance.now() - started,
        })
        .catch((err: unknown) => logger.error({ err, scannerId }, 'scanner delivery not audited'));
    return { http, body };
  }

  private async pipeline(
    rawId: string,
    raw: string | undefined,
    audit: { scanner?: ScannerRow; action?: AlertAction; payload?: unknown; results?: SymbolResult[] },
    deliveryId: number | undefined,
  ): Promise<{ result: ScannerResult; message: string }> {
    const { repo, clock } = this.deps;
    const digest = webhookIdDigest(rawId);
    const s = digest ? await repo.byDigest(digest) : undefined;
    if (!s) throw new Refusal('rejected_id', 'Unknown webhook id');
    audit.scanner = s;
    if (!fromDbBool(s.enabled)) throw new Refusal('rejected_disabled', 'The scanner is disabled');
    const alert = parseAlert(raw);
    if (typeof alert === 'string') throw new Refusal('rejected_payload', alert);
    audit.payload = alert.body;
    const action = s.action === 'FROM_SCAN_NAME' ? actionFromName(alert.scanName) : (s.action as AlertAction);
    if (!action)
      throw new Refusal('rejected_action', 'scan_name holds none of the words BUY, SELL, SHORT, COVER');
    audit.action = action;
    const mode = s.mode as ScannerMode;
    if (mode === 'live' && !fromDbBool(s.live_enabled))
      throw new Refusal('rejected_live_disabled', 'Live orders are not enabled for this scanner');
    const now = clock.now();
    this.inWindow(s, now);
    const fingerprint = createHash('sha256').update(canonical(alert.body)).digest('hex');
    if (!(await repo.claimAlert(Number(s.id), fingerprint, now, DEDUPE_WINDOW_MS)))
      return { result: 'rejected_dedupe', message: 'An identical alert was handled in the last 60 seconds' };
    const results: SymbolResult[] = [];
    audit.results = results;
    for (const [i, stock] of alert.stocks.entries()) {
      if (i >= s.max_symbols) {
        results.push({
          symbol: stock.symbol,
          status: 'skipped',
          message: `over the scanner's maximum of ${s.max_symbols} symbols per alert`,
        });
        continue;
      }
      results.push(await this.symbol(s, action, stock, deliveryId, now));
    }
    const placed = results.filter((r) => r.status === 'success').length;
    return { result: 'ok', message: `${placed} of ${results.length} symbols placed` };
  }

  /** Refuses an alert outside the scanner's window or on a day the exchange does not trade. */
  private inWindow(s: ScannerRow, now: number): void {
    const day = istDay(now);
    const session = this.deps.trading.sessionOn(s.exchange, day);
    if (!session?.open)
      throw new Refusal(
        'rejected_window',
        `${s.exchange} does not trade on ${day} (${session?.reason ?? 'closed'})`,
      );
    const time = istTimeOf(now);
    if (time < s.window_start || time >= s.window_end)
      throw new Refusal(
        'rejected_window',
        `Outside the scanner's window ${s.window_start}-${s.window_end} IST (now ${time})`,
      );
  }

  /** One symbol of an alert: sized, resolved and placed (docs/rules/scanner.md#scanner-action). */
  private async symbol(
    s: ScannerRow,
    action: AlertAction,
    stock: { symbol: string; price: number },
    deliveryId: number | undefined,
    now: number,
  ): Promise<SymbolResult> {
    const { trading } = this.deps;
    const mode = s.mode as ScannerMode;
    const product = s.product as Product;
    const inst = await trading.instrument(stock.symbol, s.exchange);
    if (!inst)
      return {
        symbol: stock.symbol,
        status: 'error',
        message: `Symbol ${stock.symbol} not found on ${s.exchange} in the master contract`,
      };
    let side: Action;
    let quantity: number;
    const kind = action === 'BUY' || action === 'SHORT' ? 'entry' : 'exit';
    if (kind === 'entry') {
      side = action === 'BUY' ? 'BUY' : 'SELL';
      const overrides = JSON.parse(s.overrides) as Record<string, number>;
      quantity = overrides[stock.symbol] ?? s.quantity ?? Math.floor(Number(s.capital ?? 0) / stock.price);
      if (quantity < 1)
        return {
          symbol: stock.symbol,
          status: 'error',
          message: `capital ₹${Number(s.capital)} buys no share at ₹${stock.price}`,
        };
    } else {
      const held = await trading.closable(Number(s.user_id), mode, {
        symbol: stock.symbol,
        exchange: s.exchange,
        product,
      });
      const closes = action === 'SELL' ? held > 0 : held < 0;
      if (!closes) return { symbol: stock.symbol, status: 'skipped', message: 'No open position to exit' };
      side = held > 0 ? 'SELL' : 'BUY';
      quantity = Math.abs(held);
    }
    return this.place(s, { symbol: stock.symbol, side, quantity, kind }, deliveryId, now);
  }

  /** Places one MARKET order of the scanner and records it (docs/rules/scanner.md#scanner-audit). */
  async place(
    s: ScannerRow,
    o: { symbol: string; side: Action; quantity: number; kind: 'entry' | 'exit' | 'squareoff' },
    deliveryId: number | undefined,
    now: number,
  ): Promise<SymbolResult> {
    const mode = s.mode as ScannerMode;
    const order: OrderInput = {
      strategy: s.name,
      symbol: o.symbol,
      exchange: s.exchange,
      action: o.side,
      quantity: o.quantity,
      pricetype: 'MARKET',
      product: s.product as Product,
      price: '0',
      trigger_price: '0',
      disclosed_quantity: '0',
    };
    const a = await this.deps.trading.place(Number(s.user_id), order, mode);
    if (a.status !== 200 || a.body.status !== 'success') {
      const m = a.body.status === 'error' ? a.body.message : undefined;
      return {
        symbol: o.symbol,
        status: 'error',
        message: typeof m === 'string' ? m : m ? JSON.stringify(m) : 'The order was refused',
      };
    }
    const orderid = a.body.orderid;
    await this.deps.repo
      .insertOrder({
        scanner_id: Number(s.id),
        delivery_id: deliveryId ?? null,
        day: istDay(now),
        kind: o.kind,
        symbol: o.symbol,
        exchange: s.exchange,
        product: s.product,
        side: o.side,
        quantity: o.quantity,
        mode,
        orderid,
        created_at: now,
      })
      .catch((err: unknown) =>
        this.deps.logger.error({ err, scannerId: s.id, orderid }, 'scanner order placed but not recorded'),
      );
    return { symbol: o.symbol, status: 'success', orderid, quantity: o.quantity };
  }
}
