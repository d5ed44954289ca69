/**
 * The OAuth 2.1 authorization server of remote agents (docs/rules/mcp.md#mcp-oauth): dynamic
 * client registration (RFC 7591, public clients only), the authorization code with PKCE S256,
 * access tokens of 15 minutes bound to the `/mcp` resource, refresh tokens rotated on every use
 * (reuse revokes the whole family), revocation (RFC 7009). Codes and tokens are stored only as
 * SHA-256 digests; every change that ends access is a conditional write, so two instances agree.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import { sha256Hex } from '../../platform/crypto.js';
import type { McpSettingsService } from './mcp-settings.service.js';
import type { McpScope } from './mcp-tools.js';
import type { OAuthRepository } from './oauth.repository.js';
import {
  ACCESS_TTL_MS,
  CODE_TTL_MS,
  OAuthError,
  REFRESH_TTL_MS,
  redirectUriProblem,
  type AccessPrincipal,
  type AuthorizeRefusal,
  type AuthorizeRequest,
  type TokenAnswer,
} from './oauth.types.js';

const GRANTS = ['authorization_code', 'refresh_token'] as const;
const token = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export class OAuthService {
  constructor(
    private readonly deps: {
      repo: OAuthRepository;
      clock: Clock;
      settings: McpSettingsService;
      /** The `/mcp` resource URL tokens are bound to. */
      resource: () => string;
    },
  ) {}

  async register(body: Record<string, unknown>) {
    const settings = await this.deps.settings.get();
    if (!settings.enabled || settings.kill_switch)
      throw new OAuthError('access_denied', 'Remote agents are turned off on this server', 403);
    const uris = body.redirect_uris;
    if (
      !Array.isArray(uris) ||
      uris.length === 0 ||
      uris.length > 10 ||
      !uris.every((u) => typeof u === 'string')
    )
      throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list 1 to 10 URIs');
    for (const u of uris as string[]) {
      const p = redirectUriProblem(u);
      if (p) throw new OAuthError('invalid_redirect_uri', p);
    }
    const method = body.token_endpoint_auth_method ?? 'none';
    if (method !== 'none')
      throw new OAuthError(
        'invalid_client_metadata',
        'Only public clients (token_endpoint_auth_method none, PKCE) are accepted',
      );
    const grants = (body.grant_types as unknown[] | undefined) ?? [...GRANTS];
    if (!Array.isArray(grants) || !grants.every((g) => (GRANTS as readonly unknown[]).includes(g)))
      throw new OAuthError(
        'invalid_client_metadata',
        'grant_types may be authorization_code and refresh_token',
      );
    const name =
      typeof body.client_name === 'string' && body.client_name.trim() !== ''
        ? body.client_name.trim().slice(0, 200)
        : 'MCP client';
    const now = this.deps.clock.now();
    const clientId = `mcpc_${randomBytes(16).toString('hex')}`;
    const status = settings.require_approval ? 'pending' : 'approved';
    await this.deps.repo.insertClient({
      client_id: clientId,
      name,
      redirect_uris: JSON.stringify(uris),
      status,
      created_at: now,
      last_used_at: null,
    });
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(now / 1000),
      client_name: name,
      redirect_uris: uris as string[],
      grant_types: grants as string[],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  /** Checks an authorization request (docs/rules/mcp.md#mcp-consent). */
  async checkAuthorize(q: Record<string, string | undefined>): Promise<AuthorizeRequest | AuthorizeRefusal> {
    const settings = await this.deps.settings.get();
    const client = q.client_id ? await this.deps.repo.findClient(q.client_id) : undefined;
    if (!client) return { error: 'invalid_client', description: 'Unknown client' };
    const uris = JSON.parse(client.redirect_uris) as string[];
    const redirectUri = q.redirect_uri ?? (uris.length === 1 ? uris[0] : undefined);
    if (!redirectUri || !uris.includes(redirectUri))
      return { error: 'invalid_request', description: 'The redirect URI is not one the client registered' };
    const back = { uri: redirectUri, state: q.state };
    if (!settings.enabled || settings.kill_switch)
      return {
        error: 'access_denied',
        description: 'Remote agents are turned off on this server',
        redirect: back,
      };
    if (client.status === 'pending')
      return {
        error: 'access_denied',
        description: 'This client is waiting for the administrator’s approval',
      };
    if (client.status !== 'approved')
      return { error: 'access_denied', description: 'This client has been revoked' };
    if (q.response_type !== 'code')
      return { error: 'unsupported_response_type', description: 'Only response_type=code', redirect: back };
    if (
      !q.code_challenge ||
      q.code_challenge_method !== 'S256' ||
      !/^[A-Za-z0-9_-]{43,128}$/.test(q.code_challenge)
    )
      return {
        error: 'invalid_request',
        description: 'PKCE with code_challenge_method S256 is required',
        redirect: back,
      };
    if (q.resource !== undefined && q.resource.replace(/\/+$/, '') !== this.deps.resource())
      return {
        error: 'invalid_target',
        description: 'The resource is not this server’s /mcp',
        redirect: back,
      };
    const asked = (q.scope ?? settings.allowed_scopes.join(' ')).split(/\s+/).filter(Boolean);
    const scopes = [...new Set(asked)];
    if (scopes.length === 0 || !scopes.every((s) => (settings.allowed_scopes as string[]).includes(s)))
      return {
        error: 'invalid_scope',
        description: `Scopes allowed: ${settings.allowed_scopes.join(' ')}`,
        redirect: back,
      };
    return {
      client: { client_id: client.client_id, name: client.name },
      redirectUri,
      scopes: scopes as McpScope[],
      state: q.state,
      challenge: q.code_challenge,
    };
  }

  /** The consenting user's code for an approved request. */
  async issueCode(userId: number, r: AuthorizeRequest): Promise<string> {
    const code = token('mcpcode');
    await this.deps.repo.insertCode({
      code_digest: sha256Hex(code),
      client_id: r.client.client_id,
      user_id: userId,
      redirect_uri: r.redirectUri,
      scope: r.scopes.join(' '),
      code_challenge: r.challenge,
      expires_at: this.deps.clock.now() + CODE_TTL_MS,
      used_at: null,
    });
    return code;
  }

  /** The token endpoint (form fields). */
  async token(f: Record<string, string | undefined>): Promise<TokenAnswer> {
    const settings = await this.deps.settings.get();
    if (!settings.enabled || settings.kill_switch)
      throw new OAuthError('access_denied', 'Remote agents are turned off on this server', 403);
    if (f.grant_type === 'authorization_code') return this.fromCode(f);
    if (f.grant_type === 'refresh_token') return this.fromRefresh(f);
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }

  private async approvedClient(clientId: string | undefined) {
    const c = clientId ? await this.deps.repo.findClient(clientId) : undefined;
    if (!c || c.status !== 'approved')
      throw new OAuthError('invalid_client', 'Unknown, unapproved or revoked client', 401);
    return c;
  }

  private async fromCode(f: Record<string, string | undefined>): Promise<TokenAnswer> {
    const client = await this.approvedClient(f.client_id);
    const digest = f.code ? sha256Hex(f.code) : '';
    const now = this.deps.clock.now();
    const code = await this.deps.repo.findCode(digest);
    if (!code || code.client_id !== client.client_id) throw new OAuthError('invalid_grant', 'Unknown code');
    if (code.used_at !== null) {
      // A code used twice: whatever it gave is revoked (RFC 6749 section 4.1.2).
      await this.revokeFamily(digest, now);
      throw new OAuthError('invalid_grant', 'The code was already used');
    }
    if (Number(code.expires_at) <= now) throw new OAuthError('invalid_grant', 'The code has expired');
    if (f.redirect_uri !== code.redirect_uri)
      throw new OAuthError('invalid_grant', 'redirect_uri does not match');
    if (!f.code_verifier || s256(f.code_verifier) !== code.code_challenge)
      throw new OAuthError('invalid_grant', 'The PKCE code_verifier does not match');
    if (!(await this.deps.repo.claimCode(digest, now)))
      throw new OAuthError('invalid_grant', 'The code was already used');
    return this.issue(client.client_id, Number(code.user_id), code.scope, digest, now);
  }

  private async fromRefresh(f: Record<string, string | undefined>): Promise<TokenAnswer> {
    const client = await this.approvedClient(f.client_id);
    const digest = f.refresh_token ? sha256Hex(f.refresh_token) : '';
    const now = this.deps.clock.now();
    const t = await this.deps.repo.findRefreshToken(digest);
    if (!t || t.client_id !== client.client_id)
      throw new OAuthError('invalid_grant', 'Unknown refresh token');
    if (t.revoked_at !== null) throw new OAuthError('invalid_grant', 'The refresh token was revoked');
    if (t.used_at !== null) {
      await this.revokeFamily(t.family, now);
      throw new OAuthError(
        'invalid_grant',
        'The refresh token was already used: every token of this grant is revoked',
      );
    }
    if (Number(t.expires_at) <= now) throw new OAuthError('invalid_grant', 'The refresh token has expired');
    if (!(await this.deps.repo.claimRefreshToken(digest, now))) {
      await this.revokeFamily(t.family, now);
      throw new OAuthError(
        'invalid_grant',
        'The refresh token was already used: every token of this grant is revoked',
      );
    }
    return this.issue(client.client_id, Number(t.user_id), t.scope, t.family, now);
  }

  private async issue(
    clientId: string,
    userId: number,
    scope: string,
    family: string,
    now: number,
  ): Promise<TokenAnswer> {
    const access = token('mcpat');
    const refresh = token('mcprt');
    const base = {
      client_id: clientId,
      user_id: userId,
      scope,
      family,
      used_at: null,
      revoked_at: null,
      created_at: now,
    };
    await this.deps.repo.insertTokens([
      { ...base, token_digest: sha256Hex(access), kind: 'access', expires_at: now + ACCESS_TTL_MS },
      { ...base, token_digest: sha256Hex(refresh), kind: 'refresh', expires_at: now + REFRESH_TTL_MS },
    ]);
    await this.deps.repo.touchClient(clientId, now);
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: ACCESS_TTL_MS / 1000,
      refresh_token: refresh,
      scope,
    };
  }

  /** RFC 7009: the token (and, for a refresh token, its whole grant) stops working; always succeeds. */
  async revoke(raw: string | undefined): Promise<void> {
    if (!raw) return;
    const digest = sha256Hex(raw);
    const t = await this.deps.repo.findToken(digest);
    if (!t) return;
    const now = this.deps.clock.now();
    if (t.kind === 'refresh') await this.revokeFamily(t.family, now);
    else await this.deps.repo.revokeToken(digest, now);
  }

  private revokeFamily(family: string, now: number): Promise<void> {
    return this.deps.repo.revokeFamily(family, now);
  }

  /**
   * Every token an agent holds for the user is revoked (the account was disabled), or deleted with
   * the account (docs/rules/auth.md#account-management).
   */
  async forgetUser(userId: number, deleted: boolean): Promise<void> {
    if (deleted) return this.deps.repo.deleteUserGrants(userId);
    await this.deps.repo.revokeUserTokens(userId, this.deps.clock.now());
  }

  /** The principal of a live access token, or why there is none. */
  async verifyAccess(raw: string): Promise<AccessPrincipal | string> {
    const settings = await this.deps.settings.get();
    if (!settings.enabled || settings.kill_switch) return 'Remote agents are turned off on this server';
    const digest = sha256Hex(raw);
    const t = await this.deps.repo.findAccessToken(digest);
    if (
      !t ||
      t.revoked_at !== null ||
      Number(t.expires_at) <= this.deps.clock.now() ||
      t.status !== 'approved'
    )
      return 'The access token is invalid, expired or revoked';
    const scopes = t.scope
      .split(' ')
      .filter((s): s is McpScope => (settings.allowed_scopes as string[]).includes(s));
    return { userId: Number(t.user_id), clientId: t.client_id, scopes, digest };
  }
}
