import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** 32 random bytes as 64 lower-case hex characters: the API key format OpenAlgo clients expect. */
export function newApiKey(): string {
  return randomBytes(32).toString('hex');
}

/** A URL-safe random token of `bytes` random bytes (base64url, no padding). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Hex SHA-256 of a string: the stored form of high-entropy tokens (sessions, webhook tokens). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Keyed digest of an API key. The pepper lives outside the database, so a leaked table is useless. */
export function hmacSha256Hex(key: string, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

/** Constant-time string comparison (lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

const VERSION = 'v1';

/**
 * AES-256-GCM for secrets at rest (SMTP password, TOTP secret, broker tokens). The key is derived
 * from APP_KEY with HKDF, one sub-key per purpose, so a ciphertext of one purpose never decrypts
 * as another. Format: `v1.<iv>.<tag>.<ciphertext>` in base64url.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(appKey: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', appKey, 'algodesk', `secret-box:${purpose}`, 32));
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join(
      '.',
    );
  }

  /** Decrypts; throws when the ciphertext was tampered with or sealed under another key. */
  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
      throw new Error('unrecognised ciphertext format');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
