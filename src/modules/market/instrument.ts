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
  /** Company or index name as the broker lists it (may be empty); for derivatives the underlying. */
  name: string;
  /** Canonical exchange: NSE, BSE, NFO, BFO, CDS, BCD, MCX, NCO, NSE_INDEX, BSE_INDEX. */
  exchange: string;
  /** The broker's exchange or segment code (`NSE_FO`, `NFO`, …). */
  brexchange: string;
  /** The broker's instrument token (Kite `instrument_token`, Upstox `instrument_key`). */
  token: string;
  /** `DD-MMM-YY` upper-case (`30-DEC-25`), null for cash and indices. */
  expiry: string | null;
  /** ISO `YYYY-MM-DD` of the expiry, null for cash and indices. */
  expiryDate: string | null;
  /** Strike price for options, null otherwise. */
  strike: number | null;
  /** Lot size as the broker states it (≥ 1); 0 for indices. */
  lotsize: number;
  /** EQ, INDEX, FUT, CE, PE (canonical instrument types). */
  instrumenttype: string;
  /** Tick size in rupees (> 0; 0 for indices). */
  tickSize: number;
  /** Underlying base symbol of a derivative (`NIFTY`, `SBIN`), null for cash and indices. */
  underlying: string | null;
  /**
   * The price the broker's file states for the contract (its `last_price`), in rupees (> 0);
   * undefined when the file states none. Set by the parsers and stored with the row; the rows the
   * index and lookups return leave it out (`ContractsService.referencePrice` reads it).
   */
  referencePrice?: number | undefined;
}

/**
 * What a master-contract parser yields: an instrument, or a line it could not use and why
 * (`line` is 1-based and counts the header; `reason` is short: `bad expiry 2026-13-01`).
 */
export type ParsedItem = { kind: 'row'; row: Instrument } | { kind: 'skip'; line: number; reason: string };

/** A broker's master-contract file format (the parsers live in `importers/`). */
export interface MasterContractFormat {
  /** Broker id as used on the command line (`zerodha`, `upstox`, …). */
  broker: string;
  /**
   * Streams the canonical instruments of one master file. `input` is the plain (already
   * gunzipped) file; downloading and decompressing are the caller's.
   *
   * - Throws before yielding anything when the file is empty or its header is not this format's.
   * - A line it cannot use is yielded as a `skip` with a short reason; parsing goes on.
   * - An error of `input` (truncated gzip, I/O) or an unreadable CSV structure (a quote never
   *   closed) rejects the iteration: the caller must abort the import.
   * - Canonical (symbol, exchange) pairs are unique within one file.
   */
  parse(input: NodeJS.ReadableStream | AsyncIterable<Buffer | string>): AsyncIterable<ParsedItem>;
}
