import { Secret, TOTP } from 'otpauth';
import type { InjectOptions } from 'fastify';
import { asBrowser, type Browser, type TestApp } from './test-app.js';

/** The code an authenticator shows at `at` (epoch ms) for a base32 secret: the same library. */
export const codeAt = (secret: string, at: number) =>
  TOTP.generate({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp: at,
  });

/** A six-digit code that is wrong now: the code of a step an hour away. */
export const wrongCode = (secret: string, at: number) => codeAt(secret, at + 3_600_000);

export interface Flags {
  enabled: boolean;
  required_for_login: boolean;
  required_for_mcp: boolean;
  required_for_password_reset: boolean;
}
export const ALL_ON: Flags = {
  enabled: true,
  required_for_login: true,
  required_for_mcp: true,
  required_for_password_reset: true,
};
export const MASTER_ONLY: Flags = {
  enabled: true,
  required_for_login: false,
  required_for_mcp: false,
  required_for_password_reset: false,
};

/** Records every response body, for the secret scans. */
export function recorder(t: TestApp) {
  const bodies: string[] = [];
  const call = async (opts: InjectOptions) => {
    const res = await t.app.inject(opts);
    bodies.push(res.body);
    return res;
  };
  return { bodies, call };
}

export const setup = (t: TestApp, b: Browser) =>
  t.app.inject({ method: 'POST', url: '/auth/2fa/setup', headers: asBrowser(b) });

export const configure = (t: TestApp, b: Browser, payload: object) =>
  t.app.inject({ method: 'POST', url: '/auth/2fa/configure', headers: asBrowser(b), payload });

export const status = (t: TestApp, b: Browser) =>
  t.app.inject({ method: 'GET', url: '/auth/2fa/status', headers: { cookie: b.cookie } });

/**
 * Enrolls an authenticator and turns two-factor on with `flags`, then moves the clock one step so
 * the next code is not a replay. Returns the base32 secret and the provisioning URI.
 */
export async function enroll(t: TestApp, b: Browser, flags: Flags = MASTER_ONLY) {
  const res = await setup(t, b);
  if (res.statusCode !== 200) throw new Error(`setup failed: ${res.statusCode} ${res.body}`);
  const { secret, otpauth_uri } = res.json() as { secret: string; otpauth_uri: string };
  const done = await configure(t, b, { totp_code: codeAt(secret, t.clock.now()), ...flags });
  if (done.statusCode !== 200) throw new Error(`configure failed: ${done.statusCode} ${done.body}`);
  t.clock.advance(30_000);
  return { secret, uri: otpauth_uri };
}
