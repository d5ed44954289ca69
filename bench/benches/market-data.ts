/**
 * What the market-data benches (`search-*`, `contracts`) share: the real instrument files, the
 * contract import through the CLI, waiting for the server's instrument index, search requests.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sharedData } from '../lib/shared-data.js';
import type { BenchRequest } from '../lib/types.js';

/** Upstox `complete.csv.gz`, every exchange: 204,218 rows. */
export const upstoxSnapshot = (): string => sharedData('upstox', 'upstox_complete_2026-02-05.csv.gz');
/** The two Zerodha Kite files (NSE 8,320 rows, NFO+BFO 39,941 rows), loaded as one contract. */
export const kiteFiles = (): [string, string] => [
  sharedData('zerodha', 'kite_instruments_NSE_2025-10-06.csv'),
  sharedData('zerodha', 'kite_instruments_NFO_BFO_2026-08-18.csv'),
];

/** The typical queries of the search issue. */
export const QUERIES = { sbin: 'SBIN', niftyCe: 'NIFTY 26000 CE', bnfFut: 'BANKNIFTY FUT' } as const;

/** How long a server may take to build the index of a 200k-row contract on a loaded machine. */
const INDEX_TIMEOUT_MS = 90_000;

type Cli = (...args: string[]) => Promise<string>;

/** Creates the bench user and returns a fresh API key for it. */
export async function createApiKey(cli: Cli): Promise<string> {
  await cli('user', 'create', '--username', 'bench', '--password', 'bench-password-1');
  const apikey = await cli('apikey', 'create', '--username', 'bench');
  if (!/^\S+$/.test(apikey))
    throw new Error(`apikey create printed no single key: ${JSON.stringify(apikey)}`);
  return apikey;
}

/** The fields of `algodesk contracts import --json` the benches read. */
export interface ImportSummary {
  rows: number;
  skipped: number;
  duration_ms: number;
}

/** `algodesk contracts import --broker <broker> --file <file> --json`, parsed. */
export async function importContract(cli: Cli, broker: string, file: string): Promise<ImportSummary> {
  const out = await cli('contracts', 'import', '--broker', broker, '--file', file, '--json');
  let summary: ImportSummary;
  try {
    summary = JSON.parse(out) as ImportSummary;
  } catch {
    throw new Error(`contracts import printed no JSON summary: ${out.slice(0, 200)}`);
  }
  if (!(summary.rows > 0) || typeof summary.duration_ms !== 'number')
    throw new Error(`contracts import summary without rows or duration_ms: ${out.slice(0, 200)}`);
  return summary;
}

/** What the server logs (info) once its index is built. */
export interface IndexReady {
  generation: number;
  instruments: number;
  ms: number;
}

const READY_MSG = 'instrument index ready';
const FAILED_MSG = 'instrument index build failed';

/** The server's `instrument index ready` entry, if its log holds one; throws if the build failed. */
export function indexReadyIn(log: string): IndexReady | undefined {
  for (const line of log.split('\n')) {
    if (!line.includes(READY_MSG) && !line.includes(FAILED_MSG)) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (entry.msg === FAILED_MSG) throw new Error(`the server could not build its index: ${line}`);
    if (entry.msg === READY_MSG && typeof entry.ms === 'number')
      return { generation: Number(entry.generation), instruments: Number(entry.instruments), ms: entry.ms };
  }
  return undefined;
}

/** Polls a server's log until its index is ready (the server answers from the database until then). */
export async function waitForIndex(server: { log(): string; exited(): boolean }): Promise<IndexReady> {
  const deadline = Date.now() + INDEX_TIMEOUT_MS;
  for (;;) {
    const ready = indexReadyIn(server.log());
    if (ready) return ready;
    if (server.exited()) throw new Error('the server exited before its instrument index was ready');
    if (Date.now() > deadline)
      throw new Error(`the server's instrument index was not ready after ${INDEX_TIMEOUT_MS} ms`);
    await sleep(100);
  }
}

/** `POST /api/v1/search {apikey, query}` (every exchange). */
export const searchRequest = (apikey: string, query: string): BenchRequest => ({
  method: 'POST',
  path: '/api/v1/search',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ apikey, query }),
});

/**
 * Sends one search and returns the body and its number of results; throws on a non-200 answer
 * or on no results at all (the contract did not load, or the query no longer matches anything,
 * which would make the bench measure the cheapest answer).
 */
export async function searchOnce(
  url: string,
  apikey: string,
  query: string,
): Promise<{ body: string; results: number }> {
  const req = searchRequest(apikey, query);
  const res = await fetch(url + req.path, { method: req.method, headers: req.headers, body: req.body });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`search "${query}" answered ${res.status}: ${body.slice(0, 200)}`);
  const data = (JSON.parse(body) as { data?: unknown[] }).data;
  if (!Array.isArray(data) || data.length === 0)
    throw new Error(`search "${query}" found nothing: ${body.slice(0, 200)}`);
  return { body, results: data.length };
}
