import { readFileSync } from 'node:fs';
import { getFormat } from '../../src/modules/market/importers/index.js';
import type { ImportSummary } from '../../src/modules/market/contract-import.service.js';
import { marketFixture } from './market-fixtures.js';
import type { TestApp } from './test-app.js';

/** The two Kite snapshots as one file (the second header dropped), as Kite's full dump looks. */
export function kiteCombined(): Buffer {
  const nse = readFileSync(marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv'), 'utf8');
  const fo = readFileSync(marketFixture('zerodha', 'kite_instruments_NFO_BFO_2026-08-18.csv'), 'utf8');
  return Buffer.from(nse.replace(/\n?$/, '\n') + fo.slice(fo.indexOf('\n') + 1));
}

/** Feeds a buffer in 64 KiB chunks, as a file stream would. */
export async function* chunks(buf: Buffer, size = 65_536): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

/** Imports bytes through the import service and waits for the index rebuild (an app or the middle tier's services). */
export async function importContract(
  t: Pick<TestApp, 'services'>,
  broker: string,
  bytes: Buffer,
): Promise<ImportSummary> {
  const format = getFormat(broker);
  if (!format) throw new Error(`no format ${broker}`);
  const id = await t.services.market.imports.begin(broker, 'test', 'pending');
  const summary = await t.services.market.imports.run(id, format, chunks(bytes));
  await t.services.market.contracts.whenIdle();
  return summary;
}
