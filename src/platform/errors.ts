/**
 * The closed set of errors the service answers with. Every failure that reaches a client goes
 * through {@link AppError}: a status code, a stable machine-readable `code` and a message that is
 * safe to show (never a secret, never an internal detail of a 5xx). The answer's body is
 * `ErrorBody` (platform/http/error-body.ts).
 *
 * {@link ERRORS} is the one table pairing each code with its HTTP status; code builds its errors
 * with the factory of the row (`invalidResetToken(message)`), never with a status of its own, so a
 * code answers with the same status wherever it is thrown. A few codes are answered with a second
 * status where a rule says so: each such answer is a row of its own (`invalidLoginTotp`: 401
 * `invalid_totp`), and errors.test.ts lists them.
 */

/** Per-field validation messages, keyed by field name. */
export type ErrorFields = Record<string, string[]>;

/**
 * Every error an answer may carry, by the name of its factory: the code clients branch on, the HTTP
 * status it is answered with, and what it means.
 */
export const ERRORS = {
  // Requests that are malformed or break a rule.
  badRequest: {
    code: 'bad_request',
    status: 400,
    meaning: 'the request breaks a rule; the message says which',
  },
  validationFailed: {
    code: 'validation_failed',
    status: 400,
    meaning: 'the request does not match its schema; the fields are named',
  },
  unknownBroker: { code: 'unknown_broker', status: 400, meaning: 'no such broker' },
  unsupportedMediaType: {
    code: 'unsupported_media_type',
    status: 415,
    meaning: 'the upload is not of a type the route takes',
  },
  fileTooLarge: { code: 'file_too_large', status: 413, meaning: 'the upload is over its size bound' },
  importFailed: {
    code: 'import_failed',
    status: 400,
    meaning: 'a master-contract file could not be imported',
  },
  loopbackBanRefused: {
    code: 'loopback_ban_refused',
    status: 400,
    meaning: 'loopback addresses are never banned',
  },
  internalBanRefused: {
    code: 'internal_ban_refused',
    status: 400,
    meaning: 'addresses of this network are never banned',
  },
  // Who is asking.
  unauthorized: { code: 'unauthorized', status: 401, meaning: 'authentication required' },
  sessionRequired: { code: 'session_required', status: 401, meaning: 'the session expired or there is none' },
  csrfFailed: {
    code: 'csrf_failed',
    status: 403,
    meaning: 'a state-changing session request without a valid CSRF token',
  },
  invalidApiKey: { code: 'invalid_api_key', status: 403, meaning: 'the API key is unknown or revoked' },
  forbidden: { code: 'forbidden', status: 403, meaning: 'the user may not do this' },
  accountDisabled: {
    code: 'account_disabled',
    status: 403,
    meaning: 'the account was disabled by an administrator',
  },
  wrongPassword: {
    code: 'wrong_password',
    status: 400,
    meaning: 'the current password given is not the account’s',
  },
  originForbidden: { code: 'origin_forbidden', status: 403, meaning: 'a live socket from a foreign origin' },
  liveDisabled: {
    code: 'live_disabled',
    status: 403,
    meaning: 'live trading is not enabled for this strategy',
  },
  // Two-factor and password reset.
  totpRequired: {
    code: 'totp_required',
    status: 400,
    meaning: 'an authenticator code is needed and the request has none',
  },
  freshTotpRequired: {
    code: 'totp_required',
    status: 403,
    meaning:
      'write access needs a code verified in this session within the last 60 seconds (docs/rules/auth.md#consent-needs-fresh-code)',
  },
  invalidTotp: { code: 'invalid_totp', status: 400, meaning: 'the authenticator code is wrong' },
  invalidLoginTotp: {
    code: 'invalid_totp',
    status: 401,
    meaning: 'the authenticator code of a login is wrong: the login stays unauthenticated',
  },
  totpReplayed: { code: 'totp_replayed', status: 400, meaning: 'the authenticator code was used already' },
  loginTotpReplayed: {
    code: 'totp_replayed',
    status: 401,
    meaning: 'the authenticator code of a login was used already: the login stays unauthenticated',
  },
  totpEnabled: { code: 'totp_enabled', status: 409, meaning: 'two-factor is already on' },
  totpNotEnrolled: { code: 'totp_not_enrolled', status: 409, meaning: 'two-factor was never set up' },
  totpLoginExpired: {
    code: 'totp_login_expired',
    status: 401,
    meaning: 'the login waited too long for its authenticator code',
  },
  invalidResetToken: {
    code: 'invalid_reset_token',
    status: 400,
    meaning: 'the password-reset token sent is unknown, used or expired',
  },
  resetLinkNotFound: {
    code: 'invalid_reset_token',
    status: 404,
    meaning: 'the password-reset link opened is unknown, used or expired (as its page, a 404)',
  },
  emailResetUnavailable: {
    code: 'email_reset_unavailable',
    status: 400,
    meaning: 'mail is not configured, so no reset link can be sent',
  },
  // Things that do not exist, or not in this state.
  notFound: { code: 'not_found', status: 404, meaning: 'no such route or resource' },
  strategyNotFound: {
    code: 'strategy_not_found',
    status: 404,
    meaning: "no such strategy (or another user's)",
  },
  conflict: { code: 'conflict', status: 409, meaning: 'the resource is not in a state that allows this' },
  usernameTaken: { code: 'username_taken', status: 409, meaning: 'the user name is in use' },
  userNotFound: { code: 'user_not_found', status: 404, meaning: 'no such user' },
  lastAdmin: {
    code: 'last_admin',
    status: 409,
    meaning: 'the change would leave the install without an enabled administrator',
  },
  setupDone: { code: 'setup_done', status: 409, meaning: 'the first-run setup is over: a user exists' },
  strategyNameTaken: {
    code: 'strategy_name_taken',
    status: 409,
    meaning: 'the user has a strategy of this name',
  },
  strategyRunning: { code: 'strategy_running', status: 409, meaning: 'the strategy has an active run' },
  importRunning: { code: 'import_running', status: 409, meaning: 'a master-contract import is running' },
  mailNotConfigured: { code: 'mail_not_configured', status: 409, meaning: 'mail is not configured' },
  mailPasswordUnreadable: {
    code: 'mail_password_unreadable',
    status: 409,
    meaning: 'the stored SMTP password cannot be read by this install (APP_KEY changed)',
  },
  notImplemented: { code: 'not_implemented', status: 501, meaning: 'not available in this mode' },
  // Capacity and the outside world.
  tooManyRequests: {
    code: 'rate_limited',
    status: 429,
    meaning: 'over a rate limit; retry after the time given',
  },
  tooManySockets: {
    code: 'too_many_sockets',
    status: 429,
    meaning: 'the user has the most live sockets allowed',
  },
  socketCapacity: {
    code: 'socket_capacity',
    status: 503,
    meaning: 'the server has the most live sockets it takes',
  },
  upgradeRequired: {
    code: 'upgrade_required',
    status: 426,
    meaning: 'the live socket route takes WebSocket upgrades only',
  },
  downloadFailed: {
    code: 'download_failed',
    status: 502,
    meaning: "the broker's master-contract file could not be downloaded",
  },
  mailFailed: {
    code: 'mail_failed',
    status: 502,
    meaning: 'the mail server refused or could not be reached (the SMTP codes are in the log)',
  },
  brokerTimeout: { code: 'broker_timeout', status: 504, meaning: 'the broker did not answer in time' },
  brokerUnreachable: {
    code: 'broker_unreachable',
    status: 502,
    meaning: 'the broker could not be reached, or its answer was not one it documents',
  },
  internal: {
    code: 'internal',
    status: 500,
    meaning: 'an unexpected failure (details in the error log, never in the answer)',
  },
} as const satisfies Record<string, { code: string; status: number; meaning: string }>;

