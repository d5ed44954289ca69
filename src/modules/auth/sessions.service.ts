import type { Clock } from '../../platform/clock.js';
import { randomToken, sha256Hex } from '../../platform/crypto.js';
import type { PendingTotpLoginRow, SessionRow, SessionsRepository } from './sessions.repository.js';
import { PENDING_TOTP_LOGIN_MS } from '../../domain/limits.js';

/** `last_seen_at` is written at most this often, so reading pages does not write on every request. */
const TOUCH_INTERVAL_MS = 60_000;

export interface PendingTotpLogin {
  /** The pending cookie's value: shown to the browser, never stored. */
  token: string;
  expiresAt: number;
}

export interface NewSession {
  /** The cookie value: shown to the browser, never stored. */
  token: string;
  csrfToken: string;
  row: SessionRow;
}

/**
 * Server-side sessions: the cookie holds a random token, the table holds its SHA-256 and the
 * state. A session dies at its absolute expiry, after `idleMs` without a request, or when revoked
 * (row deleted), and every session route checks that at every request.
 */
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly clock: Clock,
    private readonly limits: { idleMs: number; maxMs: number },
  ) {}

  /**
   * Opens a session. `totpVerifiedAt` stamps the two-factor marker at once (a login completed
   * with a code).
   */
  async create(
    userId: number,
    ip: string,
    userAgent: string | undefined,
    opts: { totpVerifiedAt?: number } = {},
  ): Promise<NewSession> {
    const now = this.clock.now();
    const token = randomToken(32);
    const csrfToken = randomToken(32);
    const row: SessionRow = {
      id: sha256Hex(token),
      user_id: userId,
      csrf_token: csrfToken,
      created_at: now,
      last_seen_at: now,
      expires_at: now + this.limits.maxMs,
      ip,
      user_agent: userAgent?.slice(0, 512) ?? null,
      totp_verified_at: opts.totpVerifiedAt ?? null,
    };
    await this.sessions.insert(row);
    return { token, csrfToken, row };
  }

  /** The live session for a cookie value, or undefined (unknown, revoked, idle or expired). */
  async resolve(token: string | undefined): Promise<SessionRow | undefined> {
    if (token === undefined || token.length === 0 || token.length > 128) return undefined;
    const id = sha256Hex(token);
    const row = await this.sessions.find(id);
    if (row === undefined) return undefined;
    const now = this.clock.now();
    if (row.expires_at <= now || row.last_seen_at <= now - this.limits.idleMs) {
      await this.sessions.delete(id);
      return undefined;
    }
    if (now - row.last_seen_at >= TOUCH_INTERVAL_MS) {
      await this.sessions.touch(id, now);
      row.last_seen_at = now;
    }
    return row;
  }

  /** Ends the session of a cookie value (logout). */
  async end(token: string): Promise<void> {
    await this.sessions.delete(sha256Hex(token));
  }

  /** Revokes a session by its stored id (the security dashboard's revoke). */
  revokeById(id: string): Promise<boolean> {
    return this.sessions.delete(id);
  }

  /** Revokes every session of the user, but the one of id `keep` when given. */
  revokeAllForUser(userId: number, keep?: string): Promise<number> {
    return this.sessions.deleteForUser(userId, keep);
  }

  listActive() {
    return this.sessions.listActive(this.clock.now(), this.limits.idleMs);
  }

  /** Stamps the session's two-factor marker with the current time; returns that time. */
  async stampTotp(sessionId: string): Promise<number> {
    const now = this.clock.now();
    await this.sessions.stampTotp(sessionId, now);
    return now;
  }

  /** The session's two-factor marker as stored now (null: never; undefined: no such session). */
  totpVerifiedAt(sessionId: string): Promise<number | null | undefined> {
    return this.sessions.totpVerifiedAt(sessionId);
  }

  /**
   * Records a correct password whose login still needs a code (spec, "Login with TOTP": pending
   * TOTP, no authenticated session). Valid for {@link PENDING_TOTP_LOGIN_MS}.
   */
  async createPendingTotp(
    userId: number,
    ip: string,
    userAgent: string | undefined,
  ): Promise<PendingTotpLogin> {
    const now = this.clock.now();
    const token = randomToken(32);
    const expiresAt = now + PENDING_TOTP_LOGIN_MS;
    await this.sessions.insertPendingTotp({
      id: sha256Hex(token),
      user_id: userId,
      created_at: now,
      expires_at: expiresAt,
      ip,
      user_agent: userAgent?.slice(0, 512) ?? null,
    });
    return { token, expiresAt };
  }

  /** The live pending login of a cookie value; an expired one is deleted ("flow no longer valid"). */
  async resolvePendingTotp(token: string | undefined): Promise<PendingTotpLoginRow | undefined> {
    if (token === undefined || token.length === 0 || token.length > 128) return undefined;
    const id = sha256Hex(token);
    const row = await this.sessions.findPendingTotp(id);
    if (row === undefined) return undefined;
    if (row.expires_at <= this.clock.now()) {
      await this.sessions.deletePendingTotp(id);
      return undefined;
    }
    return row;
  }

  /** Ends a pending login; true only for the caller that ended it (single use). */
  endPendingTotp(token: string): Promise<boolean> {
    return this.sessions.deletePendingTotp(sha256Hex(token));
  }

  /** Deletes expired sessions (the count returned) and expired pending two-factor logins. */
  async purgeExpired(): Promise<number> {
    const now = this.clock.now();
    await this.sessions.deleteExpiredPendingTotp(now);
    return this.sessions.deleteExpired(now, this.limits.idleMs);
  }
}
