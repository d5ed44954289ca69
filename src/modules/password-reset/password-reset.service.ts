/**
 * Password reset (docs/rules/auth.md#password-reset-paths).
 *
 * One route, `POST /auth/reset-password`, in steps (the OpenAlgo wire shape, field `step`):
 * - `email` `{email}`: always the same answer; nothing is stored.
 * - `select_totp`: the authenticator method; always the same answer.
 * - `select_email` `{email}`: mails a link `HOST_SERVER/auth/reset-password-email/<token>` when
 *   the address belongs to an account, the same answer when it does not. Refused (400
 *   `totp_required`, pointing to the authenticator) when the account requires TOTP for password
 *   reset, and for everyone when no mail server is configured.
 * - `totp` `{email, totp_code}`: a correct, unused code of that account's authenticator gives a
 *   reset token in the response; an unknown address and a wrong code get the same 400.
 * - `password` `{token, password[, email, confirm_password]}`: spends the token (single use,
 *   15 minutes), stores the new hash and ends every session of the user, in one transaction.
 *
 * Tokens are 32 random bytes (base64url, 43 characters); only their SHA-256 is stored, so the
 * mailed link works in any browser and no session carries reset state. The link's origin is
 * `HOST_SERVER`, never the request's Host header (a forged Host cannot redirect the link).
 */
import { hash } from '@node-rs/argon2';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { randomToken, sha256Hex } from '../../platform/crypto.js';
import {
  badRequest,
  emailResetUnavailable,
  invalidResetToken,
  invalidTotp,
  totpReplayed,
  totpRequired,
} from '../../platform/errors.js';
import { isEmailAddress } from '../mail/mail-settings.service.js';
import type { MailService } from '../mail/mail.service.js';
import type { PasswordResetRepository, PasswordResetRow } from './password-reset.repository.js';
import { isTotpRequired, type TotpService } from '../auth/totp.service.js';
import { checkPassword } from '../auth/users.service.js';

/** Lifetime of a reset token, mailed or issued after a code. */
export const RESET_TOKEN_TTL_MS = 15 * 60_000;
/** Path of the mailed link; the token follows. */
export const RESET_LINK_PATH = '/auth/reset-password-email/';
/** A token as handed out: 32 random bytes in base64url. */
export const RESET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const RESET_STEPS = ['email', 'select_totp', 'select_email', 'totp', 'password'] as const;
export type ResetStep = (typeof RESET_STEPS)[number];

export interface ResetInput {
  step: ResetStep;
  email?: string | undefined;
  totp_code?: string | undefined;
  token?: string | undefined;
  password?: string | undefined;
  confirm_password?: string | undefined;
}

export interface ResetResult {
  status: 'success';
  message: string;
  method?: 'totp' | 'email';
  /** The reset token, only in the answer to a correct `totp` step. */
  token?: string;
}

export const INVALID_RESET_TOKEN = 'Invalid or expired reset token. Start the password reset again.';
export const TOTP_REQUIRED_FOR_RESET =
  'This account requires the authenticator app for password reset: choose "Authenticator app" and enter its code.';
const EMAIL_UNAVAILABLE =
  'E-mail reset is not available: no mail server is configured. Use the authenticator app.';

const invalidToken = () => invalidResetToken(INVALID_RESET_TOKEN);

export interface PasswordResetDeps {
  repo: PasswordResetRepository;
  totp: TotpService;
  mail: MailService;
  clock: Clock;
  /** `config.hostServer`: the origin of the mailed link. */
  hostServer: string;
  logger: Logger;
  /** Product name in the mail. */
  serviceName?: string;
}

export class PasswordResetService {
  constructor(private readonly deps: PasswordResetDeps) {}

  async step(input: ResetInput, ctx: { ip: string }): Promise<ResetResult> {
    switch (input.step) {
      case 'email':
        requireEmail(input.email);
        // The same answer whether or not the address is known: nothing is looked up.
        return { status: 'success', message: 'Choose how to verify: authenticator app or e-mail link.' };
      case 'select_totp':
        return { status: 'success', method: 'totp', message: 'Enter the code from your authenticator app.' };
      case 'select_email':
        return this.selectEmail(requireEmail(input.email), ctx.ip);
      case 'totp':
        return this.verifyTotp(requireEmail(input.email), input.totp_code, ctx.ip);
      case 'password':
        return this.setPassword(input);
    }
  }

  /**
   * The mailed link's token, checked without spending it (a mail scanner that prefetches the
   * link must not use it up). Undefined when unknown, spent, expired or not a link token.
   */
  async peekLink(token: string): Promise<PasswordResetRow | undefined> {
    const row = await this.live(token);
    return row?.method === 'email' ? row : undefined;
  }

  /** Deletes expired tokens (the periodic purge). */
  purgeExpired(): Promise<number> {
    return this.deps.repo.deleteExpired(this.deps.clock.now());
  }

