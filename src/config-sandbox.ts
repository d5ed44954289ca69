/**
 * The sandbox's part of the configuration, parsed by `loadConfig` like every other
 * variable. Amounts are rupees in the environment and {@link Money} here.
 */
import { DEFAULT_LEVERAGE, type LeverageTable } from './domain/sandbox.js';
import { tryRupeesToMoney, type Money } from './domain/money.js';

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