/** The name of a row of {@link ERRORS} (and of its factory). */
export type ErrorKind = keyof typeof ERRORS;
/** Every error code an answer may carry. Clients may branch on the code. */
export type ErrorCode = (typeof ERRORS)[ErrorKind]['code'];

export class AppError extends Error {
  constructor(
    /** HTTP status to answer with. */
    readonly statusCode: number,
    /** Stable identifier clients may branch on, e.g. `invalid_api_key`. */
    readonly code: ErrorCode,
    message: string,
    /** Per-field validation messages, keyed by field name. */
    readonly fields?: ErrorFields,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** The error of one row of {@link ERRORS}. */
function error(kind: ErrorKind, message: string, fields?: ErrorFields): AppError {
  const row = ERRORS[kind];
  return new AppError(row.status, row.code, message, fields);
}

const INVALID_TOTP = 'Invalid authenticator code';
const TOTP_REPLAYED = 'This authenticator code was already used; wait for the next one';
const SESSION_REQUIRED = 'Session expired or not logged in';

// One factory per row, in the table's order.
export const badRequest = (message: string, fields?: ErrorFields) => error('badRequest', message, fields);
export const validationFailed = (message: string, fields?: ErrorFields) =>
  error('validationFailed', message, fields);
export const unknownBroker = (message: string, fields?: ErrorFields) =>
  error('unknownBroker', message, fields);
export const unsupportedMediaType = (message: string) => error('unsupportedMediaType', message);
export const fileTooLarge = (message: string) => error('fileTooLarge', message);
export const importFailed = (message: string) => error('importFailed', message);
export const loopbackBanRefused = (message: string) => error('loopbackBanRefused', message);
export const internalBanRefused = (message: string) => error('internalBanRefused', message);
export const unauthorized = (message = 'Authentication required') => error('unauthorized', message);
export const sessionRequired = (message = SESSION_REQUIRED) => error('sessionRequired', message);
export const csrfFailed = (message: string) => error('csrfFailed', message);
export const invalidApiKey = (message: string) => error('invalidApiKey', message);
export const forbidden = (message = 'Forbidden') => error('forbidden', message);
export const accountDisabled = (message: string) => error('accountDisabled', message);
export const wrongPassword = (message: string, fields?: ErrorFields) =>
  error('wrongPassword', message, fields);
export const originForbidden = (message: string) => error('originForbidden', message);
export const liveDisabled = (message: string) => error('liveDisabled', message);
export const totpRequired = (message: string, fields?: ErrorFields) => error('totpRequired', message, fields);
export const freshTotpRequired = (message: string) => error('freshTotpRequired', message);
export const invalidTotp = (message = INVALID_TOTP, fields?: ErrorFields) =>
  error('invalidTotp', message, fields);
export const invalidLoginTotp = (message = INVALID_TOTP) => error('invalidLoginTotp', message);
export const totpReplayed = (message = TOTP_REPLAYED, fields?: ErrorFields) =>
  error('totpReplayed', message, fields);
export const loginTotpReplayed = (message = TOTP_REPLAYED) => error('loginTotpReplayed', message);
export const totpEnabled = (message: string) => error('totpEnabled', message);
export const totpNotEnrolled = (message: string) => error('totpNotEnrolled', message);
export const totpLoginExpired = (message: string) => error('totpLoginExpired', message);
export const invalidResetToken = (message: string) => error('invalidResetToken', message);
export const resetLinkNotFound = (message: string) => error('resetLinkNotFound', message);
export const emailResetUnavailable = (message: string) => error('emailResetUnavailable', message);
export const notFound = (message = 'Not found') => error('notFound', message);
export const strategyNotFound = (message: string) => error('strategyNotFound', message);
export const conflict = (message: string) => error('conflict', message);
export const usernameTaken = (message: string) => error('usernameTaken', message);
export const userNotFound = (message: string) => error('userNotFound', message);
export const lastAdmin = (message: string) => error('lastAdmin', message);
export const setupDone = (message: string) => error('setupDone', message);
export const strategyNameTaken = (message: string) => error('strategyNameTaken', message);
export const strategyRunning = (message: string) => error('strategyRunning', message);
export const importRunning = (message: string) => error('importRunning', message);
export const mailNotConfigured = (message: string) => error('mailNotConfigured', message);
export const mailPasswordUnreadable = (message: string) => error('mailPasswordUnreadable', message);
export const notImplemented = (message: string) => error('notImplemented', message);
/** 429 with the `Retry-After` the error handler sends. */
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  Object.assign(error('tooManyRequests', message), { retryAfterSeconds });
export const tooManySockets = (message: string) => error('tooManySockets', message);
export const socketCapacity = (message: string) => error('socketCapacity', message);
export const upgradeRequired = (message: string) => error('upgradeRequired', message);
export const downloadFailed = (message: string) => error('downloadFailed', message);
export const mailFailed = (message: string) => error('mailFailed', message);
export const brokerTimeout = (message: string) => error('brokerTimeout', message);
export const brokerUnreachable = (message: string) => error('brokerUnreachable', message);
export const internal = (message: string) => error('internal', message);

/** The rows a broker's HTTP status is passed through as, when it is theirs. */
const PASSED_THROUGH = [ERRORS.unauthorized, ERRORS.forbidden, ERRORS.notFound, ERRORS.tooManyRequests];

/**
 * A broker's HTTP error (400–599) answered with the broker's own status
 * (docs/rules/market-data.md#broker-failures): the one answer whose status is not its row's. Its
 * code is that of the row with this status (401 `unauthorized`, 403 `forbidden`, 404 `not_found`,
 * 429 `rate_limited`), else `bad_request` for another 4xx and `broker_unreachable` for a 5xx.
 */
export function brokerHttpError(status: number, message: string): AppError {
  const row =
    PASSED_THROUGH.find((r) => r.status === status) ??
    (status < 500 ? ERRORS.badRequest : ERRORS.brokerUnreachable);
  return new AppError(status, row.code, message);
}

/** True when `err` is an {@link AppError} (also across module copies). */
export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
