/**
 * The app's metrics on a registry of its own (never prom-client's global one: a test process
 * builds many apps). Counters are moved by the observation points other modules offer (the
 * request pipeline's observers, the order event bus, the Action Center, the ban service); sizes
 * and depths are gauges read from their owners when Prometheus scrapes (`collect`), so nothing is
 * kept in step by hand.
 *
 * A request costs a map lookup, an increment and one histogram observation; its counters are
 * filled from the series' counts when scraped.
 *
 * Labels are bounded sets: the route is the route's pattern (`/strategy/webhook/:token`), never
 * the URL a client sent, so a token in a path never becomes a label; a request no route matched
 * is `unmatched`; a method outside the usual ones is `other`.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PendingDecision } from '../orders/action-center.service.js';
import type { OrderEvent } from '../orders/order-events.js';
import type { BanListener } from '../security/ban.service.js';

/** The route label of a request no route matched (404s, a refused upgrade). */
export const UNMATCHED = 'unmatched';

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** `/<kind>/webhook…` route patterns are webhooks; the kind is their first segment (`strategy`). */
const WEBHOOK_ROUTE = /^\/([a-z0-9-]+)\/webhook(?:\/|$)/;

/** Request durations in seconds: 1 ms (the API's order of magnitude) to 10 s (the broker bound). */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What the gauges read at scrape time, each from the service that owns it. */
export interface MetricSources {
  /** Requests being answered now (the request pipeline's in-flight count). */
  requestsInFlight(): number;
  /** The order event dispatch pool (orders module's `OrderEventBus`). */
  orderEvents: {
    readonly pending: number;
    readonly running: number;
    readonly queueLimit: number;
    readonly dropped: number;
    readonly delivered: number;
  };
  /** Order and analyzer log rows lost (the log writer's `dropped`). */
  logRowsDropped(): number;
  /** The in-memory instrument index (market module). */
  instrumentIndex(): { size: number; ready: boolean };
  /** The sandbox: working orders in the matching engine's book, and whether it runs. */
  sandbox(): { restingOrders: number; engineRunning: boolean; analyze: boolean };
  /** The sandbox's ledger check (docs/rules/sandbox.md#ledger-check): its passes since start and the latest. */
  ledgerCheck(): { runs: number; drifts: number; drifted: number; lastAt: number | undefined };
  /** The live feed (docs/rules/market-data.md#feed-watchdog): sockets, upstream instruments, stalls. */
  feed(): { sockets: number; instruments: number; stale: boolean; stalls: number; recoveries: number };
}

type HttpLabels = { method: string; route: string; status: number };

/**
 * One request series: its labels (built once), its request count (a plain number on the hot path,
 * handed to the counters when scraped) and, for a webhook route, the webhook's labels.
 */
interface Series {
  labels: HttpLabels;
  count: number;
  webhook: { kind: string; status: number } | undefined;
}

/** The outcome label of an order event (`order.placed` → `placed`, `analyzer.error` → `analyzer_error`). */
const OUTCOME_OF: Record<OrderEvent['name'], string> = {
  'order.placed': 'placed',
  'order.failed': 'failed',
  'analyzer.error': 'analyzer_error',
};

