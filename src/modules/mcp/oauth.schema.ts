/**
 * The wire shapes the remote agents' routes share (OAuth metadata, registration, consent, token,
 * revocation, `/mcp`): their OpenAPI tag, a JSON object answer, and OAuth's error body
 * `{error, error_description}`. Apart so that each routes file of the remote side describes its
 * answers the same way.
 */
import { Type } from 'typebox';

/** The OpenAPI tag of the remote agents' routes. */
export const AGENT_TAGS = ['agents'];

/** A JSON object, as the OAuth endpoints take and answer them. */
export const Json = Type.Record(Type.String(), Type.Unknown());

/** An OAuth error as its endpoints answer it (docs/rules/mcp.md#mcp-oauth). */
export const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });
