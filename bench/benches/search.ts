import { p99AtMostMs, ratioAtLeast } from '../lib/targets.js';
import type { Bench } from '../lib/types.js';
import {
  createApiKey,
  importContract,
  indexReadyIn,
  QUERIES,
  searchOnce,
  searchRequest,
  upstoxSnapshot,
  waitForIndex,
} from './market-data.js';

const note = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

/**
 * `POST /api/v1/search {apikey, query}` over the real Upstox contract (204k instruments, every
 * exchange, imported by the CLI in setup), answered from the in-memory instrument index; the
 * measurement starts once the server has logged `instrument index ready`. The baseline serves
 * the server's own answer (up to 500 results, ~90 KB for SBIN). Targets (search issue): at
 * least 0.3x the baseline's requests/s, and p99 <= 2 ms with one connection.
 */
function indexSearch(query: string): Bench {
  return {
    description: `search "${query}", in-memory index over the Upstox 204k contract`,
    async setup({ cli }) {
      const snapshot = upstoxSnapshot(); // fails at once when the shared data is missing
      const apikey = await createApiKey(cli);
      note('importing the Upstox snapshot (about 15 s)');
      const imported = await importContract(cli, 'upstox', snapshot);
      note(`imported ${imported.rows} instruments in ${imported.duration_ms} ms`);
      return {
        request: searchRequest(apikey, query),
        async ready(server) {
          const index = await waitForIndex(server);
          const { results } = await searchOnce(server.url, apikey, query);
          note(
            `${server.label}: index of ${index.instruments} instruments built in ${index.ms} ms; ` +
              `"${query}" finds ${results} results`,
          );
        },
      };
    },
    targets: [ratioAtLeast(0.3), p99AtMostMs(2, 1)],
  };
}

export const searchSbin = indexSearch(QUERIES.sbin);
export const searchNiftyCe = indexSearch(QUERIES.niftyCe);
export const searchBnfFut = indexSearch(QUERIES.bnfFut);

/**
 * The same search answered by the database fallback: the server runs with
 * `INSTRUMENT_INDEX=false`, the baseline is the bare server with the same bytes. One connection
 * by default (the fallback's queries run one at a time, so more connections only queue).
 * Target (search issue): p99 <= 50 ms at one connection.
 */
export const searchDb: Bench = {
  description: `search "${QUERIES.niftyCe}" from the database (INSTRUMENT_INDEX=false), 1 connection`,
  connections: 1,
  async setup({ cli }) {
    const snapshot = upstoxSnapshot(); // fails at once when the shared data is missing
    const apikey = await createApiKey(cli);
    note('importing the Upstox snapshot (about 15 s)');
    const imported = await importContract(cli, 'upstox', snapshot);
    note(`imported ${imported.rows} instruments in ${imported.duration_ms} ms`);
    return {
      request: searchRequest(apikey, QUERIES.niftyCe),
      serverEnv: { INSTRUMENT_INDEX: 'false' },
      async ready(server) {
        const { results } = await searchOnce(server.url, apikey, QUERIES.niftyCe);
        if (indexReadyIn(server.log()))
          throw new Error('INSTRUMENT_INDEX=false but the server built an index');
        note(`${server.label}: no index; "${QUERIES.niftyCe}" finds ${results} results in the database`);
      },
    };
  },
  targets: [p99AtMostMs(50, 1)],
};
