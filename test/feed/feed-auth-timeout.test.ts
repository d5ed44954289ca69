/**
 * A feed socket that never authenticates is closed with 4401 "auth timeout" after 15 seconds
 * (docs/rules/market-data.md#feed-protocol), on the HTTP port's `/ws` as on the feed's own port:
 * the real timer, not a fake one (the unit test in src/modules/feed proves the boundary; this
 * proves the server's sockets get it). Its own file, so its wait overlaps the other suites'.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedTestClient } from '../helpers/feed-client.js';
import { appWithAdmin, type TestApp } from '../helpers/test-app.js';

describe('the live feed without authentication', () => {
  let t: TestApp;
  beforeAll(async () => {
    ({ t } = await appWithAdmin('sqlite'));
    await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t.close());

  it('closes a socket that sent no api key within 15 s with 4401 "auth timeout", on /ws and on the feed port', async () => {
    const port = (t.app.server.address() as { port: number }).port;
    const own = await t.app.feed.server.listen('127.0.0.1', 0);
    const started = Date.now();
    const [onWs, onPort] = await Promise.all([
      FeedTestClient.open(`ws://127.0.0.1:${port}/ws`),
      FeedTestClient.open(`ws://127.0.0.1:${own.port}`),
    ]);
    // A ping is answered meanwhile: the socket is alive, only unauthenticated.
    expect((await onWs.ask({ action: 'ping' }, 'pong')).status).toBe('success');
    for (const c of [onWs, onPort]) expect(await c.closed).toEqual({ code: 4401, reason: 'auth timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(14_900);
  }, 30_000);
});
