import type { SandboxInstrument } from '../../src/modules/sandbox/core/types.js';

// Real contracts: Kite NFO/BFO 2026-08-18 (NIFTY lot 65 tick 0.05, BANKNIFTY FUT lot 30 tick 0.20),
// Kite NSE 2025-10-06 (SBIN lot 1 tick 0.05), Fyers NSE_CD 2025-11-10 (USDINR tick 0.0025).
export const NIFTY_CE: SandboxInstrument = {
  symbol: 'NIFTY18AUG2626000CE',
  exchange: 'NFO',
  lotsize: 65,
  instrumenttype: 'CE',
  tickSize: 0.05,
};
export const BANKNIFTY_FUT: SandboxInstrument = {
  symbol: 'BANKNIFTY25AUG26FUT',
  exchange: 'NFO',
  lotsize: 30,
  instrumenttype: 'FUT',
  tickSize: 0.2,
};
export const SBIN: SandboxInstrument = {
  symbol: 'SBIN',
  exchange: 'NSE',
  lotsize: 1,
  instrumenttype: 'EQ',
  tickSize: 0.05,
};
export const USDINR_FUT: SandboxInstrument = {
  symbol: 'USDINR28NOV25FUT',
  exchange: 'CDS',
  lotsize: 1,
  instrumenttype: 'FUT',
  tickSize: 0.0025,
};
export const NIFTY_INDEX: SandboxInstrument = {
  symbol: 'NIFTY',
  exchange: 'NSE_INDEX',
  lotsize: 0,
  instrumenttype: 'INDEX',
  tickSize: 0,
};
