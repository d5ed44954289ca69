/**
 * Orders issue, parts 4 and 7, the rules about who may do what with a key or a session: only the
 * administrator's key switches the service between live and analyzer mode
 * (`/api/v1/analyzer/toggle`), `/api/v1/ping` reports the key owner's broker session, and a
 * broker login callback without its `state` is refused without storing anything (Zerodha here;
 * Upstox in orders-upstox-live.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { KITE_CREDS, secondUser, startKiteOrders, type OrdersApp } from '../helpers/orders-app.js';
import { SecretBox } from '../../src/platform/crypto.js';
import { createUser, describeEachDb } from '../helpers/test-app.js';

describeEachDb('keys, modes and broker sessions', (dialect) => {
  let stub: KiteOrderStub;
  let o: OrdersApp;
  let bob: { id: number; apikey: string };

  beforeAll(async () => {
    ({ stub, o } = await startKiteOrders(dialect));
    const b = await secondUser(o);
    bob = { id: b.id, apikey: b.apikey };
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  /** The mode as the session route reports it, and as the order path sees it. */
  const mode = async () => {
    const res = await o.web('GET', '/settings/analyze-mode');
    expect(res.json().analyze_mode).toBe(o.t.services.sandbox.mode.analyze);
    return res.json().mode as 'analyze' | 'live';
  };
  const toggle = (apikey: string, analyze: boolean) =>
    o.api('analyzer/toggle', { mode: analyze }, { apikey });

  describe('/api/v1/analyzer/toggle: only the administrator’s key switches the service’s mode', () => {
    it('another user’s key → 403 and the mode unchanged, either way; it may still read the mode', async () => {
      await o.setMode(false);
      const res = await toggle(bob.apikey, true);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ status: 'error', message: expect.stringMatching(/administrator/) });
      expect(await mode()).toBe('live');
      await o.setMode(true);
      expect((await toggle(bob.apikey, false)).statusCode).toBe(403);
      expect(await mode()).toBe('analyze');
      expect(o.t.services.sandbox.engine.isRunning).toBe(true);
      const read = await o.api('analyzer', {}, { apikey: bob.apikey });
      expect(read.json()).toEqual({
        status: 'success',
        data: { mode: 'analyze', analyze_mode: true, total_logs: 0 },
      });
    });

    it('the administrator’s key switches it both ways, starting and stopping the sandbox engine', async () => {
      await o.setMode(false);
      const on = await toggle(o.apikey, true);
      expect(on.statusCode).toBe(200);
      expect(on.json()).toEqual({
        status: 'success',
        data: { mode: 'analyze', analyze_mode: true, message: 'Analyzer mode enabled', total_logs: 0 },
      });
      expect(await mode()).toBe('analyze');
      expect(o.t.services.sandbox.engine.isRunning).toBe(true);
      const off = await toggle(o.apikey, false);
      expect(off.json().data).toMatchObject({ mode: 'live', analyze_mode: false });
      expect(await mode()).toBe('live');
      expect(o.t.services.sandbox.engine.isRunning).toBe(false);
    });

    it('the administrator’s key in semi-automatic mode → 403 and the mode unchanged', async () => {
      await o.setMode(false);
      await o.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
      try {
        const res = await toggle(o.apikey, true);
        expect(res.statusCode).toBe(403);
        expect(res.json().message).toMatch(/semi-automatic/);
        expect(await mode()).toBe('live');
      } finally {
        await o.t.services.auth.apiKeys.setOrderMode(1, 'auto');
      }
    });
  });

  describe('/api/v1/ping answers data.broker = the key owner’s broker session, null without one', () => {
    const ping = async (apikey: string) => {
      const res = await o.api('ping', {}, { apikey });
      expect(res.statusCode).toBe(200);
      return res.json();
    };

    it('each key reports its own owner’s session: set, changed, expired, cleared', async () => {
      expect(await ping(o.apikey)).toEqual({
        status: 'success',
        data: { message: 'pong', broker: 'zerodha' },
      });
      expect((await ping(bob.apikey)).data.broker).toBeNull();
      const expiresAt = o.t.clock.now() + 60_000;
      await o.t.services.brokers.sessions.set(
        bob.id,
        'upstox',
        { accessToken: 'eyJbobUpstoxToken' },
        expiresAt,
      );
      expect((await ping(bob.apikey)).data.broker).toBe('upstox');
      expect((await ping(o.apikey)).data.broker).toBe('zerodha');
      o.t.clock.advance(60_000);
      expect((await ping(bob.apikey)).data.broker).toBeNull();
      await o.t.services.brokers.sessions.set(bob.id, 'zerodha', { accessToken: 'kiteBobToken' });
      expect((await ping(bob.apikey)).data.broker).toBe('zerodha');
      await o.t.services.brokers.sessions.clear(bob.id);
      expect((await ping(bob.apikey)).data.broker).toBeNull();
    });
  });

  describe('ping proves the key even when the broker session cannot be read', () => {
    it('a session sealed under another APP_KEY: 200 with broker null, and a warning logged', async () => {
      const carol = await createUser(o.t, 'carol', 'carol horse battery staple');
      const apikey = (await o.t.services.auth.apiKeys.regenerate(carol.id)).apikey;
      const foreign = new SecretBox('a-different-app-key-0123456789abcdef012345', 'broker-token');
      await o.t.db.database.db
        .insertInto('broker_sessions')
        .values({
          user_id: carol.id,
          broker: 'zerodha',
          access_token_encrypted: foreign.seal('kiteCarolToken'),
          broker_user_id: null,
          expires_at: null,
          created_at: o.t.clock.now(),
        })
        .execute();
      const res = await o.api('ping', {}, { apikey });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success', data: { message: 'pong', broker: null } });
      expect(o.t.logs.some((l) => l.includes('ping: the broker session could not be read'))).toBe(true);
    });
  });

  describe('the broker login callback needs its state: without it → 400 and no session stored', () => {
    it('/zerodha/callback with a valid request token but no state: 400, the token not spent, no session', async () => {
      expect((await o.web('DELETE', '/broker/session')).statusCode).toBe(200);
      try {
        const token = stub.issueRequestToken();
        const res = await o.web('GET', `/zerodha/callback?request_token=${token}&status=success`);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({
          status: 'error',
          message: expect.stringMatching(/state is missing, invalid or expired/),
        });
        expect(stub.requests.filter((r) => r.path === '/session/token')).toHaveLength(0);
        expect(stub.requestTokens.has(token)).toBe(true);
        expect((await o.web('GET', '/broker/session')).json()).toEqual({ status: 'success', data: null });
        const rows = await o.t.db.database.db.selectFrom('broker_sessions').selectAll().execute();
        expect(rows.filter((r) => r.user_id === 1)).toEqual([]);
      } finally {
        await o.t.services.brokers.sessions.set(1, 'zerodha', { accessToken: KITE_CREDS.accessToken });
      }
    });

    it('a state minted for another user, or expired, is refused the same way', async () => {
      const go = await o.web('GET', '/broker/login');
      const redirect = new URL(go.headers.location as string).searchParams.get('redirect_params');
      const state = new URLSearchParams(redirect ?? '').get('state')!;
      const [, expiry, mac] = state.split('.');
      const token = stub.issueRequestToken();
      const other = await o.web(
        'GET',
        `/zerodha/callback?request_token=${token}&state=${bob.id}.${expiry}.${mac}`,
      );
      expect(other.statusCode).toBe(400);
      o.t.clock.advance(10 * 60_000 + 1);
      const late = await o.web('GET', `/zerodha/callback?request_token=${token}&state=${state}`);
      expect(late.statusCode).toBe(400);
      expect(stub.requests.filter((r) => r.path === '/session/token')).toHaveLength(0);
      expect((await o.t.services.brokers.sessions.get(1))?.session.accessToken).toBe(KITE_CREDS.accessToken);
    });
  });
});
