/**
 * Canonical (OpenAlgo-compatible) symbology: pure helpers shared by every master-contract
 * importer. Nothing here knows about a broker; each importer turns its own columns into the
 * inputs these functions take.
 *
 * - equity: the exchange trading symbol (`SBIN`);
 * - futures: base + `DDMMMYY` + `FUT` (`BANKNIFTY30DEC25FUT`);
 * - options: base + `DDMMMYY` + strike + `CE`/`PE` (`NIFTY30DEC2526000CE`, `USDINR26FEB2686.25CE`);
 * - indices: a space-less upper-case name on `NSE_INDEX` / `BSE_INDEX` (`NIFTY 50` → `NIFTY`).
 */
import { INDEX_EXCHANGE_OF, type IndexExchange } from '../../domain/exchanges.js';
import type { DerivativeType, OptionType } from '../../domain/instruments.js';

/** Canonical instrument types. */
export type { InstrumentType } from '../../domain/instruments.js';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const MONTH_INDEX = new Map<string, number>(MONTHS.map((m, i) => [m, i + 1]));

/** India Standard Time is UTC+05:30 all year (no daylight saving). */
const IST_OFFSET_MS = 19_800_000;

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.]*(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const DMY_RE = /^(\d{1,2})[-/ ]([A-Za-z]{3})[-/ ](\d{4}|\d{2})$/;
const COMPACT_RE = /^(\d{2})([A-Za-z]{3})(\d{4}|\d{2})$/;
const EPOCH_RE = /^\d{9,13}$/;

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isoOf(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1) return null;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
  if (day > daysInMonth) return null;
  return `${year}-${pad2(month)}-${pad2(day)}`;
}

function fullYear(text: string): number {
  const n = Number(text);
  return text.length === 2 ? 2000 + n : n;
}

/** ISO date (IST calendar day) of an epoch in seconds (≤ 11 digits) or milliseconds. */
export function isoDateFromEpoch(epoch: number): string {
  const ms = epoch < 1e11 ? epoch * 1000 : epoch;
  return new Date(ms + IST_OFFSET_MS).toISOString().slice(0, 10);
}

/**
 * Reads an expiry in any form the broker files use and returns its ISO date (`YYYY-MM-DD`), or
 * null when the text is not a real calendar date (`2026-13-01`, `31-FEB-26`).
 *
 * Accepted: ISO (`2026-08-25`, with an optional time part, whose date is taken as written),
 * `DD-MMM-YYYY` / `DD-MMM-YY` / `DD/MMM/YY` (any case), `DDMMMYY`, and an epoch in seconds or
 * milliseconds (Fyers, Upstox JSON), read as an IST calendar day because NSE/BSE/MCX expiries
 * are IST days (`1757095200` → `2025-09-05`).
 */
export function parseExpiry(text: string): string | null {
  const s = text.trim();
  if (s === '') return null;
  let m = ISO_RE.exec(s);
  if (m) return isoOf(Number(m[1]), Number(m[2]), Number(m[3]));
  m = DMY_RE.exec(s) ?? COMPACT_RE.exec(s);
  if (m) {
    const month = MONTH_INDEX.get(m[2]!.toUpperCase());
    return month === undefined ? null : isoOf(fullYear(m[3]!), month, Number(m[1]));
  }
  if (EPOCH_RE.test(s)) return isoDateFromEpoch(Number(s));
  return null;
}

function isoParts(iso: string): [day: string, month: string, yy: string] {
  const month = MONTHS[Number(iso.slice(5, 7)) - 1];
  if (month === undefined) throw new RangeError(`not an ISO date: ${iso}`);
  return [iso.slice(8, 10), month, iso.slice(2, 4)];
}

/** `2025-12-30` → `30-DEC-25` (the `expiry` column format). */
export function expiryLabel(iso: string): string {
  const [d, m, y] = isoParts(iso);
  return `${d}-${m}-${y}`;
}

/** `2025-12-30` → `30DEC25` (the date part of a canonical derivative symbol). */
export function expiryCode(iso: string): string {
  const [d, m, y] = isoParts(iso);
  return `${d}${m}${y}`;
}

/**
 * A strike as it appears in a canonical symbol: no trailing `.0`, decimals kept
 * (`26000.0` → `26000`, `86.25` → `86.25`). OpenAlgo's Zerodha mapper truncates decimals
 * (`86.25` → `86`), which makes the 86.25 and 86 strikes collide; we keep them, as its own
 * symbol-format guide does (`VEDL25APR24292.5CE`).
 */
export function formatStrike(strike: number): string {
  if (Number.isInteger(strike)) return String(strike);
  // Rounding to 8 places removes binary noise (e.g. from a paise → rupee division).
  return String(Number(strike.toFixed(8)));
}

/** `BANKNIFTY`, `2025-12-30` → `BANKNIFTY30DEC25FUT`. */
export function futureSymbol(base: string, expiryIso: string): string {
  return `${base}${expiryCode(expiryIso)}FUT`;
}

/** `NIFTY`, `2025-12-30`, 26000, `CE` → `NIFTY30DEC2526000CE`. */
export function optionSymbol(base: string, expiryIso: string, strike: number, type: OptionType): string {
  return `${base}${expiryCode(expiryIso)}${formatStrike(strike)}${type}`;
}

/**
 * NSE series of an issuer's ordinary shares (EQ, trade-for-trade BE/BZ, SME SM/ST/SZ, IT) and
 * of units that carry their own symbol (REITs RR, InvITs IV). Brokers that append the series to
 * the symbol (Kite `GODHA-BE`, Fyers `NSE:SOLEX-ST`) lose it in the canonical symbol, as every
 * other broker shows these securities (Upstox `GODHA`). OpenAlgo's Zerodha mapper keeps the
 * suffix, so a strategy trading `GODHA` breaks the day the stock moves from EQ to BE.
 *
 * Other series (state loans SG, bonds N0…, debentures D1, warrants W1, partly paid P1, …) also
 * lose it unless the plain symbol belongs to another security of the same file, in which case
 * they keep the broker's (`CHOLAFIN-D1` beside the ordinary share `CHOLAFIN`).
 */
export const NSE_SHARE_SERIES: ReadonlySet<string> = new Set([
  'EQ',
  'BE',
  'BZ',
  'SM',
  'ST',
  'SZ',
  'IT',
  'RR',
  'IV',
]);

/** Compact date codes exchanges put in trading symbols: monthly `26MAR`, weekly `26219` / `2631O`. */
const DATE_CODE_RE = /^\d{2}(?:[A-Z]{3}|[1-9OND]\d{2})$/;

/**
 * The underlying base of an exchange trading symbol (`NIFTY2681824350CE`, `GOLDM26FEB154400PE`,
 * `USDINR26220FUT` → `NIFTY`, `GOLDM`, `USDINR`), or null when the symbol does not have the
 * exchange's `<base><date code>[<strike>]<FUT|CE|PE>` shape.
 *
 * Bases come from the trading symbol rather than from a name column because brokers fill
 * names loosely: Upstox names GOLDM contracts `GOLD` and stock derivatives by company name.
 */
export function underlyingFromTradingSymbol(
  tradingSymbol: string,
  type: DerivativeType,
  strike?: number,
): string | null {
  let rest: string;
  if (type === 'FUT') {
    if (!tradingSymbol.endsWith('FUT')) return null;
    rest = tradingSymbol.slice(0, -3);
  } else {
    if (strike === undefined) return null;
    const tail = `${formatStrike(strike)}${type}`;
    if (!tradingSymbol.endsWith(tail)) return null;
    rest = tradingSymbol.slice(0, -tail.length);
  }
  if (rest.length < 6 || !DATE_CODE_RE.test(rest.slice(-5))) return null;
  return rest.slice(0, -5);
}

/**
 * NSE index names whose OpenAlgo symbol is not simply the name without spaces and hyphens
 * (keys are already squeezed). Everything else is squeezed: `NIFTY PSU BANK` → `NIFTYPSUBANK`,
 * `INDIA VIX` → `INDIAVIX`, `HANGSENG BEES-NAV` → `HANGSENGBEESNAV`.
 */
