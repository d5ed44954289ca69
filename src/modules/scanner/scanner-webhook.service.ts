/**
 * A scanner alert's delivery, a source of the shared receive pipeline (modules/webhooks;
 * docs/rules/scanner.md#scanner-delivery), in order: the webhook id →
 * enabled → the Chartink body → the action → the live switch → the trading window → the 60-second
 * de-duplication → each symbol through the order pipeline. Every delivery is audited
 * (docs/rules/scanner.md#scanner-audit): its row is written when it arrives and completed with
 * the outcome, and every order placed is recorded as it is placed, so a crash part-way leaves a
 * trace and the square-off still knows what the scanner opened.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { fromDbBool } from '../../platform/db/database.js';
import { BODY_FAULTS, canonical, readJsonObject } from '../webhooks/payload.js';
import { CREDENTIAL_PREFIX, credentialDigest } from '../webhooks/credential.js';
import { Refusal, WebhookReceiver, type Delivery, type Outcome } from '../webhooks/receiver.js';
import type { WebhooksRepository } from '../webhooks/webhooks.repository.js';
import type { Action, Product } from '../../domain/orders.js';
import { istDay } from '../sandbox/core/ist-day.js';
import { istTimeOf, type ExchangeSession } from '../market/timings.service.js';
import type { Instrument } from '../market/instrument.js';
import type { OrderInput } from '../orders/order-rules.js';
import type { PipelineAnswer } from '../orders/order-pipeline.types.js';
import type { ScannerRepository, ScannerRow } from './scanner.repository.js';
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
  /** The deliveries' audit and de-duplication rows (the webhooks module's repository). */
  webhooks: WebhooksRepository;
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

/** Chartink's body (docs/rules/scanner.md#scanner-payload), or the fault. */
export function parseAlert(raw: string | undefined): Alert | string {
  const { body, fault } = readJsonObject(raw);
  if (fault) return BODY_FAULTS[fault];
  const b = body!;
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
  private readonly receiver: WebhookReceiver<ScannerRow, ScannerResult>;

  constructor(private readonly deps: ScannerWebhookDeps) {
    this.receiver = new WebhookReceiver<ScannerRow, ScannerResult>(
      {
        name: 'scanner',
        results: SCANNER_RESULTS,
        ownerField: 'scanner_id',
        unknown: { result: 'rejected_id', message: 'Unknown webhook id' },
        engineError: { result: 'rejected_engine_error', message: 'The scanner could not handle the alert' },
        recordOnArrival: true,
        find: (rawId) => {
          const digest = credentialDigest(CREDENTIAL_PREFIX.scanner, rawId);
          return digest ? deps.repo.byDigest(digest) : Promise.resolve(undefined);
        },
        ownerId: (s) => Number(s.id),
        handle: (d) => this.pipeline(d),
        answer: (_o, d) => ({
          ...(d.audit.action ? { action: d.audit.action } : {}),
          ...(d.audit.detail.results ? { results: d.audit.detail.results } : {}),
        }),
      },
      { repo: deps.webhooks, clock: deps.clock, logger: deps.logger },
    );
  }

  deliver(rawId: string, raw: string | undefined, ip: string): Promise<ScannerAnswer> {
    return this.receiver.deliver(rawId, raw, ip) as Promise<ScannerAnswer>;
  }

  private async pipeline(d: Delivery<ScannerRow>): Promise<Outcome<ScannerResult>> {
    const { clock } = this.deps;
    const s = d.target;
    if (!fromDbBool(s.enabled)) throw new Refusal('rejected_disabled', 'The scanner is disabled');
    const alert = parseAlert(d.raw);
    if (typeof alert === 'string') throw new Refusal('rejected_payload', alert);
    d.audit.payload = alert.body;
    const action = s.action === 'FROM_SCAN_NAME' ? actionFromName(alert.scanName) : (s.action as AlertAction);
    if (!action)
      throw new Refusal('rejected_action', 'scan_name holds none of the words BUY, SELL, SHORT, COVER');
    d.audit.action = action;
    const mode = s.mode as ScannerMode;
    if (mode === 'live' && !fromDbBool(s.live_enabled))
      throw new Refusal('rejected_live_disabled', 'Live orders are not enabled for this scanner');
    const now = clock.now();
    this.inWindow(s, now);
    if (!(await d.claim(canonical(alert.body))))
      return { result: 'rejected_dedupe', message: 'An identical alert was handled in the last 60 seconds' };
    const results: SymbolResult[] = [];
    d.audit.detail.results = results;
    for (const [i, stock] of alert.stocks.entries()) {
      if (i >= s.max_symbols) {
        results.push({
          symbol: stock.symbol,
          status: 'skipped',
          message: `over the scanner's maximum of ${s.max_symbols} symbols per alert`,
        });
        continue;
      }
      results.push(await this.symbol(s, action, stock, d.id, now));
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
