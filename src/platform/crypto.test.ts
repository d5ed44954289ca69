import { describe, expect, it } from 'vitest';
import { SecretBox, hmacSha256Hex, newApiKey, randomToken, safeEqual, sha256Hex } from './crypto.js';

describe('API keys are 32 random bytes in hex', () => {
  it('has 64 hex characters and never repeats', () => {
    const a = newApiKey();
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(newApiKey()).not.toBe(a);
  });
});

describe('digests', () => {
  it('HMAC depends on the pepper; SHA-256 is stable', () => {
    expect(hmacSha256Hex('p1', 'k')).not.toBe(hmacSha256Hex('p2', 'k'));
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(randomToken(32)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
  it('safeEqual compares content, tolerating different lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('secrets at rest use AES-256-GCM under a per-purpose key', () => {
  const box = new SecretBox('app-key-1', 'smtp');
  it('round-trips and never stores the plaintext', () => {
    const sealed = box.seal('hunter2-password');
    expect(sealed).not.toContain('hunter2');
    expect(box.open(sealed)).toBe('hunter2-password');
    expect(box.seal('x')).not.toBe(box.seal('x'));
  });
  it('refuses another purpose, another key and tampering', () => {
    const sealed = box.seal('secret');
    expect(() => new SecretBox('app-key-1', 'totp').open(sealed)).toThrow();
    expect(() => new SecretBox('app-key-2', 'smtp').open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('other').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => box.open('garbage')).toThrow();
  });
});
