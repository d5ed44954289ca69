/**
 * Instruments as every importer writes them: the canonical `instrumenttype` of a master-contract
 * row, and the kinds that margin, lot and leg rules see.
 */

/** Canonical instrument types: cash equity, index, future, call option, put option. */
export const INSTRUMENT_TYPES = ['EQ', 'INDEX', 'FUT', 'CE', 'PE'] as const;
export type InstrumentType = (typeof INSTRUMENT_TYPES)[number];

/** The option types. */
export const OPTION_TYPES = ['CE', 'PE'] as const satisfies readonly InstrumentType[];
export type OptionType = (typeof OPTION_TYPES)[number];

/** What a derivative leg of a strategy names: an option type or the future. */
export const DERIVATIVE_TYPES = ['CE', 'PE', 'FUT'] as const satisfies readonly InstrumentType[];
export type DerivativeType = (typeof DERIVATIVE_TYPES)[number];

/** How margin and lot rules see an instrument: cash equity, future, option, or an untradable index. */
export type InstrumentKind = 'equity' | 'future' | 'option' | 'index';

/** The kind of an instrument from its canonical `instrumenttype`; anything else is equity. */
export function instrumentKind(instrumenttype: string): InstrumentKind {
  switch (instrumenttype) {
    case 'FUT':
      return 'future';
    case 'CE':
    case 'PE':
      return 'option';
    case 'INDEX':
      return 'index';
    default:
      return 'equity';
  }
}
