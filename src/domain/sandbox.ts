/**
 * The sandbox's defaults that are facts of the product, written once: the leverage of new
 * exposure by instrument kind and product (`SANDBOX_LEVERAGE` overrides any of it), and how long
 * before a special session's end MIS squares off when the configured time falls outside it.
 */

/** Leverage per instrument kind and product (defaults in {@link DEFAULT_LEVERAGE}). */
export interface LeverageTable {
  /** Cash equity, intraday. */
  equityMis: number;
  /** Cash equity, delivery. */
  equityCnc: number;
  /** Cash equity, carry-forward. */
  equityNrml: number;
  /** Futures, any product. */
  futures: number;
  /** Options, new long exposure (premium paid), any product. */
  optionBuy: number;
  /** Options, new short exposure, any product. */
  optionSell: number;
}

/**
 * Default leverage (docs/rules/sandbox.md#margin-at-placement): equity MIS 5×, equity CNC/NRML 1×,
 * futures 10×, option buy 1×, option sell 1×.
 */
export const DEFAULT_LEVERAGE: Readonly<LeverageTable> = Object.freeze({
  equityMis: 5,
  equityCnc: 1,
  equityNrml: 1,
  futures: 10,
  optionBuy: 1,
  optionSell: 1,
});

/** Minutes before a session's end that MIS squares off when the configured time is outside it. */
export const SESSION_END_MARGIN_MS = 15 * 60_000;
