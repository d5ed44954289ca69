/**
 * The charges an Indian broker's contract note books on each fill, written once
 * (docs/rules/sandbox.md#charges-rates): brokerage (the configured plan), STT/CTT, exchange
 * transaction charges, the SEBI turnover fee, stamp duty and GST, by segment and side, at the rates
 * in force in 2026.
 *
 * Every rate is kept as rupees per crore (₹1,00,00,000) of turnover, where all of them are whole
 * numbers, and every charge is computed exactly in integers ({@link Money} × rate, in `bigint`) and
 * rounded once, half up (charges are never negative): STT/CTT to the rupee, every other charge to
 * the paisa, GST on the paise of the charges it taxes. Amounts in and out are {@link Money}.
 */
import { EXCHANGE_SEGMENTS, type Exchange } from './exchanges.js';
import { instrumentKind } from './instruments.js';
import type { Money } from './money.js';
import type { Action } from './orders.js';

/** What the charges of a fill depend on: the market, and for cash equity delivery or intraday. */
export type ChargeSegment =
  | 'equity_delivery'
  | 'equity_intraday'
  | 'equity_futures'
  | 'equity_options'
  | 'currency_futures'
  | 'currency_options'
  | 'commodity_futures'
  | 'commodity_options';

/**
 * The charge segment of a fill: cash equity (NSE, BSE) is intraday under MIS and delivery under
 * CNC or NRML; a derivative exchange's FUT is a future and its CE/PE an option, whatever the
 * product. Undefined for what has no rates here: an index, a type the exchange does not trade
 * (a FUT on NSE, an EQ on NFO), and the agricultural exchanges (NCDEX, NCO), whose CTT exemption
 * and exchange fees are not kept.
 */
export function chargeSegmentOf(
  exchange: string,
  product: string,
  instrumentType: string,
): ChargeSegment | undefined {
  if (!Object.hasOwn(EXCHANGE_SEGMENTS, exchange)) return undefined;
  if (!Object.hasOwn(EXCHANGE_TRANSACTION_PER_CRORE, exchange)) return undefined;
  const market = EXCHANGE_SEGMENTS[exchange as Exchange];
  const kind = instrumentKind(instrumentType);
  if (market === 'cash') {
    if (instrumentType !== 'EQ') return undefined;
    return product === 'MIS' ? 'equity_intraday' : 'equity_delivery';
  }
  if (kind !== 'future' && kind !== 'option') return undefined;
  const prefix =
    market === 'equity_derivatives' ? 'equity' : market === 'currency' ? 'currency' : 'commodity';
  return `${prefix}_${kind === 'future' ? 'futures' : 'options'}`;
}

/** Rates in rupees per crore of turnover (premium turnover for options), by segment. */
type PerCrore = Partial<Readonly<Record<ChargeSegment, number>>>;

/** STT/CTT rates of one period, rupees per crore of turnover (of premium for options). */
export interface TransactionTaxRates {
  /** Cash delivery, on the buyer and on the seller. */
  deliveryBothSides: number;
  /** Cash intraday, on the seller. */
  intradaySell: number;
  /** Equity futures, on the seller. */
  futuresSell: number;
  /** Equity options, on the seller's premium. */
  optionsSell: number;
  /**
   * Equity options exercised, on the buyer's intrinsic value (for expiry settlement; a fill never
   * pays it).
   */
  optionsExercised: number;
  /** Commodity (non-agricultural) futures, on the seller: CTT. */
  commodityFuturesSell: number;
  /** Commodity options, on the seller's premium: CTT. */
  commodityOptionsSell: number;
}

