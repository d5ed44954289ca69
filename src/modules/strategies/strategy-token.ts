import { randomToken, sha256Hex } from '../../platform/crypto.js';

/**
 * Webhook tokens: a recognisable prefix plus 32 random bytes in base64url (43 characters). Only
 * the SHA-256 digest is stored and looked up; the shape is checked before any lookup.
 */
export const TOKEN_PREFIX = 'whk_';
const TOKEN_SHAPE = /^whk_[A-Za-z0-9_-]{43}$/;

export function newWebhookToken(): { token: string; digest: string } {
  const token = `${TOKEN_PREFIX}${randomToken(32)}`;
  return { token, digest: sha256Hex(token) };
}

/** The digest of a well-shaped token, or undefined (no lookup for anything else). */
export function tokenDigest(raw: string): string | undefined {
  return TOKEN_SHAPE.test(raw) ? sha256Hex(raw) : undefined;
}

/** The webhook URL of a token on a public base URL. */
export function webhookUrl(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/strategy/webhook/${token}`;
}
