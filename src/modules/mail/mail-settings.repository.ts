/**
 * The only reader and writer of the `smtp_*` columns of the settings row (id = 1, created by the
 * first migration). The password column holds SecretBox ciphertext; sealing and opening it is
 * the service's job.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { toDbBool } from '../../platform/db/database.js';

/** The mail columns as stored. */
export interface MailSettingsRow {
  smtp_server: string | null;
  smtp_port: number;
  smtp_username: string | null;
  /** SecretBox ciphertext (purpose `smtp-password`), null when none is stored. */
  smtp_password_encrypted: string | null;
  /** 0/1 (SQLite) or a boolean (PostgreSQL): read through `fromDbBool`. */
  smtp_use_tls: number | boolean;
  smtp_from_email: string | null;
  smtp_helo_hostname: string | null;
}

/** A write of the mail columns; `smtp_password_encrypted` absent = keep the stored one. */
export interface MailSettingsWrite {
  smtp_server: string;
  smtp_port: number;
  smtp_username: string | null;
  smtp_password_encrypted?: string;
  smtp_use_tls: boolean;
  smtp_from_email: string;
  smtp_helo_hostname: string | null;
}

export class MailSettingsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  get(): Promise<MailSettingsRow> {
    return this.db
      .selectFrom('settings')
      .select([
        'smtp_server',
        'smtp_port',
        'smtp_username',
        'smtp_password_encrypted',
        'smtp_use_tls',
        'smtp_from_email',
        'smtp_helo_hostname',
      ])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
  }

  /** One UPDATE: the settings change as a whole or not at all. */
  async save(write: MailSettingsWrite, now: number): Promise<void> {
    const { smtp_password_encrypted, smtp_use_tls, ...rest } = write;
    await this.db
      .updateTable('settings')
      .set({
        ...rest,
        // Booleans are written as 0/1, which both dialects accept (docs/architecture.md, "Platform decisions").
        smtp_use_tls: toDbBool(smtp_use_tls),
        ...(smtp_password_encrypted === undefined ? {} : { smtp_password_encrypted }),
        updated_at: now,
      })
      .where('id', '=', 1)
      .execute();
  }
}
