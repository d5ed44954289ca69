/**
 * The bearer-token check of `/metrics`: the `Authorization` header's token against
 * `METRICS_TOKEN`, compared as SHA-256 digests in constant time (equal lengths whatever was sent,
 * so neither the token's characters nor its length leak through timing).
 */
import { safeEqual, sha256Hex } from '../../platform/crypto.js';

/** True when `authorization` is `Bearer <the token>` (scheme in any case, as RFC 9110 allows). */
export type BearerCheck = (authorization: string | undefined) => boolean;

const BEARER = /^bearer +(\S+) *$/i;

export function bearerCheck(token: string): BearerCheck {
  const expected = sha256Hex(token);
  return (authorization) => {
    const sent = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    // A missing or malformed header is compared too, so every refusal costs the same.
    return safeEqual(sha256Hex(sent ?? ''), expected) && sent !== undefined;
  };
}
