import { Secret, TOTP } from 'otpauth';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../platform/clock.js';
import { openDatabase } from '../../platform/db/database.js';
import { migrateToLatest } from '../../platform/db/migrate.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';
import { isTotpRequired, isWriteScope, TotpService, type TotpSessionRef } from './totp.service.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

const code = (secret: string, at: number) =>
  TOTP.generate({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp: at,
  });

/** Every service on an in-memory SQLite database, driven by a fake clock. */
async function setup() {
  const database = openDatabase({ kind: 'sqlite', file: ':memory:' });
  await migrateToLatest(database.db);
  const clock = new FakeClock();
  const users = new UsersService(new UsersRepository(database.db), clock);
  const sessions = new SessionsService(new SessionsRepository(database.db), clock, {
    idleMs: 3_600_000,
    maxMs: 86_400_000,
  });
  const totp = new TotpService(users, sessions, clock, 'k'.repeat(64));
  const user = await users.create({ username: 'agent-owner', password: 'correct horse battery' });
  const created = await sessions.create(user.id, '127.0.0.1', undefined);
  const session: TotpSessionRef = { userId: user.id, sessionId: created.row.id };
  const { secret } = await totp.beginEnrollment(user.id);
  return { database, clock, users, sessions, totp, user, session, secret };
}

describe('isTotpRequired: a purpose is required only while the master switch is on', () => {
  const flags = (enabled: number, login: number, mcp: number, reset: number) => ({
    totp_enabled: enabled,
    totp_required_for_login: login,
    totp_required_for_mcp: mcp,
    totp_required_for_password_reset: reset,
  });

  it('is false for every purpose with the master off, whatever the flags', () => {
    for (const p of ['login', 'mcp', 'password_reset'] as const) {
      expect(isTotpRequired(flags(0, 1, 1, 1), p)).toBe(false);
      expect(isTotpRequired(flags(1, 1, 1, 1), p)).toBe(true);
      expect(isTotpRequired(flags(1, 0, 0, 0), p)).toBe(false);
    }
    expect(isTotpRequired({ ...flags(1, 0, 1, 0), totp_enabled: true }, 'mcp')).toBe(true);
  });

  it('recognises write scopes', () => {
    expect(isWriteScope('read write')).toBe(true);
    expect(isWriteScope(['orders:write'])).toBe(true);
    expect(isWriteScope('read:market write:orders')).toBe(true);
    expect(isWriteScope('read:market read:account')).toBe(false);
    expect(isWriteScope('read')).toBe(false);
    expect(isWriteScope([])).toBe(false);
  });
});

describe('requireFreshTotp: write scope + TOTP required for mcp needs a code verified within 60 s', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  beforeEach(async () => {
    s = await setup();
  });
  afterEach(() => s.database.close());

  const enable = async (mcp: boolean) => {
    await s.totp.configure(s.session, {
      totp_code: code(s.secret, s.clock.now()),
      enabled: true,
      required_for_login: false,
      required_for_mcp: mcp,
      required_for_password_reset: false,
    });
    s.clock.advance(30_000); // the next code belongs to a later step
  };
  const fresh = (scope: string) => s.totp.requireFreshTotp(s.session, 'mcp', scope);

  it('asks nothing while two-factor is off or mcp is not a required purpose, or for read scope', async () => {
    await expect(fresh('read write')).resolves.toBeUndefined();
    await enable(false);
    s.clock.advance(3_600_000);
    await expect(fresh('read write')).resolves.toBeUndefined();
  });

  it('accepts a marker up to 60 s old and refuses it after that; read scope passes regardless', async () => {
    await enable(true); // configure stamped the marker 30 s ago
    await expect(fresh('write')).resolves.toBeUndefined();
    s.clock.advance(30_000); // exactly 60 s
    await expect(fresh('write')).resolves.toBeUndefined();
    s.clock.advance(1);
    await expect(fresh('write')).rejects.toMatchObject({ statusCode: 403, code: 'totp_required' });
    await expect(fresh('read')).resolves.toBeUndefined();
  });

  it('refuses a session that never verified a code', async () => {
    await enable(true);
    const other = await s.sessions.create(s.user.id, '127.0.0.1', undefined);
    await expect(
      s.totp.requireFreshTotp({ userId: s.user.id, sessionId: other.row.id }, 'mcp', 'write'),
    ).rejects.toMatchObject({ statusCode: 403, code: 'totp_required' });
  });

  it('a consent-page code restamps the marker; a wrong or replayed one does not', async () => {
    await enable(true);
    s.clock.advance(120_000);
    await expect(fresh('write')).rejects.toMatchObject({ code: 'totp_required' });
    const wrong = code(s.secret, s.clock.now() + 3_600_000);
    await expect(s.totp.verifyConsentCode(s.session, wrong)).rejects.toMatchObject({
      statusCode: 400,
      code: 'invalid_totp',
    });
    await expect(fresh('write')).rejects.toMatchObject({ code: 'totp_required' });
    const good = code(s.secret, s.clock.now());
    expect(await s.totp.verifyConsentCode(s.session, good)).toBe(s.clock.now());
    await expect(fresh('write')).resolves.toBeUndefined();
    s.clock.advance(61_000);
    await expect(s.totp.verifyConsentCode(s.session, good)).rejects.toMatchObject({ code: 'invalid_totp' });
    s.clock.set(s.clock.now() - 61_000); // back in the same step: the code is a replay
    await expect(s.totp.verifyConsentCode(s.session, good)).rejects.toMatchObject({ code: 'totp_replayed' });
  });
});