export const NSE_INDEX_ALIASES: Readonly<Record<string, string>> = {
  NIFTY50: 'NIFTY',
  NIFTYBANK: 'BANKNIFTY',
  NIFTYFINSERVICE: 'FINNIFTY',
  NIFTYFINANCIALSERVICES: 'FINNIFTY',
  NIFTYNEXT50: 'NIFTYNXT50',
  NIFTYMIDSELECT: 'MIDCPNIFTY',
  NIFTYMIDCAPSELECT: 'MIDCPNIFTY',
};

/**
 * BSE index codes (as Kite and Upstox list them, squeezed) → OpenAlgo's BSE_INDEX symbols.
 * Codes not listed keep the exchange code (`FOCIT`, `INDDEF`). OpenAlgo's Zerodha mapper
 * prefixes those with `BSE` (`BSEFOCIT`) while its Upstox mapper does not; we follow the Upstox
 * behaviour so that an index with derivatives is quoted under its derivatives' base symbol
 * (`FOCIT` options on BFO, `FOCIT` on BSE_INDEX) whichever broker is connected.
 */
export const BSE_INDEX_ALIASES: Readonly<Record<string, string>> = {
  SNSX50: 'SENSEX50',
  SNXT50: 'BSESENSEXNEXT50',
  MID150: 'BSE150MIDCAPINDEX',
  LMI250: 'BSE250LARGEMIDCAPINDEX',
  MSL400: 'BSE400MIDSMALLCAPINDEX',
  AUTO: 'BSEAUTO',
  BSECG: 'BSECAPITALGOODS',
  BSECD: 'BSECONSUMERDURABLES',
  BSEHC: 'BSEHEALTHCARE',
  BSEIT: 'BSEINFORMATIONTECHNOLOGY',
  CARBON: 'BSECARBONEX',
  CARBONEX: 'BSECARBONEX',
  CPSE: 'BSECPSE',
  DOL100: 'BSEDOLLEX100',
  DOL200: 'BSEDOLLEX200',
  DOL30: 'BSEDOLLEX30',
  ENERGY: 'BSEENERGY',
  BSEFMC: 'BSEFASTMOVINGCONSUMERGOODS',
  FMC: 'BSEFASTMOVINGCONSUMERGOODS',
  FINSER: 'BSEFINANCIALSERVICES',
  FIN: 'BSEFINANCIALSERVICES',
  GREENX: 'BSEGREENEX',
  GREENEX: 'BSEGREENEX',
  INFRA: 'BSEINDIAINFRASTRUCTUREINDEX',
  INDSTR: 'BSEINDUSTRIALS',
  IPO: 'BSEIPO',
  LRGCAP: 'BSELARGECAP',
  METAL: 'BSEMETAL',
  MIDCAP: 'BSEMIDCAP',
  MIDSEL: 'BSEMIDCAPSELECTINDEX',
  OILGAS: 'BSEOIL&GAS',
  POWER: 'BSEPOWER',
  PSU: 'BSEPSU',
  REALTY: 'BSEREALTY',
  SMLCAP: 'BSESMALLCAP',
  SMLSEL: 'BSESMALLCAPSELECTINDEX',
  SMEIPO: 'BSESMEIPO',
  TECK: 'BSETECK',
  TELCOM: 'BSETELECOM',
};

/** Upper-case, without spaces and hyphens: the shape of every canonical index symbol. */
function squeeze(name: string): string {
  return name.toUpperCase().replace(/[\s-]+/g, '');
}

/** Canonical symbol of an index listed as `name` (broker trading symbol) on NSE_INDEX or BSE_INDEX. */
export function indexSymbol(name: string, exchange: IndexExchange): string {
  const key = squeeze(name);
  const aliases = exchange === INDEX_EXCHANGE_OF.NSE ? NSE_INDEX_ALIASES : BSE_INDEX_ALIASES;
  return aliases[key] ?? key;
}

const DECIMAL_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A decimal number from a CSV field, or null for an empty or non-numeric field. Stricter than
 * `Number()`, which reads `''` and `' '` as 0 and `0x10` as 16.
 */
export function parseDecimal(text: string): number | null {
  const s = text.trim();
  if (!DECIMAL_RE.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}
