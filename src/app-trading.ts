/**
 * The trading half of the app's services (issues 5 and 6): live brokers, the sandbox and its
 * mode switch, order placement with its events, and the chat alerts on those events. Kept apart
 * from app.ts so each file stays readable; built once per app from the same dependencies.
 */
import type { AppDeps } from './app.js';
import { AlertSettingsRepository } from './modules/alerts/alert-settings.repository.js';
import { AlertSettingsService } from './modules/alerts/alert-settings.service.js';
import { AlertDelivery, alertConsumer } from './modules/alerts/alerts.consumer.js';
import { BrokerRegistry } from './modules/brokers/broker-registry.js';
import type { MarketAdminServices } from './modules/market/market-admin.module.js';
import type { MarketServices } from './modules/market/market.module.js';
import { detached } from './modules/orders/order-events.js';
import type { SqliteWriterThread } from './platform/db/sqlite-writer-thread.js';
import { buildOrderServices, type OrderServices } from './modules/orders/orders.module.js';
import { buildSandboxServices, type SandboxServices } from './modules/sandbox/sandbox.module.js';
import { buildStrategyServices, type StrategyServices } from './modules/strategies/strategies.module.js';

export interface TradingServices {
  brokers: BrokerRegistry;
  sandbox: SandboxServices;
  orders: OrderServices;
  alerts: { settings: AlertSettingsService; delivery: AlertDelivery };
  /** Batch and signal strategies, their webhook and event trail (issue 7). */
  strategies: StrategyServices;
}

export function buildTradingServices(
  deps: AppDeps,
  market: MarketServices,
  marketAdmin: MarketAdminServices,
  /** SQLite only: the writer thread of the order log (app-services.ts). */
  writerThread?: SqliteWriterThread,
): TradingServices {
  const { config, clock } = deps;
  const db = deps.database.db;
  const brokers = new BrokerRegistry({
    apiKey: config.broker.apiKey ?? '',
    apiSecret: config.broker.apiSecret ?? '',
    redirectUrl: config.broker.redirectUrl ?? '',
    ...(config.broker.baseUrl ? { baseUrl: config.broker.baseUrl } : {}),
    timeoutMs: config.broker.timeoutMs,
    logger: deps.logger,
    clock,
  });
  // Analyzer mode priced by the live broker's quotes, under the newest broker session.
  const sandbox = buildSandboxServices({
    db,
    config,
    clock,
    logger: deps.logger,
    bus: deps.bus,
    instruments: market.contracts,
    sessionOn: (exchange, date) => marketAdmin.sessionOn(exchange, date),
    quoteClient: () => orders.sandboxQuoteClient(),
  });
  const orders: OrderServices = buildOrderServices({
    db,
    appKey: config.appKey,
    clock,
    logger: deps.logger,
    bus: deps.bus,
    instrument: (symbol, exchange) => market.contracts.get(symbol, exchange),
    contractBroker: () => market.imports.liveBroker(),
    freezeQty: (exchange, underlying) => marketAdmin.freezeQty(exchange, underlying),
    sandbox: sandbox.service,
    mode: sandbox.mode,
    adapter: (name) => brokers.load(name),
    brokerName: config.broker.name,
    ...(writerThread ? { writerThread } : {}),
  });
  const alertSettings = new AlertSettingsService(
    new AlertSettingsRepository(db),
    config.appKey,
    clock,
    deps.bus,
    deps.logger,
  );
  const alertDelivery = new AlertDelivery(
    config.telegramApiBaseUrl ? { telegramBaseUrl: config.telegramApiBaseUrl } : {},
  );
  // Chat sends wait on the network: they run beside the dispatch workers, never inside them.
  orders.events.subscribe(
    'chat-alerts',
    detached(
      alertConsumer({ settings: alertSettings, delivery: alertDelivery, logger: deps.logger }),
      200,
      deps.logger,
      'chat-alerts',
    ),
  );
  const strategies = buildStrategyServices({
    db,
    market,
    sandbox,
    orders,
    bus: deps.bus,
    clock,
    logger: deps.logger,
    publicBase: () => deps.publicBaseUrl?.() ?? config.hostServer,
    instanceId: config.instanceId,
    ...(deps.strategySeam ? { seam: deps.strategySeam } : {}),
  });
  return {
    brokers,
    sandbox,
    orders,
    alerts: { settings: alertSettings, delivery: alertDelivery },
    strategies,
  };
}