export class AppMetrics {
  readonly registry = new Registry();
  private readonly durations: Histogram<'method' | 'route' | 'status'>;
  private readonly orders: Counter<'mode' | 'outcome'>;
  private readonly bans: Counter<'kind' | 'duration'>;
  /** Request series by `method status route`, so the hot path builds no label object. */
  private readonly series = new Map<string, Series>();

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    const series = this.series;
    new Counter({
      name: 'algodesk_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
      collect() {
        this.reset();
        for (const s of series.values()) this.inc(s.labels, s.count);
      },
    });
    this.durations = new Histogram({
      name: 'algodesk_http_request_duration_seconds',
      help: 'Time from a request arriving to its answer, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    new Counter({
      name: 'algodesk_webhook_requests_total',
      help: 'Webhook deliveries answered, by webhook kind and HTTP status',
      labelNames: ['kind', 'status'],
      registers,
      collect() {
        this.reset();
        for (const s of series.values()) if (s.webhook) this.inc(s.webhook, s.count);
      },
    });
    this.orders = new Counter({
      name: 'algodesk_orders_total',
      help:
        'Order outcomes by mode: live and analyze count each order event (placed, failed, ' +
        'analyzer_error; a split order counts each child), semi_auto counts queued, approved, rejected',
      labelNames: ['mode', 'outcome'],
      registers,
    });
    this.bans = new Counter({
      name: 'algodesk_ip_bans_total',
      help: 'IP bans written, by kind (manual, auto) and duration (temporary, permanent)',
      labelNames: ['kind', 'duration'],
      registers,
    });
    // The known series start at 0, so a rate over them is defined before the first event.
    for (const mode of ['live', 'analyze'])
      for (const outcome of ['placed', 'failed']) this.orders.inc({ mode, outcome }, 0);
    this.orders.inc({ mode: 'analyze', outcome: 'analyzer_error' }, 0);
    for (const outcome of ['queued', 'approved', 'rejected'])
      this.orders.inc({ mode: 'semi_auto', outcome }, 0);
    for (const kind of ['manual', 'auto'])
      for (const duration of ['temporary', 'permanent']) this.bans.inc({ kind, duration }, 0);

    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    /** A count its owner keeps since start, exposed as a counter. */
    const total = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    const events = sources.orderEvents;
    gauge(
      'algodesk_feed_sockets',
      'Live feed (WebSocket) sockets open on this instance',
      () => sources.feed().sockets,
    );
    gauge(
      'algodesk_feed_upstream_instruments',
      'Instruments the live feed is subscribed to upstream (one per instrument, however many sockets)',
      () => sources.feed().instruments,
    );
    gauge('algodesk_feed_stale', '1 while a subscribed instrument in session has stopped ticking', () =>
      sources.feed().stale ? 1 : 0,
    );
    total(
      'algodesk_feed_stalls_total',
      'Live feed stalls detected (feed_stalled)',
      () => sources.feed().stalls,
    );
    total(
      'algodesk_feed_recoveries_total',
      'Stalled instruments ticking again (feed_recovered)',
      () => sources.feed().recoveries,
    );
    gauge('algodesk_http_requests_in_flight', 'Requests being answered now', sources.requestsInFlight);
    gauge(
      'algodesk_order_events_pending',
      'Order events waiting for a dispatch worker',
      () => events.pending,
    );
    gauge('algodesk_order_events_running', 'Order events being delivered now', () => events.running);
    gauge(
      'algodesk_order_events_queue_limit',
      'Order events the dispatch queue holds before it drops',
      () => events.queueLimit,
    );
    total(
      'algodesk_order_events_dropped_total',
      'Order events dropped because the dispatch queue was full',
      () => events.dropped,
    );
    total(
      'algodesk_order_events_delivered_total',
      'Order events delivered to every consumer',
      () => events.delivered,
    );
    total(
      'algodesk_order_log_rows_dropped_total',
      'Order and analyzer log rows lost (buffer over its bound or a failed write)',
      sources.logRowsDropped,
    );
    gauge(
      'algodesk_instrument_index_size',
      'Instruments in the in-memory instrument index',
      () => sources.instrumentIndex().size,
    );
    gauge('algodesk_instrument_index_ready', '1 when the instrument index is built', () =>
      sources.instrumentIndex().ready ? 1 : 0,
    );
    gauge(
      'algodesk_sandbox_resting_orders',
      "Working (open or trigger-pending) orders in the sandbox engine's book; 0 while it is stopped",
      () => sources.sandbox().restingOrders,
    );
    gauge('algodesk_sandbox_engine_running', '1 while the sandbox matching engine runs', () =>
      sources.sandbox().engineRunning ? 1 : 0,
    );
    gauge('algodesk_analyze_mode', '1 in analyzer mode, 0 in live mode', () =>
      sources.sandbox().analyze ? 1 : 0,
    );
    gauge(
      'algodesk_sandbox_ledger_drift',
      "Sandbox accounts whose books differed from their trade book at the ledger check's latest pass (alert on > 0)",
      () => sources.ledgerCheck().drifted,
    );
    total(
      'algodesk_sandbox_ledger_checks_total',
      'Passes of the sandbox ledger check since start',
      () => sources.ledgerCheck().runs,
    );
    total(
      'algodesk_sandbox_ledger_drift_total',
      'Passes of the sandbox ledger check since start that found an account drifted',
      () => sources.ledgerCheck().drifts,
    );
    gauge(
      'algodesk_sandbox_ledger_checked_at_seconds',
      'When the sandbox ledger check last passed over the accounts (Unix seconds; 0 before the first pass)',
      () => Math.floor((sources.ledgerCheck().lastAt ?? 0) / 1000),
    );
  }

  /** The Prometheus content type of {@link text}. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in the Prometheus text format (the gauges read now). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** A request answered: `route` is its pattern (undefined when no route matched). */
  requestEnded(method: string, route: string | undefined, status: number, ms: number): void {
    const m = METHODS.has(method) ? method : 'other';
    const r = route ?? UNMATCHED;
    const key = `${m} ${status} ${r}`;
    let s = this.series.get(key);
    if (s === undefined) {
      const kind = WEBHOOK_ROUTE.exec(r)?.[1];
      s = {
        labels: { method: m, route: r, status },
        count: 0,
        webhook: kind === undefined ? undefined : { kind, status },
      };
      this.series.set(key, s);
    }
    s.count++;
    this.durations.observe(s.labels, ms / 1000);
  }

  /** An order event published (a redelivered one was counted the first time). */
  orderEvent(e: OrderEvent): void {
    if (e.redelivered) return;
    this.orders.inc({ mode: e.mode, outcome: OUTCOME_OF[e.name] });
  }

  /** A semi-automatic order queued, approved or rejected. */
  pendingDecision(decision: PendingDecision): void {
    this.orders.inc({ mode: 'semi_auto', outcome: decision });
  }

  /** A ban written. */
  readonly ban: BanListener = (b) => {
    this.bans.inc({
      kind: b.automatic ? 'auto' : 'manual',
      duration: b.permanent ? 'permanent' : 'temporary',
    });
  };
}
