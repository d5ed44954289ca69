import { hash, verify } from '@node-rs/argon2';
import type { Clock } from '../../platform/clock.js';
import { fromDbBool } from '../../platform/db/database.js';
import { badRequest, setupDone, usernameTaken } from '../../platform/errors.js';
import type { TotpConfigWrite, UserRow, UsersRepository } from './users.repository.js';

export const MIN_PASSWORD_LENGTH = 8;
/** Argon2 cost grows with input; a bound keeps one request from buying minutes of CPU. */
export const MAX_PASSWORD_LENGTH = 1024;
const USERNAME = /^[a-z0-9][a-z0-9_.@-]{0,63}$/;
const EMAIL =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** What a user looks like outside the service: never a hash or a secret. */
export interface PublicUser {
  id: number;
  username: string;
  email: string | null;
  is_admin: boolean;
  order_mode: 'auto' | 'semi_auto';
  totp_enabled: boolean;
  /** An administrator disabled the account: it cannot sign in (docs/rules/auth.md#account-management). */
  disabled: boolean;
  created_at: string;
}

export function toPublicUser(row: UserRow): PublicUser {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    is_admin: fromDbBool(row.is_admin),
    order_mode: row.order_mode === 'semi_auto' ? 'semi_auto' : 'auto',
    totp_enabled: fromDbBool(row.totp_enabled),
    disabled: row.disabled_at !== null,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** Usernames are case-insensitive: stored and looked up lower-cased. */
export function normaliseUsername(raw: string): string {
  return raw.trim().toLowerCase();
}

/**
 * argon2id hash of a password nobody has, verified against when the username is unknown so a
 * failed login costs the same time whether or not the account exists.
 */
let dummyHash: Promise<string> | undefined;

export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly clock: Clock,
  ) {}

  async create(input: NewUserInput): Promise<PublicUser> {
    const { username, email } = checkNewUser(input);
    if (await this.users.findByUsername(username)) {
      throw usernameTaken(`username "${username}" is already taken`);
    }
    const passwordHash = await hash(input.password);
    try {
      const row = await this.users.create({
        username,
        email,
        passwordHash,
        createdAt: this.clock.now(),
        admin: input.admin === true,
      });
      return toPublicUser(row);
    } catch (err) {
      // A concurrent create of the same name loses on the unique index.
      if (await this.users.findByUsername(username)) {
        throw usernameTaken(`username "${username}" is already taken`);
      }
      throw err;
    }
  }

  /**
   * The first-run setup (docs/rules/auth.md#first-run-setup): creates the administrator with the
   * same rules as {@link create} (the CLI's), only while no user exists; 409 `setup_done` after.
   */
  async createFirst(input: NewUserInput): Promise<UserRow> {
    const { username, email } = checkNewUser(input);
    if ((await this.users.count()) > 0) throw setupIsDone();
    const passwordHash = await hash(input.password);
    const row = await this.users.createFirst({ username, email, passwordHash, createdAt: this.clock.now() });
    if (row === undefined) throw setupIsDone();
    return row;
  }

  /** The user when `password` is theirs, else undefined; constant work for unknown users. */
  async authenticate(usernameRaw: string, password: string): Promise<UserRow | undefined> {
    const username = normaliseUsername(usernameRaw);
    const row = username.length <= 64 ? await this.users.findByUsername(username) : undefined;
    if (password.length > MAX_PASSWORD_LENGTH) return undefined;
    if (row === undefined) {
      dummyHash ??= hash('algodesk-timing-equaliser');
      await verify(await dummyHash, password).catch(() => false);
      return undefined;
    }
    const ok = await verify(row.password_hash, password).catch(() => false);
    return ok ? row : undefined;
  }

  findById(id: number): Promise<UserRow | undefined> {
    return this.users.findById(id);
  }

  async findByUsername(usernameRaw: string): Promise<UserRow | undefined> {
    return this.users.findByUsername(normaliseUsername(usernameRaw));
  }

  async list(): Promise<PublicUser[]> {
    return (await this.users.list()).map(toPublicUser);
  }

  count(): Promise<number> {
    return this.users.count();
  }

  // Two-factor persistence, used by TotpService (totp.service.ts holds the rules).

  setPendingTotpSecret(userId: number, sealed: string): Promise<void> {
    return this.users.setPendingTotpSecret(userId, sealed);
  }

  consumeTotpStep(userId: number, step: number, sealedSecret: string): Promise<boolean> {
    return this.users.consumeTotpStep(userId, step, sealedSecret);
  }

  writeTotpConfig(userId: number, write: TotpConfigWrite): Promise<boolean> {
    return this.users.writeTotpConfig(userId, write);
  }
}

/** What a new user is created from (the CLI, the first-run setup, an administrator). */
export interface NewUserInput {
  username: string;
  password: string;
  email?: string | null;
  /** An administrator (ignored by the first-run setup, whose user always is one). */
  admin?: boolean;
}

const setupIsDone = () => setupDone('Setup is complete: a user exists already; sign in');

/** The rules every new user passes: name, password policy, e-mail; the normalised name and e-mail. */
function checkNewUser(input: NewUserInput): { username: string; email: string | null } {
  const username = normaliseUsername(input.username);
  if (!USERNAME.test(username)) {
    throw badRequest('username must be 1-64 characters: letters, digits, _ . @ -', {
      username: ['must be 1-64 characters: letters, digits, _ . @ -'],
    });
  }
  checkPassword(input.password);
  const email = input.email?.trim() ? input.email.trim() : null;
  if (email !== null && (email.length > 254 || !EMAIL.test(email))) {
    throw badRequest('email is not a valid address', { email: ['is not a valid address'] });
  }
  return { username, email };
}

/** Password policy: at least 8 characters, at most 1024. */
export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw badRequest(`password must be at least ${MIN_PASSWORD_LENGTH} characters`, {
      password: [`must be at least ${MIN_PASSWORD_LENGTH} characters`],
    });
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw badRequest(`password must be at most ${MAX_PASSWORD_LENGTH} characters`, {
      password: [`must be at most ${MAX_PASSWORD_LENGTH} characters`],
    });
  }
}
