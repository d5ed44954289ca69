/**
 * The sandbox's part of the configuration, parsed by `loadConfig` like every other
 * variable. Amounts are rupees in the environment and {@link Money} here.
 */
import { DEFAULT_LEVERAGE, type LeverageTable } from './domain/sandbox.js';
import { tryRupeesToMoney, type Money } from './domain/money.js';
import type { BrokeragePlan } from './domain/charges.js';
import type { FnoMarginRates } from './domain/fno-margin.js';

/** Days an automatic reset may run on, or never / every day. */
export const RESET_DAYS = [
  'never',
  'daily',
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
] as const;
export type ResetDay = (typeof RESET_DAYS)[number];

/** MIS square-off times (IST) per exchange: NSE/BSE (and their F&O) 15:15, CDS/BCD 16:45, MCX 23:30. */
export const DEFAULT_SQUARE_OFF: Readonly<Record<string, string>> = Object.freeze({
  NSE: '15:15',
  BSE: '15:15',
  NFO: '15:15',
  BFO: '15:15',
  CDS: '16:45',
  BCD: '16:45',
  MCX: '23:30',
  NCO: '23:30',
});

export interface SandboxConfig {
  /** `SANDBOX_STARTING_FUNDS` in rupees (default ₹1,00,00,000). */
  startingFunds: Money;
  /** `SANDBOX_LEVERAGE`: `equity_mis=5,equity_cnc=1,equity_nrml=1,futures=10,option_buy=1,option_sell=1`, any subset. */
  leverage: LeverageTable;
  /** `SANDBOX_SQUARE_OFF`: `NSE=15:15,MCX=23:30,…` overriding {@link DEFAULT_SQUARE_OFF}. */
  squareOff: Record<string, string>;
  /** `SANDBOX_RESET_DAY` (default sunday) and `SANDBOX_RESET_TIME` (IST `HH:MM`, default 00:00). */
  resetDay: ResetDay;
  resetTime: string;
  /** `SANDBOX_MAX_QUOTE_AGE_SECONDS` (default 60): an older quote fills nothing. */
  maxQuoteAgeMs: number;
  /**
   * `SANDBOX_PRICE_SOURCE` as configured: `auto` (default), `broker`, `simulated` or `scripted`.
   * What `auto` means is decided by {@link effectivePriceSource}.
   */
  priceSource: PriceSourceSetting;
  /** `SANDBOX_SCRIPT_FILE`: JSON ticks `[{at, quotes}]` the scripted source plays (demos). */
  scriptFile: string | undefined;
  /** `SANDBOX_QUOTE_POLL_MS` (default 1000): how often the broker source asks for quotes. */
  quotePollMs: number;
  /**
   * `SANDBOX_LEDGER_CHECK_MINUTES` (default 60; 0 turns it off): how often the service checks every
   * account's books against its trade book (docs/rules/sandbox.md#ledger-check).
   */
  ledgerCheckMinutes: number;
  /**
   * `SANDBOX_BROKERAGE` (default `percent:0.03:20:delivery-free:options-flat`): the brokerage each
   * fill pays (docs/rules/sandbox.md#charges-rates), parsed by {@link parseBrokeragePlan}.
   */
  brokerage: BrokeragePlan;
  /**
   * `SANDBOX_CHARGES` (default `book`): every fill books its contract-note charges
   * (docs/rules/sandbox.md#charges-booked); `off` books none, for comparing with a paper account
   * that ignores them.
   */
  charges: ChargesSetting;
  /**
   * `SANDBOX_FNO_MARGIN` (default `index=5.5+2,stock=13+3.5,currency=2+1,commodity=7+1.5`): SPAN +
   * exposure percent of the underlying's notional that futures and short options block without a
   * broker calculator (docs/rules/sandbox.md#margins-like-a-broker).
   */
  fnoMargin: FnoMarginRates;
  /**
   * `SANDBOX_SESSIONS` (default `enforce`): orders are taken and fill only inside the exchange's
   * session on a trading day (docs/rules/sandbox.md#sessions-and-holidays); `ignore` keeps the
   * always-open book for testing at night.
   */
  sessions: SessionsSetting;
}

/** `SANDBOX_CHARGES`: whether fills book their charges. */
export const CHARGES_SETTINGS = ['book', 'off'] as const;
export type ChargesSetting = (typeof CHARGES_SETTINGS)[number];

