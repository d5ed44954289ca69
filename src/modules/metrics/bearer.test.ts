/** The `/metrics` bearer check: the exact token after `Bearer`, nothing else. */
import { describe, expect, it } from 'vitest';
import { bearerCheck } from './bearer.js';

const TOKEN = 'a-metrics-token-0123456789';

describe('bearer check', () => {
  const check = bearerCheck(TOKEN);

  it('accepts the token after the Bearer scheme, in any case of the scheme', () => {
    expect(check(`Bearer ${TOKEN}`)).toBe(true);
    expect(check(`bearer ${TOKEN}`)).toBe(true);
    expect(check(`BEARER  ${TOKEN} `)).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['the scheme alone', 'Bearer'],
    ['the scheme and a space', 'Bearer '],
    ['the token without the scheme', TOKEN],
    ['another scheme', `Basic ${TOKEN}`],
    ['a longer token', `Bearer ${TOKEN}0`],
    ['a shorter token', `Bearer ${TOKEN.slice(0, -1)}`],
    ['another case of the token', `Bearer ${TOKEN.toUpperCase()}`],
    ['two tokens', `Bearer ${TOKEN} ${TOKEN}`],
  ])('refuses %s', (_what, header) => {
    expect(check(header)).toBe(false);
  });
});