/**
 * STT from 1 Oct 2024: Finance (No. 2) Act 2004 s.98 as amended by the Finance (No. 2) Act 2024
 * (futures 0.0125 % → 0.02 %, options 0.0625 % → 0.1 % of premium, exercise 0.125 %); cash equity
 * 0.1 % delivery both sides, 0.025 % intraday sell, unchanged since the Finance Act 2013. CTT
 * (Finance Act 2013 Chapter VII, s.105): non-agricultural futures 0.01 % and options 0.05 % of
 * premium, on the seller, as brokers' charge lists state them (the Act's table was not re-read;
 * agricultural commodities are exempt, and MCX's contracts are taken as non-agricultural).
 * Cross-checked against Zerodha's published charges page (zerodha.com/charges). Currency
 * derivatives pay no STT.
 */
export const STT_FROM_OCT_2024: Readonly<TransactionTaxRates> = Object.freeze({
  deliveryBothSides: 10_000, // 0.1 %
  intradaySell: 2_500, // 0.025 %
  futuresSell: 2_000, // 0.02 %
  optionsSell: 10_000, // 0.1 % of premium
  optionsExercised: 12_500, // 0.125 % of intrinsic value
  commodityFuturesSell: 1_000, // 0.01 %
  commodityOptionsSell: 5_000, // 0.05 % of premium
});

/**
 * STT from 1 Apr 2026: the Finance Act 2026 (clause 143 of the Finance Bill 2026, amending s.98 of
 * the Finance (No. 2) Act 2004) raised futures to 0.05 % and options to 0.15 % of premium, and
 * exercised options to 0.15 % of intrinsic value. The rates are the Bill's as announced on
 * 1 Feb 2026 and reported in force from 1 Apr 2026 (brokers' charge lists show them); the Act's
 * final text was not read. CTT and cash equity STT are unchanged.
 */
export const STT_FROM_APR_2026: Readonly<TransactionTaxRates> = Object.freeze({
  ...STT_FROM_OCT_2024,
  futuresSell: 5_000, // 0.05 %
  optionsSell: 15_000, // 0.15 % of premium
  optionsExercised: 15_000, // 0.15 % of intrinsic value
});

/** 00:00 IST on a date, as epoch milliseconds. */
const istMidnight = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) - 330 * 60_000;

/**
 * The STT/CTT periods, oldest first: a fill pays the rates of the last period begun at its time
 * (a fill before the first is charged the first's rates).
 */
export const TRANSACTION_TAX_PERIODS: readonly { from: number; rates: Readonly<TransactionTaxRates> }[] =
  Object.freeze([
    { from: istMidnight(2024, 10, 1), rates: STT_FROM_OCT_2024 },
    { from: istMidnight(2026, 4, 1), rates: STT_FROM_APR_2026 },
  ]);

/** The STT/CTT rates in force at `at` (epoch ms); the latest when `at` is undefined. */
export function transactionTaxRatesAt(at?: number): Readonly<TransactionTaxRates> {
  let rates = TRANSACTION_TAX_PERIODS[0]!.rates;
  for (const p of TRANSACTION_TAX_PERIODS) if (at === undefined || at >= p.from) rates = p.rates;
  return rates;
}

/**
 * Exchange transaction charges, both sides, since 1 Oct 2024: the flat "true to label" fees SEBI's
 * circular of 1 Jul 2024 on charges levied by market infrastructure institutions required,
 * published in each exchange's circular of Sep 2024.
 * - NSE (circular of 27 Sep 2024): cash ₹2.97 per lakh, equity futures ₹1.73 per lakh, equity
 *   options ₹35.03 per lakh of premium; currency futures ₹0.35 per lakh, currency options ₹31.10
 *   per lakh of premium.
 * - BSE: cash ₹375 per crore (groups A, B and the non-exclusive scrips; other groups pay more and
 *   are not told apart here); index and stock futures nil; options ₹3,250 per crore of premium
 *   (SENSEX and BANKEX, revised 1 Oct 2024; SENSEX 50 and stock options pay ₹500 and are not told
 *   apart); currency futures ₹45 per crore, currency options ₹100 per crore of premium.
 * - MCX (circular of 24 Sep 2024): futures ₹2.10 per lakh, options ₹41.80 per lakh of premium.
 */
