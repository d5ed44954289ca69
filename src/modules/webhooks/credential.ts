/**
 * The credentials of inbound webhooks (docs/rules/strategies.md#webhook-token,
 * docs/rules/scanner.md#scanner-webhook-id, docs/rules/flow.md#flow-webhook): a recognisable prefix
 * plus 32 random bytes in base64url (43 characters), shown once; only the SHA-256 digest is stored
 * and looked up, and the shape is checked before any lookup. A flow's secret is compared by digest
 * in constant time.
 */
import { timingSafeEqual } from 'node:crypto';
import { randomToken, sha256Hex } from '../../platform/crypto.js';

/** Each source's credential prefix: a strategy token, a scanner's webhook id, a flow token. */
export const CREDENTIAL_PREFIX = { strategy: 'whk_', scanner: 'scn_', flow: 'flw_' } as const;
export type CredentialPrefix = (typeof CREDENTIAL_PREFIX)[keyof typeof CREDENTIAL_PREFIX];

const SHAPE = /^[a-z]{3}_[A-Za-z0-9_-]{43}$/;

/** A new credential and the digest that is stored in its place. */
export function issueCredential(prefix: CredentialPrefix): { value: string; digest: string } {
  const value = `${prefix}${randomToken(32)}`;
  return { value, digest: sha256Hex(value) };
}

/** The digest of a well-shaped credential of `prefix`, or undefined (no lookup for anything else). */
export function credentialDigest(prefix: CredentialPrefix, raw: string): string | undefined {
  return raw.startsWith(prefix) && SHAPE.test(raw) ? sha256Hex(raw) : undefined;
}

/** A webhook URL: the public base, the source's path and the credential. */
export function webhookUrl(base: string, path: string, credential: string): string {
  return `${base.replace(/\/+$/, '')}${path}/${credential}`;
}

/** Whether `given` is the secret whose digest is `digest` (compared in constant time). */
export function secretMatches(given: unknown, digest: string): boolean {
  if (typeof given !== 'string' || given.length === 0 || given.length > 200) return false;
  return timingSafeEqual(Buffer.from(sha256Hex(given), 'hex'), Buffer.from(digest, 'hex'));
}
