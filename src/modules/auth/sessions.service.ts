import type { Clock } from '../../platform/clock.js';
import { randomToken, sha256Hex } from '../../platform/crypto.js';
import type { SessionRow, SessionsRepository } from './sessions.repository.js';

/** `last_seen_at` is written at most this often, so reading pages does not write on every request. */
const TOUCH_INTERVAL_MS = 60_000;

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

  async create(userId: number, ip: string, userAgent: string | undefined): Promise<NewSession> {
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
      totp_verified_at: null,
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

  revokeAllForUser(userId: number): Promise<number> {
    return this.sessions.deleteForUser(userId);
  }

  listActive() {
    return this.sessions.listActive(this.clock.now(), this.limits.idleMs);
  }

  purgeExpired(): Promise<number> {
    return this.sessions.deleteExpired(this.clock.now(), this.limits.idleMs);
  }
}
