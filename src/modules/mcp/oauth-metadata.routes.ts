/**
 * Discovery for remote agents (docs/rules/mcp.md#mcp-oauth): the authorization server's metadata
 * (RFC 8414) and the protected-resource metadata of `/mcp` (RFC 9728), both on the public base
 * URL. Apart from the endpoints they describe (oauth-client.routes.ts, oauth-consent.routes.ts,
 * mcp-remote.routes.ts): this file only says where those are and what they support.
 */
import type { App } from '../../platform/http/types.js';
import type { McpSettingsService } from './mcp-settings.service.js';
import { AGENT_TAGS as tags, Json } from './oauth.schema.js';

export interface OAuthMetadataDeps {
  settings: McpSettingsService;
  /** The public base URL (the tunnel's while it is up, else HOST_SERVER). */
  base: () => string;
}

/** The public base URL without its trailing slashes. */
const trimmed = (base: () => string) => base().replace(/\/+$/, '');

/** The URL of `/mcp`'s protected-resource metadata, which a 401 of `/mcp` names. */
export const protectedResourceMetadataUrl = (base: () => string) =>
  `${trimmed(base)}/.well-known/oauth-protected-resource/mcp`;

export function oauthMetadataRoutes(app: App, deps: OAuthMetadataDeps): void {
  const resource = () => `${trimmed(deps.base)}/mcp`;

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        summary: 'OAuth 2.1 authorization server metadata (RFC 8414)',
        tags,
        response: { 200: Json },
      },
    },
    async () => {
      const base = trimmed(deps.base);
      const settings = await deps.settings.get();
      return {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        revocation_endpoint_auth_methods_supported: ['none'],
        scopes_supported: settings.allowed_scopes,
      };
    },
  );
  const prm = async () => ({
    resource: resource(),
    authorization_servers: [trimmed(deps.base)],
    scopes_supported: (await deps.settings.get()).allowed_scopes,
    bearer_methods_supported: ['header'],
    resource_name: 'algodesk',
  });
  for (const url of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])
    app.get(
      url,
      {
        schema: { summary: 'Protected-resource metadata of /mcp (RFC 9728)', tags, response: { 200: Json } },
      },
      prm,
    );
}
