import { p99AtMostTimesBaseline, ratioAtLeast } from '../lib/targets.js';
import type { Bench } from '../lib/types.js';

/**
 * `POST /api/v1/ping`: the cheapest authenticated API call (body parsing, schema validation,
 * API-key check, response serialization, access log), i.e. the floor under every /api/v1 call.
 */
export const ping: Bench = {
  description: 'POST /api/v1/ping with a valid API key',
  async setup({ cli }) {
    await cli('user', 'create', '--username', 'bench', '--password', 'bench-password-1');
    const apikey = await cli('apikey', 'create', '--username', 'bench');
    if (!/^\S+$/.test(apikey))
      throw new Error(`apikey create printed no single key: ${JSON.stringify(apikey)}`);
    return {
      request: {
        method: 'POST',
        path: '/api/v1/ping',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apikey }),
      },
      baseline: {
        status: 200,
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify({ status: 'success', data: { message: 'pong', broker: null } }),
      },
    };
  },
  targets: [ratioAtLeast(0.55), p99AtMostTimesBaseline(2)],
};
