/**
 * Remote agents end to end with the MCP SDK's own client (`Client` over
 * `StreamableHTTPClientTransport` with an OAuth client provider) against a listening algodesk in
 * analyzer mode (docs/rules/mcp.md): discovery → dynamic registration → the administrator's
 * approval → authorization with PKCE on the consent page (the test plays the signed-in browser) →
 * tokens → tool calls in read and write scope (an analyzer order in the order book) → a read-only
 * token and writes turned off refuse write tools → refresh rotation, and reuse revoking the family
 * → client revocation → the kill switch. Every call is audited with no secret in it.
 */
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { asBrowser, describeEachDb } from '../helpers/test-app.js';
import { codeAt, enroll, ALL_ON } from '../helpers/totp.js';

type Json = Record<string, unknown>;
const REDIRECT = 'http://127.0.0.1:33418/callback';

/** A free loopback port (HOST_SERVER must name it before the app is built). */
async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** An OAuth client provider that remembers everything in memory, like a desktop agent would. */
class Provider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authUrl?: URL;
  constructor(private readonly scope?: string) {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test agent',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.scope ? { scope: this.scope } : {}),
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(i: OAuthClientInformationMixed) {
    this.info = i;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t;
  }
  redirectToAuthorization(url: URL) {
    this.authUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describeEachDb('remote agents over /mcp with OAuth 2.1', (dialect) => {
  let h: SandboxHarness;
  let base: string;
  const admin = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: Json) =>
    h.t.app.inject({ method, url, headers: asBrowser(h.admin), ...(payload ? { payload } : {}) });

  /** Plays the signed-in browser on the consent page; the redirect's `code` (or the page). */
  async function consent(url: URL, extra: Record<string, string> = {}) {
    const page = await h.t.app.inject({
      method: 'GET',
      url: `${url.pathname}${url.search}`,
      headers: { cookie: h.admin.cookie },
    });
    if (page.statusCode !== 200) {
      return { page };
    }
    const fields = Object.fromEntries(
      [...page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
        m[1]!,
        m[2]!
          .replace(/&amp;/g, '&')
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>'),
      ]),
    );
    const res = await h.t.app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { cookie: h.admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...fields, decision: 'approve', ...extra }).toString(),
    });
    const location = res.headers.location as string | undefined;
    return {
      page,
      res,
      code: location ? (new URL(location).searchParams.get('code') ?? undefined) : undefined,
      location,
    };
  }

  /** Registers (first connect), approves, consents and finishes; a connected client. */
  async function authorize(p: Provider, scope?: string): Promise<Client> {
    const first = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: p });
    await expect(new Client({ name: 't', version: '1' }).connect(first)).rejects.toThrow(/Unauthorized/i);
    const clientId = (p.info as { client_id: string }).client_id;
    if ((await admin('POST', `/admin/api/oauth/clients/${clientId}/approve`)).statusCode !== 200)
      throw new Error('approve failed');
    if (scope) p.authUrl!.searchParams.set('scope', scope);
    const { code } = await consent(p.authUrl!);
    expect(code).toBeTruthy();
    await first.finishAuth(code!);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: p }));
    return client;
  }

  const rawMcp = (token: string) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    h = await startSandbox(dialect, { env: { HOST_SERVER: base } });
    await h.tick({ 'NSE:SBIN': h.quote(800) });
    await h.t.app.listen({ host: '127.0.0.1', port });
  }, 60_000);
  afterAll(() => h?.close());

  it('publishes the authorization server and protected-resource metadata; /mcp without a token points at it', async () => {
    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Json;
    expect(as).toMatchObject({
      issuer: base,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
    });
    const prm = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()) as Json;
    expect(prm).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] });
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(
      `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  let full: Provider;
  let client: Client;
  it('register → approval → PKCE consent → token → a write tool places an analyzer order in the book', async () => {
    full = new Provider();
    client = await authorize(full);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['get_funds', 'place_order']));
    const r = (await client.callTool({
      name: 'place_order',
      arguments: {
        strategy: 'remote',
        symbol: 'SBIN',
        exchange: 'NSE',
        action: 'BUY',
        quantity: 3,
        product: 'CNC',
      },
    })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).toBe(false);
    const orderid = (r.structuredContent as { orderid: string }).orderid;
    const book = await h.ok<{ data: { orders: Json[] } }>('orderbook');
    expect(book.data.orders.find((o) => o.orderid === orderid)).toMatchObject({
      symbol: 'SBIN',
      quantity: 3,
      strategy: 'remote',
    });
  });

  it('a pending client cannot be authorized; a read-only token has no write tools', async () => {
    const pending = new Provider();
    const t = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: pending });
    await expect(new Client({ name: 't', version: '1' }).connect(t)).rejects.toThrow(/Unauthorized/i);
    const { page } = await consent(pending.authUrl!);
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('waiting for the administrator');

    // The agent asks for read scopes only (the consent grants what the request names).
    const reader = await authorize(new Provider(), 'read:market read:account');
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).toContain('get_funds');
    expect(names).not.toContain('place_order');
    const refused = (await reader.callTool({ name: 'place_order', arguments: {} })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toMatch(/place_order not found/);
    await reader.close();
  });

  it('with writes turned off a write tool is refused, reads still work', async () => {
    expect((await admin('PUT', '/admin/api/mcp/settings', { writes_enabled: false })).statusCode).toBe(200);
    try {
      const r = (await client.callTool({
        name: 'place_order',
        arguments: {
          strategy: 'remote',
          symbol: 'SBIN',
          exchange: 'NSE',
          action: 'BUY',
          quantity: 1,
          product: 'CNC',
        },
      })) as CallToolResult;
      expect(r.isError).toBe(true);
      expect((r.content[0] as { text: string }).text).toContain('turned agents’ orders off');
      const f = (await client.callTool({ name: 'get_funds', arguments: {} })) as CallToolResult;
      expect(f.isError).toBe(false);
    } finally {
      await admin('PUT', '/admin/api/mcp/settings', { writes_enabled: true });
    }
  });

  it('refresh tokens rotate; reusing an old one revokes the whole family', async () => {
    const clientId = (full.info as { client_id: string }).client_id;
    const old = full.saved!.refresh_token!;
    const token = (body: Json) =>
      fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body as Record<string, string>).toString(),
      });
    const first = await token({ grant_type: 'refresh_token', refresh_token: old, client_id: clientId });
    expect(first.status).toBe(200);
    const next = (await first.json()) as { access_token: string; refresh_token: string; expires_in: number };
    expect(next.refresh_token).not.toBe(old);
    expect(next.expires_in).toBe(900);
    expect((await rawMcp(next.access_token)).status).toBe(200);
    const reuse = await token({ grant_type: 'refresh_token', refresh_token: old, client_id: clientId });
    expect(reuse.status).toBe(400);
    expect(((await reuse.json()) as Json).error).toBe('invalid_grant');
    // The family is gone: the new access and refresh tokens too.
    expect((await rawMcp(next.access_token)).status).toBe(401);
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: next.refresh_token, client_id: clientId }))
        .status,
    ).toBe(400);
  });

  it('consent for write scope needs a fresh authenticator code when the user requires it for agents', async () => {
    const { secret } = await enroll(h.t, h.admin, ALL_ON);
    secretSeen = secret;
    // The code that turned two-factor on is a minute old: not fresh any more.
    h.t.clock.advance(61_000);
    const p = new Provider();
    const t = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: p });
    await expect(new Client({ name: 't', version: '1' }).connect(t)).rejects.toThrow(/Unauthorized/i);
    await admin('POST', `/admin/api/oauth/clients/${(p.info as { client_id: string }).client_id}/approve`);
    const stale = await consent(p.authUrl!);
    expect(stale.page.body).toContain('Authenticator code');
    expect(stale.res!.statusCode).toBe(400);
    expect(stale.res!.body).toContain('within the last 60 seconds');
    const fresh = await consent(p.authUrl!, { totp_code: codeAt(secret, h.t.clock.now()) });
    expect(fresh.code).toBeTruthy();
    await t.finishAuth(fresh.code!);
    expect(p.saved?.access_token).toBeTruthy();
  });

  it('revoking a client kills its tokens at once; the kill switch kills every token and refuses /mcp until released', async () => {
    const access = full.saved!.access_token;
    const p2 = new Provider();
    await enrollFreeAuthorize(p2);
    const c2token = p2.saved!.access_token;
    expect((await rawMcp(c2token)).status).toBe(200);
    const clientId = (p2.info as { client_id: string }).client_id;
    expect((await admin('POST', `/admin/api/oauth/clients/${clientId}/revoke`)).statusCode).toBe(200);
    expect((await rawMcp(c2token)).status).toBe(401);

    const refused = await admin('POST', '/admin/api/mcp/kill-switch', { engage: true, confirm: 'yes' });
    expect(refused.statusCode).toBe(400);
    const kill = await admin('POST', '/admin/api/mcp/kill-switch', { engage: true, confirm: 'ENGAGE' });
    expect(kill.statusCode).toBe(200);
    expect((await rawMcp(access)).status).toBe(401);
    const reg = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    });
    expect(reg.status).toBe(403);
    expect(
      (await admin('POST', '/admin/api/mcp/kill-switch', { engage: false, confirm: 'RELEASE' })).statusCode,
    ).toBe(200);
    const after = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    });
    expect(after.status).toBe(201);
  });

  /** Authorizes without the TOTP step (the code is entered as the rule now requires). */
  async function enrollFreeAuthorize(p: Provider) {
    const t = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: p });
    await expect(new Client({ name: 't', version: '1' }).connect(t)).rejects.toThrow(/Unauthorized/i);
    await admin('POST', `/admin/api/oauth/clients/${(p.info as { client_id: string }).client_id}/approve`);
    h.t.clock.advance(30_000);
    const secret = await currentSecret();
    const { code } = await consent(p.authUrl!, secret ? { totp_code: codeAt(secret, h.t.clock.now()) } : {});
    await t.finishAuth(code!);
  }
  let secretSeen: string | undefined;
  async function currentSecret() {
    return secretSeen;
  }

  it('every tool call is audited with the client and the user, and no token, code or secret anywhere in it', async () => {
    const res = await admin('GET', '/admin/api/mcp/audit?limit=100');
    const rows = res.json().data as Json[];
    expect(
      rows.some(
        (r) =>
          r.transport === 'http' &&
          r.tool === 'place_order' &&
          r.outcome === 'ok' &&
          typeof r.client_id === 'string',
      ),
    ).toBe(true);
    const dump = JSON.stringify(await h.t.db.database.db.selectFrom('mcp_audit').selectAll().execute());
    expect(dump).not.toMatch(/mcpat_|mcprt_|mcpcode_/);
    const clients = await admin('GET', '/admin/api/oauth/clients');
    expect(clients.statusCode).toBe(200);
    expect(clients.json().counts.total).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(clients.json())).not.toMatch(/mcpat_|mcprt_/);
  });
});