export function parseChargesSetting(raw: string): ChargesSetting {
  const v = raw.trim().toLowerCase();
  if ((CHARGES_SETTINGS as readonly string[]).includes(v)) return v as ChargesSetting;
  throw new Error(`must be one of ${CHARGES_SETTINGS.join(', ')}`);
}

/** `SANDBOX_SESSIONS`: whether the sandbox keeps the exchanges' sessions. */
export const SESSIONS_SETTINGS = ['enforce', 'ignore'] as const;
export type SessionsSetting = (typeof SESSIONS_SETTINGS)[number];

export function parseSessions(raw: string): SessionsSetting {
  const v = raw.trim().toLowerCase();
  if ((SESSIONS_SETTINGS as readonly string[]).includes(v)) return v as SessionsSetting;
  throw new Error(`must be one of ${SESSIONS_SETTINGS.join(', ')}`);
}

/** Where analyzer mode's prices come from (docs/rules/sandbox.md#price-source). */
export const PRICE_SOURCES = ['broker', 'simulated', 'scripted'] as const;
export type PriceSourceName = (typeof PRICE_SOURCES)[number];
/** `SANDBOX_PRICE_SOURCE`: one of {@link PRICE_SOURCES}, or `auto`. */
export type PriceSourceSetting = PriceSourceName | 'auto';

export function parsePriceSource(raw: string): PriceSourceSetting {
  const v = raw.toLowerCase();
  if (v === 'auto' || (PRICE_SOURCES as readonly string[]).includes(v)) return v as PriceSourceSetting;
  throw new Error(`must be one of auto, ${PRICE_SOURCES.join(', ')}`);
}

/** The parts of the configuration the price source depends on. */
export interface PriceSourceConfig {
  sandbox: Pick<SandboxConfig, 'priceSource'>;
  broker: { name?: string | undefined };
}

/**
 * The price source analyzer mode uses (docs/rules/sandbox.md#price-source): `auto` is the broker's
 * quotes when a live broker is configured (`BROKER_NAME`) and the simulated source otherwise. It
 * is decided once, from the configuration, never from whether a broker session is open now: an
 * expired session must not turn market prices into demo prices unnoticed.
 */
export function effectivePriceSource(config: PriceSourceConfig): PriceSourceName {
  const set = config.sandbox.priceSource;
  if (set !== 'auto') return set;
  return config.broker.name ? 'broker' : 'simulated';
}

/**
 * One line saying where analyzer mode's prices come from, for the start-up banner:
 * `sandbox prices: simulated (demo prices, not market data)`.
 */
export function describePriceSource(config: PriceSourceConfig): string {
  const source = effectivePriceSource(config);
  const why =
    config.sandbox.priceSource === 'auto'
      ? source === 'broker'
        ? ', auto: broker configured'
        : ', auto: no broker configured'
      : '';
  const what = {
    broker: `the ${config.broker.name ?? 'connected'} broker's quotes`,
    simulated: 'demo prices, not market data',
    scripted: 'played from SANDBOX_SCRIPT_FILE, not market data',
  }[source];
  return `sandbox prices: ${source} (${what}${why})`;
}

const LEVERAGE_KEYS: Record<string, keyof LeverageTable> = {
  equity_mis: 'equityMis',
  equity_cnc: 'equityCnc',
  equity_nrml: 'equityNrml',
  futures: 'futures',
  option_buy: 'optionBuy',
  option_sell: 'optionSell',
};
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

function pairs(raw: string): [string, string][] {
  return raw.split(',').map((part) => {
    const [k, v, ...rest] = part.split('=').map((s) => s.trim());
    if (!k || v === undefined || rest.length > 0) throw new Error(`"${part.trim()}" is not name=value`);
    return [k, v];
  });
}

export function parseLeverage(raw: string): LeverageTable {
  const table = { ...DEFAULT_LEVERAGE };
  for (const [k, v] of pairs(raw)) {
    const key = LEVERAGE_KEYS[k.toLowerCase()];
    if (!key) throw new Error(`unknown leverage "${k}" (one of ${Object.keys(LEVERAGE_KEYS).join(', ')})`);
    const n = Number(v);
    if (!/^\d+(\.\d{1,2})?$/.test(v) || n <= 0 || n > 100)
      throw new Error(`${k}=${v}: leverage must be a number from 0.01 to 100 with at most two decimals`);
    table[key] = n;
  }
  return table;
}

