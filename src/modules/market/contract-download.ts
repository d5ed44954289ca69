import { request } from 'undici';
import { downloadFailed, unknownBroker } from '../../platform/errors.js';

/** Where each broker publishes its instrument master (HTTP GET, CSV or gzip CSV). */
export const MASTER_CONTRACT_SOURCES: Record<
  string,
  { origin: string; path: string; headers: Record<string, string> }
> = {
  // Kite Connect: `GET /instruments`, CSV of every exchange (gzip content-encoding).
  zerodha: { origin: 'https://api.kite.trade', path: '/instruments', headers: { 'X-Kite-Version': '3' } },
  // Upstox: the complete instrument file, gzip-compressed CSV.
  upstox: {
    origin: 'https://assets.upstox.com',
    path: '/market-quote/instruments/exchange/complete.csv.gz',
    headers: {},
  },
  // DhanHQ: the compact scrip master (`api-scrip-master.csv`), every exchange.
  dhan: { origin: 'https://images.dhan.co', path: '/api-data/api-scrip-master.csv', headers: {} },
  // Angel One SmartAPI: the published scrip master (`OpenAPIScripMaster.json`), every exchange.
  angel: {
    origin: 'https://margincalculator.angelbroking.com',
    path: '/OpenAPI_File/files/OpenAPIScripMaster.json',
    headers: {},
  },
};

/** A download larger than this is refused (the full Upstox file is ~25 MB unpacked, ~4 MB gzip). */
export const MAX_DOWNLOAD_BYTES = 256 * 1024 * 1024;

/** The URL a broker's master contract is downloaded from (`baseUrl` replaces the origin). */
export function masterContractUrl(broker: string, baseUrl?: string): string {
  const src = MASTER_CONTRACT_SOURCES[broker];
  if (!src) throw unknownBroker(`No master contract source for broker ${broker}`);
  return `${baseUrl ?? src.origin}${src.path}`;
}

/**
 * Opens the broker's master-contract download and returns its body (bytes as sent; the
 * importer recognises gzip itself). Non-200 answers and network errors are clear errors;
 * the byte cap and idle timeouts bound a misbehaving server.
 */
export async function openMasterContractDownload(
  broker: string,
  baseUrl: string | undefined,
  authHeaders: Record<string, string> = {},
): Promise<AsyncIterable<Buffer>> {
  const url = masterContractUrl(broker, baseUrl);
  let res;
  try {
    res = await request(url, {
      method: 'GET',
      headers: { ...MASTER_CONTRACT_SOURCES[broker]!.headers, 'accept-encoding': 'gzip', ...authHeaders },
      headersTimeout: 30_000,
      bodyTimeout: 60_000,
    });
  } catch (err) {
    throw downloadFailed(`Could not reach ${new URL(url).host}: ${(err as Error).message}`);
  }
  if (res.statusCode !== 200) {
    await res.body.dump().catch(() => undefined);
    throw downloadFailed(`The broker answered HTTP ${res.statusCode} for the master contract`);
  }
  const body = res.body;
  return (async function* () {
    let n = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      n += chunk.length;
      if (n > MAX_DOWNLOAD_BYTES) {
        body.destroy();
        throw new Error(`download larger than ${MAX_DOWNLOAD_BYTES} bytes`);
      }
      yield chunk;
    }
  })();
}
