/**
 * The closed set of errors the service answers with. Every failure that reaches a client goes
 * through {@link AppError}: a status code, a stable machine-readable `code` from
 * {@link ERROR_CODES} and a message that is safe to show (never a secret, never an internal detail
 * of a 5xx). The answer's body is `ErrorBody` (platform/http/error-body.ts).
 */

/** Every error code an answer may carry, and what it means. Clients may branch on the code. */
export const ERROR_CODES = {
  // Requests that are malformed or break a rule.
  bad_request: 'the request breaks a rule; the message says which',
  validation_failed: 'the request does not match its schema; the fields are named',
  unknown_broker: 'no such broker',
  unsupported_media_type: 'the upload is not of a type the route takes',
  file_too_large: 'the upload is over its size bound',
  import_failed: 'a master-contract file could not be imported',
  loopback_ban_refused: 'loopback addresses are never banned',
  internal_ban_refused: 'addresses of this network are never banned',
  // Who is asking.
  unauthorized: 'authentication required',
  session_required: 'the session expired or there is none',
  csrf_failed: 'a state-changing session request without a valid CSRF token',
  invalid_api_key: 'the API key is unknown or revoked',
  forbidden: 'the user may not do this',
  account_disabled: 'the account was disabled by an administrator',
  wrong_password: 'the current password given is not the account’s',
  origin_forbidden: 'a live socket from a foreign origin',
  live_disabled: 'live trading is not enabled for this strategy',
  // Two-factor and password reset.
  totp_required: 'an authenticator code is needed (or a fresh one)',
  invalid_totp: 'the authenticator code is wrong',
  totp_replayed: 'the authenticator code was used already',
  totp_enabled: 'two-factor is already on',
  totp_not_enrolled: 'two-factor was never set up',
  totp_login_expired: 'the login waited too long for its authenticator code',
  invalid_reset_token: 'the password-reset link or token is unknown, used or expired',
  email_reset_unavailable: 'mail is not configured, so no reset link can be sent',
  // Things that do not exist, or not in this state.
  not_found: 'no such route or resource',
  strategy_not_found: "no such strategy (or another user's)",
  conflict: 'the resource is not in a state that allows this',
  username_taken: 'the user name is in use',
  user_not_found: 'no such user',
  last_admin: 'the change would leave the install without an enabled administrator',
  setup_done: 'the first-run setup is over: a user exists',
  strategy_name_taken: 'the user has a strategy of this name',
  strategy_running: 'the strategy has an active run',
  import_running: 'a master-contract import is running',
  mail_not_configured: 'mail is not configured',
  mail_password_unreadable: 'the stored SMTP password cannot be read by this install (APP_KEY changed)',
  not_implemented: 'not available in this mode',
  // Capacity and the outside world.
  rate_limited: 'over a rate limit; retry after the time given',
  too_many_sockets: 'the user has the most live sockets allowed',
  socket_capacity: 'the server has the most live sockets it takes',
  upgrade_required: 'the live socket route takes WebSocket upgrades only',
  download_failed: "the broker's master-contract file could not be downloaded",
  mail_failed: 'the mail server refused or could not be reached (the SMTP codes are in the log)',
  broker_timeout: 'the broker did not answer in time',
  broker_unreachable: 'the broker could not be reached, or its answer was not one it documents',
  internal: 'an unexpected failure (details in the error log, never in the answer)',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  constructor(
    /** HTTP status to answer with. */
    readonly statusCode: number,
    /** Stable identifier clients may branch on, e.g. `invalid_api_key`. */
    readonly code: ErrorCode,
    message: string,
    /** Per-field validation messages, keyed by field name. */
    readonly fields?: Record<string, string[]>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string, fields?: Record<string, string[]>) =>
  new AppError(400, 'bad_request', message, fields);
export const unauthorized = (message = 'Authentication required') =>
  new AppError(401, 'unauthorized', message);
export const forbidden = (message = 'Forbidden') => new AppError(403, 'forbidden', message);
export const notFound = (message = 'Not found') => new AppError(404, 'not_found', message);
export const conflict = (message: string) => new AppError(409, 'conflict', message);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  Object.assign(new AppError(429, 'rate_limited', message), { retryAfterSeconds });

/** True when `err` is an {@link AppError} (also across module copies). */
export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