export const EXCHANGE_TRANSACTION_PER_CRORE: Readonly<Record<string, PerCrore>> = Object.freeze({
  NSE: { equity_delivery: 297, equity_intraday: 297 },
  BSE: { equity_delivery: 375, equity_intraday: 375 },
  NFO: { equity_futures: 173, equity_options: 3_503 },
  BFO: { equity_futures: 0, equity_options: 3_250 },
  CDS: { currency_futures: 35, currency_options: 3_110 },
  BCD: { currency_futures: 45, currency_options: 100 },
  MCX: { commodity_futures: 210, commodity_options: 4_180 },
});

/**
 * NSE's Investor Protection Fund Trust charge, levied on NSE's trades and shown within the
 * exchange transaction charges of a contract note (Zerodha's support page "What are IPFT
 * charges?"; Upstox and Fyers list the same figures): ₹10 per crore on cash and futures, ₹50 per
 * crore of premium on options, ₹2 per lakh of premium on currency options. Currency futures'
 * figure could not be confirmed (brokers' pages say ₹0.05 and ₹0.5 per lakh) and is left out.
 */
export const NSE_IPFT_PER_CRORE: Readonly<Record<string, PerCrore>> = Object.freeze({
  NSE: { equity_delivery: 10, equity_intraday: 10 },
  NFO: { equity_futures: 10, equity_options: 50 },
  CDS: { currency_options: 200 },
});

/**
 * SEBI's turnover fee, ₹10 per crore on every segment (on premium for options), under the fees
 * schedule of the SEBI (Stock Brokers) Regulations; the figure is the one every broker's 2025-2026
 * charge list shows (Zerodha's among them), the SEBI notification itself was not read. The ₹1 per
 * crore of agricultural commodities is not kept (they have no rates here).
 */
export const SEBI_FEE_PER_CRORE = 10;

/**
 * Stamp duty, on the buyer only: the Indian Stamp Act 1899 as amended by the Finance Act 2019, in
 * force from 1 Jul 2020 and collected by the exchanges' clearing corporations (NSE's "Stamp duty"
 * page): delivery 0.015 %, non-delivery (intraday) 0.003 %, futures (equity and commodity) 0.002 %,
 * options (equity and commodity) 0.003 % of premium, currency derivatives 0.0001 %.
 */
export const STAMP_DUTY_BUY_PER_CRORE: Readonly<Record<ChargeSegment, number>> = Object.freeze({
  equity_delivery: 1_500,
  equity_intraday: 300,
  equity_futures: 200,
  equity_options: 300,
  currency_futures: 10,
  currency_options: 10,
  commodity_futures: 200,
  commodity_options: 300,
});

/**
 * GST, 18 % (the IGST/CGST+SGST rate on stockbroking services), on brokerage + exchange
 * transaction charges (IPFT included) + the SEBI fee, as Zerodha's charges page states. Not on
 * STT/CTT or stamp duty, which are taxes.
 */
export const GST_PERCENT = 18;

/** How brokerage is charged per executed order (`SANDBOX_BROKERAGE`, parsed in config-sandbox.ts). */
export type BrokeragePlan =
  | { kind: 'zero' }
  | {
      kind: 'flat';
      /** Per executed order. */
      perOrder: Money;
      /** Equity delivery (CNC) orders pay none. */
      deliveryFree: boolean;
    }
  | {
      kind: 'percent';
      /** Percent of the order's turnover (premium turnover for options), at most 4 decimals. */
      percent: number;
      /** The most one order pays. */
      cap: Money;
      /** Equity delivery (CNC) orders pay none. */
      deliveryFree: boolean;
      /** Options pay the cap flat per order (Zerodha's "flat ₹20 per executed order" on options). */
      optionsFlat: boolean;
    };

/**
 * The common discount-broker plan (Zerodha's published brokerage): 0.03 % or ₹20 per executed order
 * whichever is lower, ₹20 flat on options, delivery free.
 */
