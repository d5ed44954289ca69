import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import {
  accountDisabled,
  invalidLoginTotp,
  loginTotpReplayed,
  tooManyRequests,
  totpLoginExpired,
  unauthorized,
} from '../../platform/errors.js';
import type { RateLimiter } from '../../platform/rate-limiter.js';
import type { RateRule } from '../../platform/rate-rule.js';
import type { LoginActivityRepository } from './login-activity.repository.js';
import type { NewSession, PendingTotpLogin, SessionsService } from './sessions.service.js';
import { isTotpRequired, TotpService } from './totp.service.js';
import type { UsersService } from './users.service.js';

/** One message for an unknown user and a wrong password: the response must not tell them apart. */
export const BAD_CREDENTIALS = 'Invalid username or password';

export interface LoginContext {
  ip: string;
  userAgent: string | undefined;
  /** Cookie value of a session the browser already holds; replaced on login (no fixation). */
  previousToken: string | undefined;
  /** Cookie value of an earlier pending two-factor login of this browser; ended on a new login. */
  previousPendingToken?: string | undefined;
}

/** A password login either opens a session or, when the login code is required, waits for it. */
export type LoginOutcome =
  { kind: 'session'; session: NewSession } | { kind: 'pending_totp'; pending: PendingTotpLogin };

export const PENDING_TOTP_GONE =
  'No two-factor login is pending, or it expired after 5 minutes; sign in with your password again';

/**
 * Password login: rate limit per client IP, verify, audit every attempt, open a session — or,
 * when TOTP is required for login, a pending two-factor login completed by {@link completeTotp}
 * (spec, "Login with TOTP").
 */
export class LoginService {
  private totpService: TotpService | undefined;

  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly activity: LoginActivityRepository,
    private readonly limiter: RateLimiter,
    private readonly rules: readonly RateRule[],
    private readonly clock: Clock,
    private readonly log: Logger,
    totp?: TotpService,
  ) {
    this.totpService = totp;
  }

  /**
   * The two-factor service login uses: the one passed to the constructor, else one built once
   * from this service's own dependencies (so the app works before app.ts passes one in).
   */
  totp(appKey: string): TotpService {
    return (this.totpService ??= new TotpService(this.users, this.sessions, this.clock, appKey));
  }

  async login(username: string, password: string, ctx: LoginContext): Promise<LoginOutcome> {
    await this.checkLimit(ctx.ip);
    const user = await this.users.authenticate(username, password);
    await this.activity.record({
      ts: this.clock.now(),
      ip: ctx.ip,
      username: username.trim().toLowerCase(),
      success: user !== undefined,
      userAgent: ctx.userAgent,
    });
    if (user === undefined) throw unauthorized(BAD_CREDENTIALS);
    if (user.disabled_at !== null) throw disabled();
    // A new login ends whatever the browser held (no fixation), pending or not.
    if (ctx.previousToken) await this.sessions.end(ctx.previousToken);
    if (ctx.previousPendingToken) await this.sessions.endPendingTotp(ctx.previousPendingToken);
    if (isTotpRequired(user, 'login')) {
      // No authenticated session yet: the browser gets a five-minute pending marker only.
      const pending = await this.sessions.createPendingTotp(user.id, ctx.ip, ctx.userAgent);
      return { kind: 'pending_totp', pending };
    }
    return { kind: 'session', session: await this.sessions.create(user.id, ctx.ip, ctx.userAgent) };
  }

  /**
   * `POST /auth/login/totp`: every attempt counts against the login rate limit (so a wrong code
   * does); a wrong or replayed code keeps the pending login; a pending login older than five
   * minutes is gone (401). Success ends the pending login (single use) and opens a session whose
   * two-factor marker is stamped. The broker session needs no resuming: it is stored per user
   * (`broker_sessions`) and read per order.
   */
  async completeTotp(pendingToken: string | undefined, code: string, ctx: LoginContext): Promise<NewSession> {
    await this.checkLimit(ctx.ip);
    const gone = () => totpLoginExpired(PENDING_TOTP_GONE);
    const pending = await this.sessions.resolvePendingTotp(pendingToken);
    if (pending === undefined || pendingToken === undefined) throw gone();
    const user = await this.users.findById(pending.user_id);
    if (user === undefined) throw gone();
    if (user.disabled_at !== null) throw disabled();
    if (this.totpService === undefined) throw new Error('LoginService: no TotpService configured');
    const result = await this.totpService.check(user, code);
    if (result !== 'ok') {
      await this.activity.record({
        ts: this.clock.now(),
        ip: ctx.ip,
        username: user.username,
        success: false,
        userAgent: ctx.userAgent,
      });
      throw result === 'replayed' ? loginTotpReplayed() : invalidLoginTotp();
    }
    if (!(await this.sessions.endPendingTotp(pendingToken))) throw gone();
    if (ctx.previousToken) await this.sessions.end(ctx.previousToken);
    return this.sessions.create(user.id, ctx.ip, ctx.userAgent, { totpVerifiedAt: this.clock.now() });
  }

  private async checkLimit(ip: string): Promise<void> {
    // Same rule as every limit: an outage of the limiter's store lets the attempt through
    // (argon2's cost still bounds guessing) instead of locking everyone out.
    const decision = await this.limiter.hit(`login:${ip}`, this.rules).catch((err: unknown) => {
      this.log.warn({ err }, 'rate limiter unavailable; login attempt allowed');
      return { allowed: true, retryAfterMs: 0 };
    });
    if (!decision.allowed) {
      throw tooManyRequests(
        'Too many login attempts; try again later',
        Math.ceil(decision.retryAfterMs / 1000),
      );
    }
  }
}

/** The password was right, but an administrator disabled the account. */
const disabled = () => accountDisabled('This account is disabled: ask an administrator to enable it');