  private async selectEmail(email: string, ip: string): Promise<ResetResult> {
    const user = await this.deps.repo.findUserByEmail(email);
    // docs/rules/auth.md#password-reset-paths: the account's own choice closes the e-mail path; it
    // is sent to the authenticator.
    if (user !== undefined && isTotpRequired(user, 'password_reset')) {
      throw totpRequired(TOTP_REQUIRED_FOR_RESET);
    }
    if (!(await this.deps.mail.isConfigured())) throw emailResetUnavailable(EMAIL_UNAVAILABLE);
    if (user !== undefined && user.email !== null) {
      const token = await this.issue(user.id, 'email', ip);
      const link = `${this.deps.hostServer}${RESET_LINK_PATH}${token}`;
      // Off the request path: the answer and its timing do not depend on the mail server.
      this.deps.mail.sendLater(
        resetMail(user.email, user.username, link, this.deps.serviceName),
        'password-reset',
      );
      this.deps.logger.info({ reset: { userId: user.id, method: 'email' } }, 'password reset link issued');
    }
    return {
      status: 'success',
      method: 'email',
      message: 'If an account uses this address, a reset link valid for 15 minutes has been sent to it.',
    };
  }

  private async verifyTotp(email: string, code: string | undefined, ip: string): Promise<ResetResult> {
    if (code === undefined || !/^[0-9]{6}$/.test(code)) {
      throw badRequest('totp_code must be the six-digit code of your authenticator app', {
        totp_code: ['Must be six digits.'],
      });
    }
    const user = await this.deps.repo.findUserByEmail(email);
    // An unknown address and a wrong code get the same answer.
    const result = user === undefined ? 'invalid' : await this.deps.totp.check(user, code);
    if (result === 'replayed') throw totpReplayed();
    if (result !== 'ok' || user === undefined) throw invalidTotp();
    const token = await this.issue(user.id, 'totp', ip);
    this.deps.logger.info({ reset: { userId: user.id, method: 'totp' } }, 'password reset token issued');
    return { status: 'success', message: 'TOTP verified', token };
  }

  private async setPassword(input: ResetInput): Promise<ResetResult> {
    const row = input.token === undefined ? undefined : await this.live(input.token);
    if (row === undefined) throw invalidToken();
    if (input.email !== undefined && input.email.trim() !== '') {
      // OpenAlgo clients send the address with the token; it must be the token's account.
      const owner = await this.deps.repo.findUserByEmail(input.email.trim());
      if (owner?.id !== row.user_id) throw invalidToken();
    }
    const password = input.password;
    if (password === undefined) throw badRequest('password is required', { password: ['Required.'] });
    checkPassword(password);
    if (input.confirm_password !== undefined && input.confirm_password !== password) {
      throw badRequest('The two passwords do not match', { confirm_password: ['Does not match password.'] });
    }
    const passwordHash = await hash(password);
    const done = await this.deps.repo.complete(row.id, row.user_id, passwordHash, this.deps.clock.now());
    if (!done) throw invalidToken();
    this.deps.logger.info(
      { reset: { userId: row.user_id, method: row.method } },
      'password reset: password replaced, every session of the user ended',
    );
    return {
      status: 'success',
      message: 'Your password has been reset successfully. Sign in with the new password.',
    };
  }

  private async issue(userId: number, method: 'email' | 'totp', ip: string): Promise<string> {
    const token = randomToken(32);
    const now = this.deps.clock.now();
    await this.deps.repo.insert({
      id: sha256Hex(token),
      user_id: userId,
      method,
      created_at: now,
      expires_at: now + RESET_TOKEN_TTL_MS,
      used_at: null,
      ip: ip.slice(0, 64),
    });
    return token;
  }

  /** The unspent, unexpired token row; undefined for anything else (malformed included). */
  private async live(token: string): Promise<PasswordResetRow | undefined> {
    if (!RESET_TOKEN_PATTERN.test(token)) return undefined;
    const row = await this.deps.repo.find(sha256Hex(token));
    if (row === undefined || row.used_at !== null || row.expires_at <= this.deps.clock.now())
      return undefined;
    return row;
  }
}

function requireEmail(raw: string | undefined): string {
  const email = raw?.trim() ?? '';
  if (email === '') throw badRequest('email is required', { email: ['Required.'] });
  if (!isEmailAddress(email))
    throw badRequest('email is not a valid address', { email: ['Invalid address.'] });
  return email;
}

function resetMail(to: string, username: string, link: string, service = 'algodesk') {
  const subject = `${service}: reset your password`;
  const text =
    `Hello ${username},\n\n` +
    `Someone (hopefully you) asked to reset the password of your ${service} account.\n` +
    `Open this link within 15 minutes to choose a new password; it works once:\n\n${link}\n\n` +
    'If you did not ask for this, ignore this message: your password stays as it is.\n';
  const html =
    `<p>Hello ${escapeHtml(username)},</p>` +
    `<p>Someone (hopefully you) asked to reset the password of your ${escapeHtml(service)} account. ` +
    'Open this link within 15 minutes to choose a new password; it works once:</p>' +
    `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` +
    '<p>If you did not ask for this, ignore this message: your password stays as it is.</p>';
  return { to, subject, text, html };
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
