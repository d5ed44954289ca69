/**
 * Orders issue, "Brokers": `algodesk broker-session set|clear`, the operator's way to give a user
 * a broker session without the login flow. The token is read from stdin, stored sealed (the raw
 * token is in no row and in no byte of the database files) and opens with the install's APP_KEY;
 * `clear` removes it. The command runs in-process as in cli.test.ts, on its default store (SQLite in
 * DATA_DIR).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/platform/crypto.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { runCliHere } from '../helpers/cli-process.js';

const TOKEN = 'kiteCLIsessionTOKEN8q2Zr7';
let dataDir: string;

/** The command in-process (test/helpers/cli-process.ts), on the test's data folder. */
const run = (args: string[], input?: string) =>
  runCliHere(args, {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' },
    ...(input === undefined ? {} : { input }),
  });

/** The broker_sessions rows, read with a connection of the test's own (closed after). */
async function sessions() {
  const database = openDatabase({ kind: 'sqlite', file: join(dataDir, 'algodesk.db') });
  try {
    return await database.db.selectFrom('broker_sessions').selectAll().execute();
  } finally {
    await database.close();
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'algodesk-cli-broker-'));
  const admin = await run(
    ['user', 'create', '--username', 'admin', '--password-stdin'],
    'admin-password-1\n',
  );
  expect(admin.code, admin.err).toBe(0);
}, 60_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('algodesk broker-session set: the token from stdin, stored sealed', () => {
  it('stores the session; the row and every database file hold only ciphertext that opens with APP_KEY', async () => {
    const r = await run(
      ['broker-session', 'set', '--username', 'admin', '--broker', 'Zerodha', '--broker-user-id', 'ZX4821'],
      `${TOKEN}\n`,
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe('broker session stored for admin (zerodha)\n');
    expect(r.out + r.err).not.toContain(TOKEN);

    const rows = await sessions();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      user_id: 1,
      broker: 'zerodha',
      broker_user_id: 'ZX4821',
      expires_at: null,
    });
    expect(rows[0]!.access_token_encrypted).not.toContain(TOKEN);
    const { app_key } = JSON.parse(readFileSync(join(dataDir, 'install-secrets.json'), 'utf8')) as {
      app_key: string;
    };
    expect(new SecretBox(app_key, 'broker-token').open(rows[0]!.access_token_encrypted)).toBe(TOKEN);
    for (const f of readdirSync(dataDir).filter((n) => n.startsWith('algodesk.db')))
      expect(readFileSync(join(dataDir, f)).includes(TOKEN), f).toBe(false);
  }, 60_000);

  it('refuses an unknown broker and an implausible token with one line on stderr, storing nothing new', async () => {
    const before = await sessions();
    const broker = await run(
      ['broker-session', 'set', '--username', 'admin', '--broker', 'nobroker'],
      `${TOKEN}\n`,
    );
    expect([broker.code, broker.err]).toEqual([
      1,
      'algodesk: --broker must be one of zerodha, upstox, dhan, angel, fyers, shoonya, flattrade\n',
    ]);
    const token = await run(
      ['broker-session', 'set', '--username', 'admin', '--broker', 'upstox'],
      'short\n',
    );
    expect([token.code, token.err]).toEqual([
      1,
      'algodesk: the token on stdin is not a plausible access token\n',
    ]);
    expect(await sessions()).toEqual(before);
  }, 60_000);
});

describe('algodesk broker-session clear: the session is removed', () => {
  it('removes the stored session', async () => {
    expect(await sessions()).toHaveLength(1);
    const r = await run(['broker-session', 'clear', '--username', 'admin']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe('broker session removed for admin\n');
    expect(await sessions()).toEqual([]);
  }, 60_000);
});
