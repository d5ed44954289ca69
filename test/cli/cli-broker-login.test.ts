/**
 * `algodesk broker-session login` (docs/rules/brokers.md#broker-sessions): a form broker's login
 * from the shell, for a headless server — the user's broker app (here the bootstrap Angel One app
 * from BROKER_*) and its fields as `name=value` lines on stdin, sent to the broker (the loopback
 * Angel stub), the session stored sealed with its refresh and feed tokens. A refusal is one line
 * in Angel's words; no PIN, TOTP or token is printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { ANGEL_CREDS, startAngelStub, type AngelStub } from '../helpers/broker-order-stub-angel.js';
import { runCliHere } from '../helpers/cli-process.js';

let dataDir: string;
let stub: AngelStub;

const run = (args: string[], input?: string) =>
  runCliHere(args, {
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      REDIS_URL: '',
      BROKER_NAME: 'angel',
      BROKER_API_KEY: ANGEL_CREDS.apiKey,
      BROKER_API_BASE_URL: stub.url,
    },
    ...(input === undefined ? {} : { input }),
  });

async function sessions() {
  const database = openDatabase({ kind: 'sqlite', file: join(dataDir, 'algodesk.db') });
  try {
    return await database.db.selectFrom('broker_sessions').selectAll().execute();
  } finally {
    await database.close();
  }
}

const fields = (pin: string) =>
  `client_code=${ANGEL_CREDS.clientCode}\npin=${pin}\ntotp=${ANGEL_CREDS.totp}\n`;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'algodesk-cli-login-'));
  stub = await startAngelStub(ANGEL_CREDS);
  const admin = await run(
    ['user', 'create', '--username', 'admin', '--password-stdin'],
    'admin-password-1\n',
  );
  expect(admin.code, admin.err).toBe(0);
}, 60_000);
afterAll(async () => {
  await stub?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('algodesk broker-session login: a form login from the shell', () => {
  it('a wrong PIN is one line in Angel’s words, exit 1, nothing stored, no PIN or TOTP printed', async () => {
    const r = await run(['broker-session', 'login', '--username', 'admin'], fields('9173'));
    expect([r.code, r.err.trim().split('\n').at(-1)]).toEqual([
      1,
      'algodesk: Angel One login failed: Invalid Email Or Password',
    ]);
    expect(r.out + r.err).not.toContain('9173');
    expect(r.out + r.err).not.toContain(ANGEL_CREDS.totp);
    expect(await sessions()).toEqual([]);
  }, 60_000);

  it('fields out of form are refused before Angel is asked', async () => {
    const before = stub.requests.length;
    const r = await run(
      ['broker-session', 'login', '--username', 'admin'],
      'client_code=D8412735\npin=12\ntotp=1\n',
    );
    expect([r.code, r.err.trim().split('\n').at(-1)]).toEqual([
      1,
      'algodesk: pin: missing or not in the expected form',
    ]);
    expect(stub.requests.length).toBe(before);
  }, 60_000);

  it('the right fields log in: the session is stored sealed with its refresh and feed tokens', async () => {
    const r = await run(['broker-session', 'login', '--username', 'admin'], fields(ANGEL_CREDS.pin));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^logged in to angel for admin, valid until \d{4}-\d\d-\d\dT/);
    const rows = await sessions();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      broker: 'angel',
      broker_user_id: ANGEL_CREDS.clientCode,
      broker_app_id: null,
    });
    const issued = stub.credentials;
    for (const secret of [issued.jwt, issued.refreshToken, issued.feedToken, ANGEL_CREDS.pin]) {
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(r.out + r.err).not.toContain(secret);
    }
    expect(rows[0]!.refresh_token_encrypted).toEqual(expect.any(String));
    expect(rows[0]!.feed_token_encrypted).toEqual(expect.any(String));
  }, 60_000);
});