export function parseSquareOff(raw: string): Record<string, string> {
  const times = { ...DEFAULT_SQUARE_OFF };
  for (const [k, v] of pairs(raw)) {
    const ex = k.toUpperCase();
    if (!(ex in DEFAULT_SQUARE_OFF)) throw new Error(`unknown exchange "${k}"`);
    if (!HHMM.test(v)) throw new Error(`${k}=${v}: time must be HH:MM (IST)`);
    times[ex] = v;
  }
  return times;
}

export function parseStartingFunds(raw: string): Money {
  const m = tryRupeesToMoney(raw);
  if (m === undefined || m < 1_000 * 10_000 || m > 1e11 * 10_000)
    throw new Error('must be an amount in rupees from 1000 to 100000000000');
  return m;
}

export function parseResetDay(raw: string): ResetDay {
  const v = raw.toLowerCase();
  if (!(RESET_DAYS as readonly string[]).includes(v))
    throw new Error(`must be one of ${RESET_DAYS.join(', ')}`);
  return v as ResetDay;
}

export function parseHhmm(raw: string): string {
  if (!HHMM.test(raw)) throw new Error('must be HH:MM (IST)');
  return raw;
}

/** The `SANDBOX_BROKERAGE` forms, for error messages. */
const BROKERAGE_FORMS =
  'zero, flat:<rupees per order>[:delivery-free] or percent:<percent>:<cap in rupees>[:delivery-free][:options-flat]';
const BROKERAGE_OPTIONS = ['delivery-free', 'options-flat'] as const;
/** The most a plan's amount (flat fee or cap) may be, in rupees. */
const MAX_BROKERAGE_RUPEES = 100_000;
/** The most a plan's percent may be. */
const MAX_BROKERAGE_PERCENT = 5;

function brokerageRupees(raw: string, what: string): Money {
  const m = /^\d+(\.\d{1,2})?$/.test(raw) ? tryRupeesToMoney(raw) : undefined;
  if (m === undefined || m > MAX_BROKERAGE_RUPEES * 10_000)
    throw new Error(
      `${what} "${raw}" must be rupees from 0 to ${MAX_BROKERAGE_RUPEES} with at most 2 decimals`,
    );
  return m;
}

/**
 * `SANDBOX_BROKERAGE` (docs/rules/sandbox.md#charges-rates), case-insensitive:
 * - `zero`: no brokerage;
 * - `flat:20`: ₹20 per executed order;
 * - `percent:0.03:20`: 0.03 % of the order's turnover (premium for options), at most ₹20;
 * - either may add `:delivery-free` (equity delivery pays none), `percent` also `:options-flat`
 *   (options pay the cap flat), in any order.
 */
export function parseBrokeragePlan(raw: string): BrokeragePlan {
  const [kind, ...rest] = raw
    .toLowerCase()
    .split(':')
    .map((s) => s.trim());
  const optionsOf = (tokens: string[], allowed: readonly string[]): Set<string> => {
    const set = new Set<string>();
    for (const t of tokens) {
      if (!allowed.includes(t))
        throw new Error(`unknown option "${t}" (${allowed.join(' or ')}); the forms are ${BROKERAGE_FORMS}`);
      if (set.has(t)) throw new Error(`option "${t}" is given twice`);
      set.add(t);
    }
    return set;
  };
  if (kind === 'zero' && rest.length === 0) return { kind: 'zero' };
  if (kind === 'flat' && rest.length >= 1) {
    const perOrder = brokerageRupees(rest[0]!, 'the flat fee per order');
    const options = optionsOf(rest.slice(1), ['delivery-free']);
    return { kind: 'flat', perOrder, deliveryFree: options.has('delivery-free') };
  }
  if (kind === 'percent' && rest.length >= 2) {
    const [p, c] = rest as [string, string];
    const percent = Number(p);
    if (!/^\d+(\.\d{1,4})?$/.test(p) || percent > MAX_BROKERAGE_PERCENT)
      throw new Error(
        `the percent "${p}" must be a number from 0 to ${MAX_BROKERAGE_PERCENT} with at most 4 decimals`,
      );
    const cap = brokerageRupees(c, 'the cap per order');
    const options = optionsOf(rest.slice(2), BROKERAGE_OPTIONS);
    return {
      kind: 'percent',
      percent,
      cap,
      deliveryFree: options.has('delivery-free'),
      optionsFlat: options.has('options-flat'),
    };
  }
  throw new Error(`must be ${BROKERAGE_FORMS}`);
}
