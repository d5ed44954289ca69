import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../../src/platform/db/sqlite-checkpointer.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** A WAL database whose connection never checkpoints, with ~4 MB of rows only in its WAL. */
function walOnlyDatabase(dir: string): { file: string; db: SQLite.Database } {
  const file = join(dir, 'wal.db');
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table t (id integer primary key, body blob not null)');
  const insert = db.prepare('insert into t (body) values (?)');
  db.transaction(() => {
    for (let i = 0; i < 1_000; i++) insert.run(Buffer.alloc(4_000, i % 256));
  })();
  return { file, db };
}

async function until(check: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

describe('SQLite checkpointer: the WAL copied into the database file by a thread of its own', () => {
  const dirs: string[] = [];
  const open: { close(): unknown }[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'algodesk-ckpt-'));
    dirs.push(d);
    return d;
  };
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('copies what the writing connection left in the WAL, every interval, while that connection goes on writing', async () => {
    const { file, db } = walOnlyDatabase(tempDir());
    open.push(db);
    // Nothing checkpoints yet: the rows are in the WAL, the database file holds the schema only.
    await new Promise((r) => setTimeout(r, 100));
    expect(statSync(file).size).toBeLessThan(100_000);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(4_000_000);

    const errors: string[] = [];
    const checkpointer = new SqliteCheckpointer(file, { intervalMs: 20, onError: (m) => errors.push(m) });
    open.push(checkpointer);
    await checkpointer.start();
    expect(await until(() => statSync(file).size > 4_000_000)).toBe(true);

    // The writer was not locked out meanwhile, and what it writes next is copied too.
    db.prepare('insert into t (body) values (?)').run(Buffer.alloc(4_000, 7));
    const before = statSync(file).size;
    db.transaction(() => {
      for (let i = 0; i < 500; i++) db.prepare('insert into t (body) values (?)').run(Buffer.alloc(4_000, 1));
    })();
    expect(await until(() => statSync(file).size >= before + 2_000_000)).toBe(true);
    expect(errors).toEqual([]);
    // Every row written while the checkpointer copied is kept.
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(db.prepare('select count(*) as n from t').get()).toEqual({ n: 1_501 });
  });

  it('keeps the WAL bounded under a steady stream of writes: past its limit it restarts the WAL', async () => {
    const { file, db } = walOnlyDatabase(tempDir());
    open.push(db);
    // Limited to 256 frames (1 MiB). Whether a passive checkpoint alone ever finds the WAL all
    // copied between two transactions depends on the machine's load; the restart does not.
    const restarts: number[] = [];
    const checkpointer = new SqliteCheckpointer(file, {
      intervalMs: 10,
      restartFrames: 256,
      onRestart: (frames) => restarts.push(frames),
    });
    open.push(checkpointer);
    await checkpointer.start();
    const insert = db.prepare('insert into t (body) values (?)');
    const batch = db.transaction(() => {
      for (let i = 0; i < 10; i++) insert.run(Buffer.alloc(4_000, i));
    });
    // Small transactions back to back, the event loop let through every 20 (the restart's report
    // arrives there), until the first restart: a hang guard, not a timing, bounds the stream.
    const giveUp = Date.now() + 30_000;
    let written = 0;
    while (restarts.length === 0 && Date.now() < giveUp) {
      for (let i = 0; i < 20; i++) batch();
      written += 20;
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(restarts.length).toBeGreaterThan(0);
    expect(restarts[0]).toBeGreaterThan(256);
    // A restart copied the whole WAL (the next transaction then writes from its beginning, which
    // bounds the file): nothing written around it is lost.
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(db.prepare('select count(*) as n from t').get()).toEqual({ n: 1_000 + written * 10 });
  });

  it('runs a last checkpoint when closed, and closing twice or before start is harmless', async () => {
    const { file, db } = walOnlyDatabase(tempDir());
    open.push(db);
    const idle = new SqliteCheckpointer(file);
    await idle.close();
    const checkpointer = new SqliteCheckpointer(file, { intervalMs: 60_000 });
    await checkpointer.start();
    expect(statSync(file).size).toBeLessThan(100_000);
    await Promise.all([checkpointer.close(), checkpointer.close()]);
    expect(statSync(file).size).toBeGreaterThan(4_000_000);
  });

  it('refuses to start when its connection cannot open the file', async () => {
    const missing = join(tempDir(), 'no', 'such', 'dir', 'x.db');
    const checkpointer = new SqliteCheckpointer(missing);
    await expect(checkpointer.start()).rejects.toThrow(/sqlite checkpointer/);
    await checkpointer.close();
  });
});

describe('SQLite checkpointer in the app', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const autoCheckpoint = async (app: TestApp) =>
    (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(app.db.database.db)).rows[0]
      ?.wal_autocheckpoint;

  it('takes checkpoints off the event loop once the server listens, and gives them back at close', async () => {
    t = await createTestApp('sqlite');
    // Injected requests only (the CLI, most tests): SQLite's own checkpoints.
    expect(await autoCheckpoint(t)).toBe(1_000);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    // Fastify runs `onListen` hooks after `listen` resolves, not before.
    const deadline = Date.now() + 10_000;
    while ((await autoCheckpoint(t)) !== 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(await autoCheckpoint(t)).toBe(0);
    await t.app.close();
    expect(await autoCheckpoint(t)).toBe(1_000);
  });
});
