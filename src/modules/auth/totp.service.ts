import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Clock } from '../../platform/clock.js';
import { SecretBox } from '../../platform/crypto.js';
import { fromDbBool } from '../../platform/db/database.js';
import {
  freshTotpRequired,
  invalidTotp,
  totpEnabled,
  totpNotEnrolled,
  totpReplayed,
  unauthorized,
} from '../../platform/errors.js';
import type { SessionsService } from './sessions.service.js';
import type { UserRow } from './users.repository.js';
import type { UsersService } from './users.service.js';
import { FRESH_TOTP_MS } from '../../domain/limits.js';

/**
 * RFC 6238 parameters: HMAC-SHA-1, 30-second steps, 6 digits — what every authenticator app
 * assumes. A code of the previous or the next step is also accepted (window ±1 step, i.e. up to
 * ~30 s of clock drift either way); two steps away is refused.
 */
export const TOTP_ALGORITHM = 'SHA1';
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
export const TOTP_WINDOW_STEPS = 1;
/** Purpose of the SecretBox key that seals TOTP secrets (HKDF sub-key of APP_KEY). */
export const TOTP_SECRET_PURPOSE = 'totp-secret';

const CODE = /^[0-9]{6}$/;

/** What a two-factor check protects; each has its own flag on the user. */
export type TotpPurpose = 'login' | 'mcp' | 'password_reset';

/** Outcome of checking one submitted code. */
export type TotpCheck = 'ok' | 'invalid' | 'replayed';

type TotpFlags = Pick<
  UserRow,
  'totp_enabled' | 'totp_required_for_login' | 'totp_required_for_mcp' | 'totp_required_for_password_reset'
>;

/**
 * docs/rules/auth.md#effective-totp-flags: a purpose is required only while the master switch is
 * on; with the master off the answer is false for every purpose, whatever its flag says.
 */
export function isTotpRequired(user: TotpFlags, purpose: TotpPurpose): boolean {
  if (!fromDbBool(user.totp_enabled)) return false;
  switch (purpose) {
    case 'login':
      return fromDbBool(user.totp_required_for_login);
    case 'mcp':
      return fromDbBool(user.totp_required_for_mcp);
    case 'password_reset':
      return fromDbBool(user.totp_required_for_password_reset);
  }
}

/** True when an OAuth-style scope (space-separated string or list) asks for write access. */
export function isWriteScope(scope: string | readonly string[]): boolean {
  const parts = typeof scope === 'string' ? scope.split(/\s+/) : scope;
  return parts.some((s) => s === 'write' || s.startsWith('write:') || s.endsWith(':write'));
}

/** The session a two-factor action runs in (the guard's SessionContext satisfies it). */
export interface TotpSessionRef {
  userId: number;
  sessionId: string;
}

export interface TotpStatus {
  status: 'success';
  totp_enabled: boolean;
  totp_required_for_login: boolean;
  totp_required_for_mcp: boolean;
  totp_required_for_password_reset: boolean;
  /** This browser session's marker (docs/rules/auth.md#session-totp-marker), ISO-8601 UTC, or null. */
  last_totp_verified_at: string | null;
}

export interface TotpEnrollment {
  status: 'success';
  otpauth_uri: string;
  /** `data:image/svg+xml;base64,…` of the provisioning URI. */
  qr_code: string;
  /** Base32 secret for manual entry (the same one the URI carries). */
  secret: string;
}

export interface TotpConfigureInput {
  totp_code: string;
  enabled: boolean;
  required_for_login: boolean;
  required_for_mcp: boolean;
  required_for_password_reset: boolean;
}

/**
 * Two-factor codes (docs/rules/auth.md#totp-codes). Secrets are sealed with SecretBox; a code is
 * accepted once: the step it matched must be later than the user's `totp_last_step`, written by
 * a compare-and-set in the database so the rule holds across instances. No backup codes
 * (docs/rules/auth.md#no-backup-codes). Secrets, URIs and codes never go to a log line or an
 * error message.
 */