export const DEFAULT_BROKERAGE_PLAN: Readonly<BrokeragePlan> = Object.freeze({
  kind: 'percent',
  percent: 0.03,
  cap: 20 * 10_000,
  deliveryFree: true,
  optionsFlat: true,
});

/** One executed order's fill, as charges see it. */
export interface ChargeableFill {
  exchange: string;
  product: string;
  /** The canonical `instrumenttype`: EQ, FUT, CE or PE. */
  instrumentType: string;
  side: Action;
  /** Units filled (a positive integer; for derivatives lots × lot size). */
  quantity: number;
  /** Price per unit (the premium for options). */
  price: Money;
  /** When it filled (epoch ms): picks the STT/CTT period; the latest period when absent. */
  at?: number;
}

/** The charges of one fill, each rounded as a contract note rounds it (whole paise, STT whole rupees). */
export interface Charges {
  brokerage: Money;
  /** STT, or CTT on commodities. */
  stt: Money;
  /** Exchange transaction charges, NSE's IPFT included. */
  exchange: Money;
  sebi: Money;
  stamp: Money;
  gst: Money;
  total: Money;
}

const MONEY_PER_PAISA = 100n;
const MONEY_PER_RUPEE = 10_000n;
const CRORE = 10_000_000n;

/** `n ÷ d` for `n ≥ 0`, `d > 0`, rounded half up. */
const divHalfUp = (n: bigint, d: bigint): bigint => (2n * n + d) / (2n * d);

/** `turnover × perCrore / 1 crore`, rounded half up to a multiple of `unit` (Money). */
function rated(turnover: bigint, perCrore: number, unit: bigint): bigint {
  return divHalfUp(turnover * BigInt(perCrore), CRORE * unit) * unit;
}

function brokerageOf(plan: BrokeragePlan, segment: ChargeSegment, turnover: bigint): bigint {
  if (plan.kind === 'zero') return 0n;
  if (plan.deliveryFree && segment === 'equity_delivery') return 0n;
  if (plan.kind === 'flat') return BigInt(plan.perOrder);
  const cap = BigInt(plan.cap);
  if (plan.optionsFlat && segment.endsWith('_options')) return cap;
  // percent has at most 4 decimals: percent × 10^4 is an integer, and turnover × it / 10^6 is the fee.
  const fee = divHalfUp(turnover * BigInt(Math.round(plan.percent * 10_000)), 1_000_000n * MONEY_PER_PAISA);
  const paise = fee * MONEY_PER_PAISA;
  return paise < cap ? paise : cap;
}

/**
 * The STT/CTT rate (rupees per crore) a fill of `segment` pays on its side at `at`, 0 when none.
 * {@link chargesOf} rounds a fill's STT to the rupee; the exchanges compute it on a client's day
 * per security (NSE circular NSE/CMO/0146/2004), which a day's contract note can redo from the
 * day's turnover and this rate.
 */
export function transactionTaxPerCrore(segment: ChargeSegment, side: Action, at?: number): number {
  const r = transactionTaxRatesAt(at);
  if (segment === 'equity_delivery') return r.deliveryBothSides;
  if (side !== 'SELL') return 0;
  switch (segment) {
    case 'equity_intraday':
      return r.intradaySell;
    case 'equity_futures':
      return r.futuresSell;
    case 'equity_options':
      return r.optionsSell;
    case 'commodity_futures':
      return r.commodityFuturesSell;
    case 'commodity_options':
      return r.commodityOptionsSell;
    default:
      return 0; // currency derivatives pay no STT
  }
}

/**
 * The charges a contract note books on one fill, treated as one executed order (a broker charges
 * per-order brokerage once however many fills the order had: charge the order's total fill then).
 * A `RangeError` for a fill without rates ({@link chargeSegmentOf}), a quantity that is not a
 * positive integer or a negative price.
 */
