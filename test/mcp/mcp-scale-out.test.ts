/**
 * Remote agents on two instances sharing one database and one Redis channel
 * (docs/rules/mcp.md#mcp-oauth, #mcp-settings): a token issued on one instance works on the other;
 * a client revoked on one is refused on the other at once; a settings change and the kill switch
 * on one are in force on the other without a restart.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, expect, it as vitestIt } from 'vitest';
import { createTestApp, describeEachDb, redisUrl, type TestApp } from '../helpers/test-app.js';
import { startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { redisBus } from '../helpers/redis-bus.js';

const redisIt = vitestIt.skipIf(redisUrl === '');
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup.length = 0;
});

async function twoInstances(dialect: 'sqlite' | 'postgres'): Promise<[SandboxHarness, TestApp]> {
  const prefix = `mcp-${randomBytes(4).toString('hex')}`;
  const a = await startSandbox(dialect, { bus: await redisBus(prefix, cleanup) });
  const b = await createTestApp(dialect, {
    db: a.t.db,
    clock: a.t.clock,
    bus: await redisBus(prefix, cleanup),
  });
  cleanup.push(() => a.close());
  cleanup.push(() => b.close());
  return [a, b];
}

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('not in force on the other instance within 2 s');
};

describeEachDb('remote agents across two instances', (dialect) => {
  redisIt(
    'a token from one instance works on the other; revocation, settings and the kill switch on one hold on both',
    async () => {
      const [a, b] = await twoInstances(dialect);
      const A = a.t.services.mcp;
      const B = b.services.mcp;
      await A.settings.update({ require_approval: false });
      const client = await A.oauth.register({
        client_name: 'agent',
        redirect_uris: ['http://127.0.0.1:9/cb'],
      });
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const req = await A.oauth.checkAuthorize({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: 'http://127.0.0.1:9/cb',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        scope: 'read:account',
      });
      if ('error' in req) throw new Error(req.description);
      const code = await A.oauth.issueCode(a.userId, req);
      // The code is exchanged on the other instance.
      const tokens = await B.oauth.token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: 'http://127.0.0.1:9/cb',
        client_id: client.client_id,
      });
      expect(await A.oauth.verifyAccess(tokens.access_token)).toMatchObject({
        userId: a.userId,
        scopes: ['read:account'],
      });

      await B.settings.update({ writes_enabled: false, token_rate_per_minute: 7 });
      await until(async () => (await A.settings.get()).token_rate_per_minute === 7);
      expect((await A.settings.get()).writes_enabled).toBe(false);

      expect(await B.admin.setClientStatus(client.client_id, 'revoked')).toBe(true);
      expect(typeof (await A.oauth.verifyAccess(tokens.access_token))).toBe('string');

      await B.settings.update({ kill_switch: true });
      await until(async () => (await A.settings.get()).kill_switch);
      await expect(A.oauth.register({ redirect_uris: ['http://127.0.0.1:9/cb'] })).rejects.toThrow(
        /turned off/,
      );
    },
  );
});
