/**
 * A delivery's body, as every inbound webhook reads it (docs/rules/strategies.md#webhook-pipeline,
 * docs/rules/scanner.md#scanner-payload, docs/rules/flow.md#flow-webhook): a JSON object of at most
 * {@link WEBHOOK_MAX_BYTES} without NUL characters; the audit's payload — credential redaction
 * (docs/rules/strategies.md#webhook-credential-redaction), the cap — and the canonical JSON whose
 * digest identifies "the same" delivery (the de-duplication fingerprint).
 */
import { WEBHOOK_MAX_BYTES } from '../../domain/limits.js';
import { CREDENTIAL_PREFIX } from './credential.js';

/**
 * Body fields that look like credentials: redacted before the payload is audited
 * (docs/rules/strategies.md#webhook-credential-redaction).
 */
const CREDENTIAL_KEY =
  /pass|pwd|secret|token|key|auth|signature|otp|pin|session|cookie|credential|private|jwt|bearer/i;
/**
 * Credential-looking text inside values: every source's webhook credential, whole or a piece of
 * one (also inside a pasted URL), JWTs, bearer headers, and long unbroken hex or base64url runs
 * (API keys are 64 hex characters).
 */
const CREDENTIAL_TEXT = new RegExp(
  `(?:${Object.values(CREDENTIAL_PREFIX).join('|')})[A-Za-z0-9_-]+|` +
    /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?|bearer\s+\S+|\b[A-Fa-f0-9]{32,}\b|[A-Za-z0-9_-]{40,}/
      .source,
  'gi',
);
const AUDIT_PAYLOAD_MAX = 4_096;

/** How deep the fingerprint reads a body; deeper values count as one placeholder. */
const CANONICAL_DEPTH = 32;

/**
 * JSON with sorted keys: the fingerprint of "identical" deliveries ignores key order. Bounded in
 * depth (a 16 KB body can nest thousands of levels), past which a value counts as one placeholder.
 */
export function canonical(v: unknown, depth = 0): string {
  if (depth > CANONICAL_DEPTH) return '"[deep]"';
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, depth + 1)).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k], depth + 1)}`)
      .join(',')}}`;
  }
  return JSON.stringify(typeof v === 'string' ? v.trim().toLowerCase() : v) ?? 'null';
}

/**
 * Credential-looking fields replaced, at any depth, and credential-looking text inside any string
 * value: a pasted webhook URL or token, a JWT, a bearer header, a long hex or base64 run such as an
 * API key (docs/rules/strategies.md#webhook-credential-redaction).
 */
export function redact(v: unknown, depth = 0): unknown {
  if (depth > 8) return '[truncated]';
  if (typeof v === 'string') return v.replace(CREDENTIAL_TEXT, '[redacted]');
  if (Array.isArray(v)) return v.map((x) => redact(x, depth + 1));
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [
        k,
        CREDENTIAL_KEY.test(k) ? '[redacted]' : redact(x, depth + 1),
      ]),
    );
  }
  return v;
}

/** Whether a parsed JSON value holds a NUL character in any key or string. */
export function holdsNul(v: unknown, depth = 0): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (depth > 64 || v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some((x) => holdsNul(x, depth + 1));
  return Object.entries(v as Record<string, unknown>).some(
    ([k, x]) => k.includes('\u0000') || holdsNul(x, depth + 1),
  );
}

/** A payload as the audit stores it: redacted, as JSON, capped at 4,096 characters. */
export function auditPayload(v: unknown): string {
  const s = JSON.stringify(redact(v));
  return s.length <= AUDIT_PAYLOAD_MAX
    ? s
    : JSON.stringify({ truncated: true, head: s.slice(0, AUDIT_PAYLOAD_MAX - 64) });
}

/** Why a body is not a delivery's JSON object. */
export type BodyFault = 'too_large' | 'not_json' | 'not_object' | 'nul';

/** Each fault's sentence, as the scanner and flow webhooks answer it. */
export const BODY_FAULTS: Readonly<Record<BodyFault, string>> = {
  too_large: `Body over ${WEBHOOK_MAX_BYTES} bytes`,
  not_json: 'Body must be JSON',
  not_object: 'Body must be a JSON object',
  // NUL cannot be stored in a PostgreSQL text column: such a body could not even be audited.
  nul: 'Body must not contain NUL characters',
};

/**
 * A raw body read as a JSON object: `body` is the object (also when it holds NUL, so a secret in
 * it can still be checked first), `fault` what keeps it from being a delivery. `raw` undefined is
 * a body over the size; an empty body is `{}` when `emptyIsObject`.
 */
export function readJsonObject(
  raw: string | undefined,
  opts: { emptyIsObject?: boolean } = {},
): { body?: Record<string, unknown>; fault?: BodyFault } {
  if (raw === undefined || Buffer.byteLength(raw) > WEBHOOK_MAX_BYTES) return { fault: 'too_large' };
  let v: unknown;
  if (opts.emptyIsObject && raw.trim() === '') v = {};
  else
    try {
      v = JSON.parse(raw);
    } catch {
      return { fault: 'not_json' };
    }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { fault: 'not_object' };
  const body = v as Record<string, unknown>;
  return holdsNul(body) ? { body, fault: 'nul' } : { body };
}
