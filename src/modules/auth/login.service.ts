import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { tooManyRequests, unauthorized } from '../../platform/errors.js';
import type { RateLimiter } from '../../platform/rate-limiter.js';
import type { RateRule } from '../../platform/rate-rule.js';
import type { LoginActivityRepository } from './login-activity.repository.js';
import type { NewSession, SessionsService } from './sessions.service.js';
import type { UsersService } from './users.service.js';

/** One message for an unknown user and a wrong password: the response must not tell them apart. */
export const BAD_CREDENTIALS = 'Invalid username or password';

export interface LoginContext {
  ip: string;
  userAgent: string | undefined;
  /** Cookie value of a session the browser already holds; replaced on login (no fixation). */
  previousToken: string | undefined;
}

/** Password login: rate limit per client IP, verify, audit every attempt, open a session. */
export class LoginService {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly activity: LoginActivityRepository,
    private readonly limiter: RateLimiter,
    private readonly rules: readonly RateRule[],
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  async login(username: string, password: string, ctx: LoginContext): Promise<NewSession> {
    // Same rule as every limit: an outage of the limiter's store lets the attempt through
    // (argon2's cost still bounds guessing) instead of locking everyone out.
    const decision = await this.limiter.hit(`login:${ctx.ip}`, this.rules).catch((err: unknown) => {
      this.log.warn({ err }, 'rate limiter unavailable; login attempt allowed');
      return { allowed: true, retryAfterMs: 0 };
    });
    if (!decision.allowed) {
      throw tooManyRequests(
        'Too many login attempts; try again later',
        Math.ceil(decision.retryAfterMs / 1000),
      );
    }
    const user = await this.users.authenticate(username, password);
    await this.activity.record({
      ts: this.clock.now(),
      ip: ctx.ip,
      username: username.trim().toLowerCase(),
      success: user !== undefined,
      userAgent: ctx.userAgent,
    });
    if (user === undefined) throw unauthorized(BAD_CREDENTIALS);
    if (ctx.previousToken) await this.sessions.end(ctx.previousToken);
    return this.sessions.create(user.id, ctx.ip, ctx.userAgent);
  }
}
