/** `METRICS_TOKEN`: unset (metrics off), or a bearer token of 16+ printable characters. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const load = (env: Record<string, string>) => loadConfig(env, { envFile: false });

describe('METRICS_TOKEN', () => {
  it('is unset by default (metrics off)', () => {
    expect(load({}).metricsToken).toBeUndefined();
    expect(load({ METRICS_TOKEN: '  ' }).metricsToken).toBeUndefined();
  });

  it('takes 16 or more printable characters', () => {
    expect(load({ METRICS_TOKEN: '0123456789abcdef' }).metricsToken).toBe('0123456789abcdef');
    expect(load({ METRICS_TOKEN: 'a-b_c.d~e+f/g=h!0' }).metricsToken).toBe('a-b_c.d~e+f/g=h!0');
  });

  it.each([
    ['shorter than 16 characters', '0123456789abcde', 'at least 16 characters'],
    ['with a space inside', '01234567 89abcdef', 'printable ASCII without spaces'],
    ['with a non-ASCII character', '0123456789abcdeé', 'printable ASCII without spaces'],
  ])('refuses a token %s, naming the variable and never echoing the value', (_what, value, reason) => {
    let err: unknown;
    try {
      load({ METRICS_TOKEN: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as ConfigError).message;
    expect(message).toContain('METRICS_TOKEN');
    expect(message).toContain(reason);
    expect(message).not.toContain(value);
  });
});
