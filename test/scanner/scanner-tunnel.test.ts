/**
 * Scanner and flow webhooks, docs/rules/scanner.md#scanner-webhook-id with the public tunnel (fake provider): the
 * webhook URL shown at creation and rotation is built on the tunnel's public URL while it is up;
 * the tunnel's start-up check sees the scanner webhook and asks for no secret (the id is one); a
 * delivery through the listening server works.
 */
import { afterEach, expect, it } from 'vitest';
import { FakeTunnelDriver } from '../../src/modules/tunnel/fake-tunnel.driver.js';
import { importContract } from '../helpers/contracts.js';
import { miniKiteContract } from '../helpers/sandbox.js';
import { WEBHOOK_ID, buyScanner } from '../helpers/scanner.js';
import { asBrowser, createUser, describeEachDb, login, type TestApp } from '../helpers/test-app.js';
import { createTunnelApp, warnings, type TunnelTestApp } from '../helpers/tunnel-app.js';

let t: TunnelTestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describeEachDb('scanner webhook URLs and the public tunnel', (dialect) => {
  it('creation and rotation show the URL on the tunnel’s public URL; the start-up check sees the route, no warning', async () => {
    t = await createTunnelApp({
      env: { TUNNEL_ALLOW: 'true', HOST_SERVER: 'https://desk.example.com' },
      driver: new FakeTunnelDriver(),
      dialect,
    });
    const publicUrl = await t.listen();
    expect(publicUrl).toMatch(/^https:\/\//);
    const app = t as unknown as TestApp;
    await createUser(app);
    const admin = await login(app);
    await importContract(app, 'zerodha', miniKiteContract());
    const res = await t.app.inject({
      method: 'POST',
      url: '/scanner/api/scanners',
      headers: asBrowser(admin),
      payload: buyScanner(),
    });
    expect(res.statusCode).toBe(200);
    const created = res.json() as { data: { id: number }; webhook_id: string; webhook_url: string };
    expect(created.webhook_id).toMatch(WEBHOOK_ID);
    expect(created.webhook_url).toBe(`${publicUrl}/scanner/webhook/${created.webhook_id}`);
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/scanner/api/scanners/${created.data.id}/rotate`,
      headers: asBrowser(admin),
    });
    const fresh = rotated.json() as { webhook_id: string; webhook_url: string };
    expect(fresh.webhook_url).toBe(`${publicUrl}/scanner/webhook/${fresh.webhook_id}`);
    // The tunnel's start-up check lists the scanner webhook; its id is its secret: no warning.
    const routes = t.services.tunnel.webhookRoutes;
    expect(routes).toContainEqual({
      method: 'POST',
      url: expect.stringMatching(/^\/scanner\/webhook\/:\w+$/),
    });
    expect(warnings(t.logs).filter((w) => w.includes('/scanner/webhook'))).toEqual([]);
    // Over the real socket: a dead id is the 404 rejected_id answer.
    const over = await fetch(`${t.base}/scanner/webhook/${created.webhook_id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ stocks: 'SBIN', trigger_prices: '800' }),
    });
    expect(over.status).toBe(404);
    expect(await over.json()).toMatchObject({ status: 'error', result: 'rejected_id' });
  });
});
