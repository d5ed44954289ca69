import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { fromDbBool } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createTestDatabase, describeEachDb, type TestDatabase } from '../helpers/test-app.js';

/** A users row written directly (below the service), for schema-level checks. */
const userRow = (username: string, createdAt: number) => ({
  username,
  email: null,
  password_hash: 'x',
  is_admin: 0,
  order_mode: 'auto',
  totp_enabled: 0,
  totp_required_for_login: 0,
  totp_required_for_mcp: 0,
  totp_required_for_password_reset: 0,
  created_at: createdAt,
});

describeEachDb('storage: versioned migrations and the settings row', (dialect) => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.drop();
    t = undefined;
  });

  it('migrates a new database and records the applied versions; a second run applies nothing', async () => {
    t = await createTestDatabase(dialect, mkdtempSync(join(tmpdir(), 'algodesk-db-')));
    const { applied } = await migrateToLatest(t.database.db);
    expect(applied).toEqual([]);
    const rows = await sql<{ name: string }>`select name from schema_migrations order by name`.execute(
      t.database.db,
    );
    expect(rows.rows.map((r) => r.name)).toContain('0001_create_foundation');
  });

  it('holds exactly one settings row (id = 1) with every spec column at its default', async () => {
    t = await createTestDatabase(dialect, mkdtempSync(join(tmpdir(), 'algodesk-db-')));
    const s = await t.database.db
      .selectFrom('settings')
      .selectAll()
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    expect({
      id: s.id,
      analyze_mode: fromDbBool(s.analyze_mode),
      smtp_server: s.smtp_server,
      smtp_port: s.smtp_port,
      smtp_username: s.smtp_username,
      smtp_password_encrypted: s.smtp_password_encrypted,
      smtp_use_tls: fromDbBool(s.smtp_use_tls),
      smtp_from_email: s.smtp_from_email,
      smtp_helo_hostname: s.smtp_helo_hostname,
      security_auto_ban_enabled: fromDbBool(s.security_auto_ban_enabled),
      security_404_threshold: s.security_404_threshold,
      security_404_ban_duration: s.security_404_ban_duration,
      security_api_threshold: s.security_api_threshold,
      security_api_ban_duration: s.security_api_ban_duration,
      security_repeat_offender_limit: s.security_repeat_offender_limit,
    }).toEqual({
      id: 1,
      analyze_mode: false,
      smtp_server: null,
      smtp_port: 587,
      smtp_username: null,
      smtp_password_encrypted: null,
      smtp_use_tls: true,
      smtp_from_email: null,
      smtp_helo_hostname: null,
      security_auto_ban_enabled: false,
      security_404_threshold: 100,
      security_404_ban_duration: 0,
      security_api_threshold: 100,
      security_api_ban_duration: 0,
      security_repeat_offender_limit: 2,
    });
    // A second settings row is refused by the schema itself.
    await expect(
      t.database.db
        .insertInto('settings')
        .values({ id: 2 } as never)
        .execute(),
    ).rejects.toThrow();
  });

  it('stores times as epoch milliseconds and reads them back as numbers', async () => {
    t = await createTestDatabase(dialect, mkdtempSync(join(tmpdir(), 'algodesk-db-')));
    const at = Date.UTC(2026, 10, 21, 9, 15, 0, 123);
    await t.database.db.insertInto('users').values(userRow('u', at)).execute();
    const row = await t.database.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    expect(row.created_at).toBe(at);
    expect(typeof row.id).toBe('number');
    expect(fromDbBool(row.totp_enabled)).toBe(false);
  });

  it('enforces unique usernames and cascades a user delete to their sessions and key', async () => {
    t = await createTestDatabase(dialect, mkdtempSync(join(tmpdir(), 'algodesk-db-')));
    const db = t.database.db;
    const { id } = await db
      .insertInto('users')
      .values(userRow('a', 1))
      .returning('id')
      .executeTakeFirstOrThrow();
    await expect(db.insertInto('users').values(userRow('a', 1)).execute()).rejects.toThrow();
    await db.insertInto('api_keys').values({ user_id: id, key_digest: 'd', created_at: 1 }).execute();
    await db
      .insertInto('sessions')
      .values({
        id: 's',
        user_id: id,
        csrf_token: 'c',
        created_at: 1,
        last_seen_at: 1,
        expires_at: 2,
        ip: null,
        user_agent: null,
        totp_verified_at: null,
      })
      .execute();
    await db.deleteFrom('users').where('id', '=', id).execute();
    expect(await db.selectFrom('api_keys').selectAll().execute()).toEqual([]);
    expect(await db.selectFrom('sessions').selectAll().execute()).toEqual([]);
  });
});
