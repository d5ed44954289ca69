/**
 * Managing accounts (docs/rules/auth.md#account-management): what an administrator does to other
 * users (create, make or unmake administrator, set a password, reset two-factor, disable, delete)
 * and what a user does to their own (change the password). The install always keeps an enabled
 * administrator; a user who lost their phone is recovered by an administrator or by the command
 * line on the server (there are no backup codes). Each change revokes what it must: a new password
 * ends the user's other sessions; disabling ends every session and revokes the API key and the
 * agents' tokens.
 */
import { hash, verify } from '@node-rs/argon2';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import {
  invalidTotp,
  lastAdmin,
  totpReplayed,
  totpRequired,
  userNotFound,
  wrongPassword,
} from '../../platform/errors.js';
import { fromDbBool } from '../../platform/db/database.js';
import type { ApiKeysService } from './api-keys.service.js';
import type { SessionsService } from './sessions.service.js';
import type { TotpService } from './totp.service.js';
import type { UserRow, UsersRepository } from './users.repository.js';
import {
  checkPassword,
  toPublicUser,
  type NewUserInput,
  type PublicUser,
  type UsersService,
} from './users.service.js';

/** What happened to an account that other modules clean up after. */
export type AccountGone = 'disabled' | 'deleted';

export interface AccountsDeps {
  users: UsersService;
  repo: UsersRepository;
  sessions: SessionsService;
  apiKeys: ApiKeysService;
  totp: () => TotpService;
  clock: Clock;
  logger: Logger;
}

const noSuchUser = () => userNotFound('No such user');
const keepAnAdmin = () =>
  lastAdmin('The install must keep an enabled administrator: make another user an administrator first');

export class AccountsService {
  private readonly goneListeners: ((userId: number, why: AccountGone) => Promise<void>)[] = [];

  constructor(private readonly deps: AccountsDeps) {}

  /**
   * Another module's clean-up when an account is disabled or deleted (the agents' tokens, the
   * sandbox account): run after the change is committed, in registration order.
   */
  onAccountGone(fn: (userId: number, why: AccountGone) => Promise<void>): void {
    this.goneListeners.push(fn);
  }

  private async gone(userId: number, why: AccountGone): Promise<void> {
    for (const fn of this.goneListeners) await fn(userId, why);
  }

  private async user(userId: number): Promise<UserRow> {
    const row = await this.deps.users.findById(userId);
    if (row === undefined) throw noSuchUser();
    return row;
  }

  /** A user created by an administrator (or the command line), an administrator when asked. */
  create(input: NewUserInput & { admin?: boolean }): Promise<PublicUser> {
    return this.deps.users.create(input);
  }

  /** Makes the user an administrator, or not; never the last enabled one. */
  async setAdmin(userId: number, admin: boolean): Promise<PublicUser> {
    await this.user(userId);
    await this.deps.repo.keepingAnAdmin((trx) => trx.setAdmin(userId, admin), keepAnAdmin);
    // The API key carries the administrator flag: its cached principal is dropped everywhere.
    await this.deps.apiKeys.refresh(userId);
    this.deps.logger.info({ userId, admin }, 'account: administrator flag changed');
    return toPublicUser(await this.user(userId));
  }

  /** Sets a password chosen by an administrator (or on the server); every session of the user ends. */
  async setPassword(userId: number, password: string): Promise<void> {
    checkPassword(password);
    await this.user(userId);
    await this.deps.repo.setPasswordHash(userId, await hash(password));
    await this.deps.sessions.revokeAllForUser(userId);
    this.deps.logger.info({ userId }, 'account: password set by an administrator; sessions revoked');
  }

  /** Turns two-factor off and forgets its secret (a lost phone): the user enrols again at will. */
  async resetTwoFactor(userId: number): Promise<PublicUser> {
    await this.user(userId);
    await this.deps.repo.clearTotp(userId);
    this.deps.logger.info({ userId }, 'account: two-factor reset by an administrator');
    return toPublicUser(await this.user(userId));
  }

  /**
   * Disables (or enables again) the account. Disabled, it keeps its data but cannot sign in, and
   * its sessions, API key and agents' tokens are revoked; enabled again, it signs in as before and
   * issues a new API key. Never the last enabled administrator.
   */
  async setDisabled(userId: number, disabled: boolean): Promise<PublicUser> {
    await this.user(userId);
    const at = disabled ? this.deps.clock.now() : null;
    await this.deps.repo.keepingAnAdmin((trx) => trx.setDisabled(userId, at), keepAnAdmin);
    if (disabled) {
      await this.deps.sessions.revokeAllForUser(userId);
      await this.deps.apiKeys.revoke(userId);
      await this.gone(userId, 'disabled');
    }
    this.deps.logger.info({ userId, disabled }, 'account: disabled flag changed');
    return toPublicUser(await this.user(userId));
  }

  /** Deletes the account and what belongs to it; never the last enabled administrator. */
  async delete(userId: number): Promise<void> {
    await this.user(userId);
    await this.deps.apiKeys.revoke(userId);
    await this.deps.repo.keepingAnAdmin(async (trx) => {
      if (!(await trx.delete(userId))) throw noSuchUser();
    }, keepAnAdmin);
    await this.gone(userId, 'deleted');
    this.deps.logger.info({ userId }, 'account: deleted');
  }

  /**
   * A user's own password change (docs/rules/auth.md#account-management): the current password,
   * and a fresh authenticator code when two-factor is on; every other session of the user ends
   * (the one making the change stays).
   */
  async changeOwnPassword(
    userId: number,
    sessionId: string,
    input: { current: string; next: string; totpCode?: string | undefined },
  ): Promise<{ sessions_revoked: number }> {
    const row = await this.user(userId);
    checkPassword(input.next);
    const ok = await verify(row.password_hash, input.current).catch(() => false);
    if (!ok)
      throw wrongPassword('The current password is not right', {
        current_password: ['is not the current password'],
      });
    if (fromDbBool(row.totp_enabled)) {
      if (!input.totpCode)
        throw totpRequired('Two-factor is on: enter a code from your authenticator', {
          totp_code: ['is required while two-factor is on'],
        });
      const checked = await this.deps.totp().check(row, input.totpCode);
      if (checked === 'replayed')
        throw totpReplayed('That code was used already: wait for the next one', {
          totp_code: ['was used already'],
        });
      if (checked !== 'ok') throw invalidTotp('The authenticator code is wrong', { totp_code: ['is wrong'] });
    }
    await this.deps.repo.setPasswordHash(userId, await hash(input.next));
    const revoked = await this.deps.sessions.revokeAllForUser(userId, sessionId);
    this.deps.logger.info(
      { userId, revoked },
      'account: password changed by its user; other sessions revoked',
    );
    return { sessions_revoked: revoked };
  }
}
