import type { MasterContractFormat } from '../instrument.js';
import { angelFormat } from './angel.js';
import { dhanFormat } from './dhan.js';
import { fyersFormat } from './fyers.js';
import { flattradeFormat, shoonyaFormat } from './noren.js';
import { upstoxFormat } from './upstox.js';
import { zerodhaFormat } from './zerodha.js';

/** Every master-contract file format the service can import, keyed by broker id. */
export const masterContractFormats: Readonly<Record<string, MasterContractFormat>> = Object.freeze({
  [zerodhaFormat.broker]: zerodhaFormat,
  [upstoxFormat.broker]: upstoxFormat,
  [fyersFormat.broker]: fyersFormat,
  [dhanFormat.broker]: dhanFormat,
  [angelFormat.broker]: angelFormat,
  [shoonyaFormat.broker]: shoonyaFormat,
  [flattradeFormat.broker]: flattradeFormat,
});

/** The format of `broker` (lower-case id such as `zerodha`), or undefined when there is none. */
export function getFormat(broker: string): MasterContractFormat | undefined {
  return Object.hasOwn(masterContractFormats, broker) ? masterContractFormats[broker] : undefined;
}

/** Broker ids with an importer, sorted (for help texts and validation messages). */
export function brokerIds(): string[] {
  return Object.keys(masterContractFormats).sort();
}
