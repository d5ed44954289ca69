/**
 * One instrument of the master contract in the service's canonical symbology (the one OpenAlgo
 * clients use), with the broker's own symbol and exchange beside it.
 *
 * - equity: the exchange trading symbol (`SBIN`) on NSE/BSE;
 * - futures: base + `DDMMMYY` + `FUT` (`BANKNIFTY30DEC25FUT`);
 * - options: base + `DDMMMYY` + strike + `CE`/`PE` (`NIFTY30DEC2526000CE`, strike without `.0`);
 * - indices: on `NSE_INDEX` / `BSE_INDEX`.
 */
export interface Instrument {
  /** Canonical symbol. */
  symbol: string;
  /** The broker's trading symbol. */
  brsymbol: string;
  /** Company or contract name; for derivatives the underlying. */
  name: string;
  /** Canonical exchange: NSE, BSE, NFO, BFO, CDS, BCD, MCX, NSE_INDEX, BSE_INDEX, … */
  exchange: string;
  /** The broker's exchange or segment code (`NSE_FO`, `NFO`, …). */
  brexchange: string;
  /** The broker's instrument token (what its order and data APIs take). */
  token: string;
  /** `DD-MMM-YY` upper-case (`30-DEC-25`), null for cash and indices. */
  expiry: string | null;
  /** ISO `YYYY-MM-DD` of the expiry, null for cash and indices. */
  expiryDate: string | null;
  /** Strike price for options, null otherwise. */
  strike: number | null;
  lotsize: number;
  /** EQ, INDEX, FUT, CE, PE (canonical instrument types). */
  instrumenttype: string;
  /** Tick size in rupees. */
  tickSize: number;
  /** Underlying base symbol of a derivative (`NIFTY`, `SBIN`), null for cash. */
  underlying: string | null;
}

/** What a master-contract parser yields: an instrument, or a line it could not use and why. */
export type ParsedItem = { kind: 'row'; row: Instrument } | { kind: 'skip'; line: number; reason: string };

/** A broker's master-contract file format. */
export interface MasterContractFormat {
  /** Broker id as used on the command line (`zerodha`, `upstox`, …). */
  broker: string;
  /** The broker's published download URL(s) relative to a configurable base. */
  downloadPaths: string[];
  /** Whether a downloaded/imported file is gzip-compressed (by name or magic bytes is decided by the caller). */
  parse(input: NodeJS.ReadableStream | AsyncIterable<Buffer | string>): AsyncIterable<ParsedItem>;
}