export class TotpService {
  private readonly box: SecretBox;

  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly clock: Clock,
    appKey: string,
    private readonly issuer = 'algodesk',
  ) {
    this.box = new SecretBox(appKey, TOTP_SECRET_PURPOSE);
  }

  isRequired(user: TotpFlags, purpose: TotpPurpose): boolean {
    return isTotpRequired(user, purpose);
  }

  /**
   * `GET /auth/2fa/status`: effective flags (docs/rules/auth.md#effective-totp-flags) and this
   * session's marker.
   */
  async status(userId: number, marker: number | null): Promise<TotpStatus> {
    const user = await this.user(userId);
    return {
      status: 'success',
      totp_enabled: fromDbBool(user.totp_enabled),
      totp_required_for_login: isTotpRequired(user, 'login'),
      totp_required_for_mcp: isTotpRequired(user, 'mcp'),
      totp_required_for_password_reset: isTotpRequired(user, 'password_reset'),
      last_totp_verified_at: marker === null ? null : new Date(marker).toISOString(),
    };
  }

  /**
   * Starts an enrollment: a new random 160-bit secret is stored as the *pending* secret; it
   * becomes active only through {@link configure} with a code from it. Refused while two-factor
   * is on, so a stolen session cannot swap the authenticator without a current code.
   */
  async beginEnrollment(userId: number): Promise<TotpEnrollment> {
    const user = await this.user(userId);
    if (fromDbBool(user.totp_enabled)) {
      throw totpEnabled(
        'Two-factor is on: turn it off with a current code before enrolling another authenticator',
      );
    }
    const secret = new Secret({ size: 20 });
    await this.users.setPendingTotpSecret(userId, this.box.seal(secret.base32));
    const uri = this.totp(secret, user.username).toString();
    const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return {
      status: 'success',
      otpauth_uri: uri,
      qr_code: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
      secret: secret.base32,
    };
  }

  /**
   * `POST /auth/2fa/configure` (docs/rules/auth.md#totp-change-needs-a-code): a valid current code
   * is required, also to disable.
   * The code is checked against the pending secret while enrolling (master off and a pending
   * secret present), else the active one. One UPDATE writes every flag, the step and (when an
   * enrollment is confirmed) the secret; disabling the master clears every purpose flag in it.
   * Success restamps the session's marker.
   */
  async configure(session: TotpSessionRef, input: TotpConfigureInput): Promise<TotpStatus> {
    const user = await this.user(session.userId);
    const enrolling = !fromDbBool(user.totp_enabled) && user.totp_pending_secret !== null;
    const checkedSecret = enrolling ? user.totp_pending_secret : user.totp_secret;
    if (checkedSecret === null) {
      throw totpNotEnrolled('No authenticator is set up: start with POST /auth/2fa/setup');
    }
    const step = this.matchStep(checkedSecret, input.totp_code);
    if (step === null) throw invalidTotp();
    const on = input.enabled;
    const written = await this.users.writeTotpConfig(user.id, {
      enabled: on,
      requiredForLogin: on && input.required_for_login,
      requiredForMcp: on && input.required_for_mcp,
      requiredForPasswordReset: on && input.required_for_password_reset,
      step,
      checkedColumn: enrolling ? 'totp_pending_secret' : 'totp_secret',
      checkedSecret,
      promotePending: enrolling && on,
    });
    if (!written) throw totpReplayed();
    const marker = await this.sessions.stampTotp(session.sessionId);
    return this.status(user.id, marker);
  }

  /**
   * Checks a code against the user's active secret (two-factor must be on) and consumes its step.
   * Used by the login completion and the password-reset path.
   */
  async check(user: UserRow, code: string): Promise<TotpCheck> {
    if (!fromDbBool(user.totp_enabled) || user.totp_secret === null) return 'invalid';
    const step = this.matchStep(user.totp_secret, code);
    if (step === null) return 'invalid';
    return (await this.users.consumeTotpStep(user.id, step, user.totp_secret)) ? 'ok' : 'replayed';
  }

  /**
   * A code entered on a page of an open session (the remote-agent consent page,
   * docs/rules/auth.md#consent-needs-fresh-code): verified and consumed, then the session's marker
   * is restamped. Throws 400 on a wrong or replayed code; returns the new marker.
   */
  async verifyConsentCode(session: TotpSessionRef, code: string): Promise<number> {
    const result = await this.check(await this.user(session.userId), code);
    if (result === 'invalid') throw invalidTotp();
    if (result === 'replayed') throw totpReplayed();
    return this.sessions.stampTotp(session.sessionId);
  }

  /**
   * docs/rules/auth.md#consent-needs-fresh-code: when write scope is requested and TOTP is required
   * for the purpose (`mcp`), the session must hold a code verified within the last 60 seconds.
   * The marker is read from the database, so a code verified on another instance counts.
   * Throws 403 `totp_required` otherwise.
   */
  async requireFreshTotp(
    session: TotpSessionRef,
    purpose: TotpPurpose,
    scope: string | readonly string[],
  ): Promise<void> {
    if (!isWriteScope(scope)) return;
    if (!isTotpRequired(await this.user(session.userId), purpose)) return;
    const marker = await this.sessions.totpVerifiedAt(session.sessionId);
    if (marker === null || marker === undefined || this.clock.now() - marker > FRESH_TOTP_MS) {
      throw freshTotpRequired('Write access needs an authenticator code verified within the last 60 seconds');
    }
  }

  /** The RFC 6238 step a code matches within ±1 step of now, or null. */
  private matchStep(sealed: string, code: string): number | null {
    if (!CODE.test(code)) return null;
    const now = this.clock.now();
    const delta = TOTP.validate({
      token: code,
      secret: Secret.fromBase32(this.box.open(sealed)),
      algorithm: TOTP_ALGORITHM,
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_SECONDS,
      timestamp: now,
      window: TOTP_WINDOW_STEPS,
    });
    return delta === null ? null : TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: now }) + delta;
  }

  private totp(secret: Secret, label: string): TOTP {
    return new TOTP({
      issuer: this.issuer,
      label,
      secret,
      algorithm: TOTP_ALGORITHM,
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_SECONDS,
    });
  }

  private async user(userId: number): Promise<UserRow> {
    const user = await this.users.findById(userId);
    if (user === undefined) throw unauthorized('Session expired or not logged in');
    return user;
  }
}
