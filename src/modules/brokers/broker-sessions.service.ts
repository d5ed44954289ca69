/**
 * Each user's broker session: the access token from the broker login
 * (or `algodesk broker-session set`), stored only as AES-256-GCM ciphertext (SecretBox, purpose
 * `broker-token`) and decrypted in memory when an order needs it. Kept in a small cache, dropped
 * here and on every other instance (invalidation bus) when a session changes.
 */
import type { Clock } from '../../platform/clock.js';
import { SecretBox } from '../../platform/crypto.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { BrokerSession, LoginResult } from './broker-adapter.js';
import type { BrokerSessionsRepository } from './broker-sessions.repository.js';

export const BROKER_SESSION_TOPIC = 'broker-session';

/** A session with a refresh token is renewed in its last 5 minutes. */
export const RENEW_BEFORE_MS = 5 * 60_000;

export interface ActiveBrokerSession {
  broker: string;
  /** The broker app it was made with: 0 is the bootstrap app (`BROKER_*`). */
  appId: number;
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
  private preferred: () => string | undefined = () => undefined;
  private refresher: ((session: ActiveBrokerSession) => Promise<LoginResult> | undefined) | undefined;
  private readonly renewFailedAt = new Map<number, number>();
  /** One renewal per user at a time. */
  private readonly renewals = new Map<number, Promise<ActiveBrokerSession | undefined>>();

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

  /**
   * The broker whose newest session is the primary one (docs/rules/brokers.md#broker-apps): the
   * sandbox's broker prices and the feed's upstream follow it; unset, the newest of any broker.
   */
  preferBroker(broker: () => string | undefined): void {
    this.preferred = broker;
  }

  /** Reloads the newest session (start-up, and after any change). */
  async refreshPrimary(): Promise<void> {
    const row = await this.repo.latestBrokerSession(this.preferred());
    this.primary = row ? await this.read(row.user_id) : undefined;
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

  /**
   * Renews sessions about to lapse (docs/rules/brokers.md#broker-sessions): given the broker's
   * refresh call (Angel One's `generateTokens`), {@link get} renews a session with a refresh token
   * in its last {@link RENEW_BEFORE_MS} and stores the new tokens; a refused renewal leaves the
   * session to lapse (the user logs in again).
   */
  useRefresher(refresh: (session: ActiveBrokerSession) => Promise<LoginResult> | undefined): void {
    this.refresher = refresh;
  }

  /**
   * What {@link get} would answer, without I/O, when the cache knows it: the live session, or null
   * when there is none or it has expired; undefined when it must be read or is due for renewal.
   */
  cachedLive(userId: number): ActiveBrokerSession | null | undefined {
    const s = this.cache.get(userId);
    if (s === undefined) return undefined;
    if (s === null) return null;
    const now = this.clock.now();
    if (s.session.refreshToken && s.expiresAt !== null && s.expiresAt <= now + RENEW_BEFORE_MS)
      return undefined;
    return s.expiresAt === null || s.expiresAt > now ? s : null;
  }

  /** The user's live session, undefined when none or expired (renewed first when it can be). */
  async get(userId: number): Promise<ActiveBrokerSession | undefined> {
    const known = this.cachedLive(userId);
    if (known !== undefined) return known ?? undefined;
    const s = await this.read(userId);
    if (!s?.session.refreshToken || s.expiresAt === null || s.expiresAt > this.clock.now() + RENEW_BEFORE_MS)
      return s && (s.expiresAt === null || s.expiresAt > this.clock.now()) ? s : undefined;
    const renewal = this.renewals.get(userId) ?? this.renew(userId, s);
    this.renewals.set(userId, renewal);
    try {
      return await renewal;
    } finally {
      this.renewals.delete(userId);
    }
  }

  private async renew(userId: number, s: ActiveBrokerSession): Promise<ActiveBrokerSession | undefined> {
    const live = () => (s.expiresAt !== null && s.expiresAt > this.clock.now() ? s : undefined);
    // A refused renewal is not asked again for a minute (every order would ask otherwise).
    if ((this.renewFailedAt.get(userId) ?? -Infinity) > this.clock.now() - 60_000) return live();
    const call = this.refresher?.(s);
    if (!call) return live();
    try {
      const r = await call;
      await this.set(userId, s.broker, r.session, r.expiresAt, s.appId);
      this.renewFailedAt.delete(userId);
      return await this.read(userId);
    } catch {
      this.renewFailedAt.set(userId, this.clock.now());
      return live();
    }
  }

  /** The stored session (cached), expired or not. */
  private async read(userId: number): Promise<ActiveBrokerSession | undefined> {
    let s = this.cache.get(userId);
    if (s === undefined) {
      const row = await this.repo.getBrokerSession(userId);
      s = row
        ? {
            broker: row.broker,
            appId: row.broker_app_id ?? 0,
            session: {
              accessToken: this.open(row.access_token_encrypted, row.broker),
              ...(row.broker_user_id ? { brokerUserId: row.broker_user_id } : {}),
              ...(row.refresh_token_encrypted
                ? { refreshToken: this.open(row.refresh_token_encrypted, row.broker) }
                : {}),
              ...(row.feed_token_encrypted
                ? { feedToken: this.open(row.feed_token_encrypted, row.broker) }
                : {}),
            },
            expiresAt: row.expires_at,
          }
        : null;
      this.cache.set(userId, s);
    }
    return s ?? undefined;
  }

  /** The stored token in clear; a seal this install cannot open is an {@link UnreadableSessionError}. */
  private open(sealed: string, broker: string): string {
    try {
      return this.box.open(sealed);
    } catch {
      throw new UnreadableSessionError(broker);
    }
  }

  /** Stores a session (login, callback or CLI); every token is sealed before it is written. */
  async set(
    userId: number,
    broker: string,
    session: BrokerSession,
    expiresAt?: number,
    appId = 0,
  ): Promise<void> {
    await this.repo.saveBrokerSession({
      user_id: userId,
      broker,
      access_token_encrypted: this.box.seal(session.accessToken),
      broker_user_id: session.brokerUserId ?? null,
      expires_at: expiresAt ?? null,
      created_at: this.clock.now(),
      refresh_token_encrypted: session.refreshToken ? this.box.seal(session.refreshToken) : null,
      feed_token_encrypted: session.feedToken ? this.box.seal(session.feedToken) : null,
      broker_app_id: appId === 0 ? null : appId,
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
        appId: number;
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
      appId: row.broker_app_id ?? 0,
      brokerUserId: row.broker_user_id,
      connectedAt: Number(row.created_at),
      expiresAt,
      expired: expiresAt !== null && expiresAt <= this.clock.now(),
    };
  }

  /** Drops the user's cached session everywhere (its row was changed elsewhere: a broker app's choice or deletion). */
  forget(userId: number): Promise<void> {
    return this.changed(userId);
  }

  /** Drops the cached session here and everywhere; resolves once this instance has reloaded. */
  private async changed(userId: number): Promise<void> {
    this.cache.delete(userId);
    this.bus.publish(BROKER_SESSION_TOPIC, String(userId));
    await this.refreshing;
  }
}