export function chargesOf(fill: ChargeableFill, plan: BrokeragePlan): Charges {
  const segment = chargeSegmentOf(fill.exchange, fill.product, fill.instrumentType);
  if (segment === undefined)
    throw new RangeError(
      `no charges are known for ${fill.instrumentType} ${fill.product} on ${fill.exchange}`,
    );
  if (!Number.isSafeInteger(fill.quantity) || fill.quantity <= 0)
    throw new RangeError(`quantity must be a positive integer: ${fill.quantity}`);
  if (!Number.isSafeInteger(fill.price) || fill.price < 0)
    throw new RangeError(`price must be a non-negative amount: ${fill.price}`);

  const turnover = BigInt(fill.price) * BigInt(fill.quantity);
  const brokerage = brokerageOf(plan, segment, turnover);
  const stt = rated(turnover, transactionTaxPerCrore(segment, fill.side, fill.at), MONEY_PER_RUPEE);
  const exchange = rated(
    turnover,
    (EXCHANGE_TRANSACTION_PER_CRORE[fill.exchange]?.[segment] ?? 0) +
      (NSE_IPFT_PER_CRORE[fill.exchange]?.[segment] ?? 0),
    MONEY_PER_PAISA,
  );
  const sebi = rated(turnover, SEBI_FEE_PER_CRORE, MONEY_PER_PAISA);
  const stamp =
    fill.side === 'BUY' ? rated(turnover, STAMP_DUTY_BUY_PER_CRORE[segment], MONEY_PER_PAISA) : 0n;
  const gst =
    divHalfUp((brokerage + exchange + sebi) * BigInt(GST_PERCENT), 100n * MONEY_PER_PAISA) * MONEY_PER_PAISA;
  const parts = { brokerage, stt, exchange, sebi, stamp, gst };
  const total = brokerage + stt + exchange + sebi + stamp + gst;
  const out = {} as Charges;
  for (const [k, v] of Object.entries({ ...parts, total })) {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new RangeError('charges are outside the exact money range');
    out[k as keyof Charges] = n;
  }
  return out;
}

/** Adds the charges of several fills field by field (a round trip, a contract note's day). */
export function sumCharges(list: readonly Charges[]): Charges {
  const sum: Charges = { brokerage: 0, stt: 0, exchange: 0, sebi: 0, stamp: 0, gst: 0, total: 0 };
  for (const c of list) for (const k of Object.keys(sum) as (keyof Charges)[]) sum[k] += c[k];
  return sum;
}

/** No charges at all (a fill without rates, a settlement that pays none). */
export const NO_CHARGES: Readonly<Charges> = Object.freeze({
  brokerage: 0,
  stt: 0,
  exchange: 0,
  sebi: 0,
  stamp: 0,
  gst: 0,
  total: 0,
});

/**
 * The charges of an equity option settled at expiry in the money, on the holder's side (the long
 * closed at its intrinsic value `price`): STT at the exercise rate of
 * {@link TransactionTaxRates.optionsExercised} on the settlement value, to the rupee, and nothing
 * else (a cash-settled exercise is no executed order: no brokerage, no exchange fee, no stamp
 * duty). The writer's side, an option expiring worthless, futures' final settlement and the
 * currency and commodity exchanges pay nothing.
 */
export function exerciseChargesOf(fill: ChargeableFill): Charges {
  const segment = chargeSegmentOf(fill.exchange, fill.product, fill.instrumentType);
  if (segment !== 'equity_options' || fill.side !== 'SELL' || fill.price <= 0) return { ...NO_CHARGES };
  const turnover = BigInt(fill.price) * BigInt(fill.quantity);
  const stt = Number(rated(turnover, transactionTaxRatesAt(fill.at).optionsExercised, MONEY_PER_RUPEE));
  if (!Number.isSafeInteger(stt)) throw new RangeError('charges are outside the exact money range');
  return { ...NO_CHARGES, stt, total: stt };
}
