/**
 * Each user's broker session: the access token from the broker login
 * (or `algodesk broker-session set`), stored only as AES-256-GCM ciphertext (SecretBox, purpose
 * `broker-token`) and decrypted in memory when an order needs it. Kept in a small cache, dropped
 * here and on every other instance (invalidation bus) when a session changes.
 */
import type { Clock } from '../../platform/clock.js';
import { SecretBox } from '../../platform/crypto.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { BrokerSession } from './broker-adapter.js';
import type { BrokerSessionsRepository } from './broker-sessions.repository.js';

export const BROKER_SESSION_TOPIC = 'broker-session';

export interface ActiveBrokerSession {
  broker: string;
  session: BrokerSession;
  expiresAt: number | null;
}

/**
 * A stored broker session whose token this install cannot decrypt (sealed under another
 * `APP_KEY`: a restore without install-secrets.json, a changed key). The user must log in to the
 * broker again; the message names no secret.
 */
export class UnreadableSessionError extends Error {
  constructor(readonly broker: string) {
    super(`the stored ${broker} session cannot be decrypted with this install's APP_KEY`);
    this.name = 'UnreadableSessionError';
  }
}

export class BrokerSessionsService {
  private readonly box: SecretBox;
  private readonly cache = new Map<number, ActiveBrokerSession | null>();
  /** The newest session of any user: what the sandbox's broker quotes run under. */
  private primary: ActiveBrokerSession | undefined;
  /** Whose session {@link primary} is. */
  private primaryUser: number | undefined;
  private refreshing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: BrokerSessionsRepository,
    appKey: string,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
  ) {
    this.box = new SecretBox(appKey, 'broker-token');
    bus.subscribe(BROKER_SESSION_TOPIC, (key) => {
      this.cache.delete(Number(key));
      this.refreshing = this.refreshing.then(() => this.refreshPrimary()).catch(() => undefined);
    });
  }

  /** Reloads the newest session (start-up, and after any change). */
  async refreshPrimary(): Promise<void> {
    const row = await this.repo.latestBrokerSession();
    this.primary = row ? await this.get(row.user_id) : undefined;
    this.primaryUser = this.primary ? row?.user_id : undefined;
  }

  /** The newest live session and its broker, without I/O (undefined when none or expired). */
  primarySession(): ActiveBrokerSession | undefined {
    const p = this.primary;
    return p && (p.expiresAt === null || p.expiresAt > this.clock.now()) ? p : undefined;
  }

  /** The user whose session {@link primarySession} is (the live feed's order updates are theirs). */
  primaryUserId(): number | undefined {
    return this.primarySession() ? this.primaryUser : undefined;
  }

  /** The user's live session, undefined when none or expired. */
  async get(userId: number): Promise<ActiveBrokerSession | undefined> {
    let s = this.cache.get(userId);
    if (s === undefined) {
      const row = await this.repo.getBrokerSession(userId);
      s = row
        ? {
            broker: row.broker,
            session: {
              accessToken: this.open(row.access_token_encrypted, row.broker),
              ...(row.broker_user_id ? { brokerUserId: row.broker_user_id } : {}),
            },
            expiresAt: row.expires_at,
          }
        : null;
      this.cache.set(userId, s);
    }
    if (!s || (s.expiresAt !== null && s.expiresAt <= this.clock.now())) return undefined;
    return s;
  }

  /** The stored token in clear; a seal this install cannot open is an {@link UnreadableSessionError}. */
  private open(sealed: string, broker: string): string {
    try {
      return this.box.open(sealed);
    } catch {
      throw new UnreadableSessionError(broker);
    }
  }

  /** Stores a session (login callback or CLI); the token is sealed before it is written. */
  async set(userId: number, broker: string, session: BrokerSession, expiresAt?: number): Promise<void> {
    await this.repo.saveBrokerSession({
      user_id: userId,
      broker,
      access_token_encrypted: this.box.seal(session.accessToken),
      broker_user_id: session.brokerUserId ?? null,
      expires_at: expiresAt ?? null,
      created_at: this.clock.now(),
    });
    await this.changed(userId);
  }

  async clear(userId: number): Promise<void> {
    await this.repo.deleteBrokerSession(userId);
    await this.changed(userId);
  }

  /** Broker name and expiry for display (never the token). */
  async status(userId: number): Promise<{ broker: string; expires_at: number | null } | null> {
    const s = await this.get(userId);
    return s ? { broker: s.broker, expires_at: s.expiresAt } : null;
  }

  /**
   * The stored session as the `/broker` page shows it, expired or not (never the token): its
   * broker, the broker's user id, when it was made and when it lapses.
   */
  async describe(userId: number): Promise<
    | {
        broker: string;
        brokerUserId: string | null;
        connectedAt: number;
        expiresAt: number | null;
        expired: boolean;
      }
    | undefined
  > {
    const row = await this.repo.getBrokerSession(userId);
    if (!row) return undefined;
    const expiresAt = row.expires_at === null ? null : Number(row.expires_at);
    return {
      broker: row.broker,
      brokerUserId: row.broker_user_id,
      connectedAt: Number(row.created_at),
      expiresAt,
      expired: expiresAt !== null && expiresAt <= this.clock.now(),
    };
  }

  /** Drops the cached session here and everywhere; resolves once this instance has reloaded. */
  private async changed(userId: number): Promise<void> {
    this.cache.delete(userId);
    this.bus.publish(BROKER_SESSION_TOPIC, String(userId));
    await this.refreshing;
  }
}
