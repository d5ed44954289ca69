import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB, UsersTable } from '../../db/schema.js';
import { isPostgres, toDbBool } from '../../platform/db/database.js';

export type UserRow = Selectable<UsersTable>;

export interface NewUser {
  username: string;
  email: string | null;
  passwordHash: string;
  createdAt: number;
  /** An administrator (the install's first user always is). */
  admin?: boolean;
}

/** The only place that touches the `users` table. */
export class UsersRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
  }

  findById(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(): Promise<UserRow[]> {
    return this.db.selectFrom('users').selectAll().orderBy('id').execute();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Inserts a user; the first user of the install becomes an administrator, later ones when asked. The count and the
   * insert share one transaction so two concurrent first users cannot both become admin.
   */
  create(user: NewUser): Promise<UserRow> {
    return this.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const id = await trx
        .insertInto('users')
        .values({
          username: user.username,
          email: user.email,
          password_hash: user.passwordHash,
          is_admin: toDbBool(Number(existing.n) === 0 || user.admin === true),
          order_mode: 'auto',
          totp_enabled: 0,
          totp_required_for_login: 0,
          totp_required_for_mcp: 0,
          totp_required_for_password_reset: 0,
          created_at: user.createdAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return trx.selectFrom('users').selectAll().where('id', '=', id.id).executeTakeFirstOrThrow();
    });
  }

  /**
   * Inserts the first user (the administrator) only while the table is empty; undefined when a
   * user exists (docs/rules/auth.md#first-run-setup). On PostgreSQL the table is locked against
   * writers for the transaction, so two concurrent setups cannot both see it empty; SQLite runs
   * one write transaction at a time.
   */
  createFirst(user: NewUser): Promise<UserRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      if (isPostgres(trx)) await sql`lock table users in share row exclusive mode`.execute(trx);
      const any = await trx.selectFrom('users').select('id').limit(1).executeTakeFirst();
      if (any !== undefined) return undefined;
      const id = await trx
        .insertInto('users')
        .values({
          username: user.username,
          email: user.email,
          password_hash: user.passwordHash,
          is_admin: toDbBool(true),
          order_mode: 'auto',
          totp_enabled: 0,
          totp_required_for_login: 0,
          totp_required_for_mcp: 0,
          totp_required_for_password_reset: 0,
          created_at: user.createdAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return trx.selectFrom('users').selectAll().where('id', '=', id.id).executeTakeFirstOrThrow();
    });
  }

  async setPasswordHash(userId: number, passwordHash: string): Promise<boolean> {
    const r = await this.db
      .updateTable('users')
      .set({ password_hash: passwordHash })
      .where('id', '=', userId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Two-factor off and forgotten: secret, pending enrollment, purposes and last step cleared. */
  async clearTotp(userId: number): Promise<boolean> {
    const r = await this.db
      .updateTable('users')
      .set({
        totp_secret: null,
        totp_pending_secret: null,
        totp_enabled: 0,
        totp_required_for_login: 0,
        totp_required_for_mcp: 0,
        totp_required_for_password_reset: 0,
        totp_last_step: null,
      })
      .where('id', '=', userId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Runs `change` on the user in a transaction that keeps at least one enabled administrator
   * (docs/rules/auth.md#account-management): `change` writes; afterwards, when none is left, the
   * transaction is undone and `lastAdmin` thrown. On PostgreSQL the table is locked against
   * writers first, so two administrators demoting each other at once cannot both succeed (each
   * would count the other); SQLite runs one write transaction at a time.
   */
  keepingAnAdmin<T>(change: (trx: UsersRepository) => Promise<T>, lastAdmin: () => Error): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      if (isPostgres(trx)) await sql`lock table users in share row exclusive mode`.execute(trx);
      const out = await change(new UsersRepository(trx));
      const left = await trx
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('is_admin', '=', toDbBool(true))
        .where('disabled_at', 'is', null)
        .executeTakeFirstOrThrow();
      if (Number(left.n) === 0) throw lastAdmin();
      return out;
    });
  }

  async setAdmin(userId: number, admin: boolean): Promise<boolean> {
    const r = await this.db
      .updateTable('users')
      .set({ is_admin: toDbBool(admin) })
      .where('id', '=', userId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async setDisabled(userId: number, at: number | null): Promise<boolean> {
    const r = await this.db
      .updateTable('users')
      .set({ disabled_at: at })
      .where('id', '=', userId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Deletes the user; the rows that reference it go with it (foreign keys on delete cascade). */
  async delete(userId: number): Promise<boolean> {
    const r = await this.db.deleteFrom('users').where('id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  async setOrderMode(userId: number, mode: string): Promise<void> {
    await this.db.updateTable('users').set({ order_mode: mode }).where('id', '=', userId).execute();
  }

  /** Stores (replaces) the ciphertext of an enrollment not yet confirmed with a code. */
  async setPendingTotpSecret(userId: number, sealed: string): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ totp_pending_secret: sealed })
      .where('id', '=', userId)
      .execute();
  }

  /**
   * Records `step` as the user's last accepted TOTP step, only when it is later than the stored
   * one: a compare-and-set, so of two requests carrying the same code (on any instance) one wins.
   * False when the step was already used (or an earlier one), i.e. a replay.
   */
  async consumeTotpStep(userId: number, step: number, sealedSecret: string): Promise<boolean> {
    const r = await this.db
      .updateTable('users')
      .set({ totp_last_step: step })
      .where('id', '=', userId)
      .where('totp_secret', '=', sealedSecret)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Writes the master and purpose flags, the step of the code that authorised it and, when an
   * enrollment is confirmed, the new secret — in one UPDATE, guarded by the step (replay) and by
   * the ciphertext the code was checked against (a concurrent re-enrollment makes it fail).
   */
  async writeTotpConfig(userId: number, w: TotpConfigWrite): Promise<boolean> {
    const flags = {
      totp_enabled: toDbBool(w.enabled),
      totp_required_for_login: toDbBool(w.requiredForLogin),
      totp_required_for_mcp: toDbBool(w.requiredForMcp),
      totp_required_for_password_reset: toDbBool(w.requiredForPasswordReset),
      totp_last_step: w.step,
    };
    const r = await this.db
      .updateTable('users')
      .set(w.promotePending ? { ...flags, totp_secret: w.checkedSecret, totp_pending_secret: null } : flags)
      .where('id', '=', userId)
      .where(w.checkedColumn, '=', w.checkedSecret)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', w.step)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
}

/** One atomic two-factor configuration write (see {@link UsersRepository.writeTotpConfig}). */
export interface TotpConfigWrite {
  enabled: boolean;
  requiredForLogin: boolean;
  requiredForMcp: boolean;
  requiredForPasswordReset: boolean;
  /** Time step of the code that authorised the write. */
  step: number;
  /** The column whose secret verified the code, and its ciphertext as read. */
  checkedColumn: 'totp_secret' | 'totp_pending_secret';
  checkedSecret: string;
  /** Make the pending secret the active one (enrollment confirmed). */
  promotePending: boolean;
}
