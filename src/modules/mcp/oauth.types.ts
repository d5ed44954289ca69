/**
 * The OAuth 2.1 server's vocabulary (docs/rules/mcp.md#mcp-oauth): lifetimes, its error, the
 * redirect URI rule, and the shapes of an authorization request, a token answer and a principal.
 */
import type { McpScope } from './mcp-tools.js';
export const ACCESS_TTL_MS = 15 * 60_000;
export const REFRESH_TTL_MS = 30 * 24 * 60 * 60_000;
export const CODE_TTL_MS = 5 * 60_000;

/** An OAuth error as the token and registration endpoints answer it. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

/** A redirect URI a client may register: https anywhere, http on the loopback only, no fragment. */
export function redirectUriProblem(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `${raw.slice(0, 100)} is not a URL`;
  }
  if (u.hash !== '') return 'a redirect URI may not have a fragment';
  if (u.protocol === 'https:') return undefined;
  if (u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname)) return undefined;
  return 'a redirect URI must be https, or http on localhost';
}

export interface AuthorizeRequest {
  client: { client_id: string; name: string };
  redirectUri: string;
  scopes: McpScope[];
  state: string | undefined;
  challenge: string;
}

/** A refused authorization: shown on the page (`redirect` absent) or sent back to the client. */
export interface AuthorizeRefusal {
  error: string;
  description: string;
  redirect?: { uri: string; state: string | undefined };
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface AccessPrincipal {
  userId: number;
  clientId: string;
  scopes: McpScope[];
  /** The access token's digest (per-token rate limits key on it). */
  digest: string;
}
