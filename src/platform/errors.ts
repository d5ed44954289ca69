/**
 * The closed set of errors the service answers with. Every failure that reaches a client goes
 * through {@link AppError}: a status code, a stable machine-readable `code` and a message that is
 * safe to show (never a secret, never an internal detail of a 5xx).
 */
export class AppError extends Error {
  constructor(
    /** HTTP status to answer with. */
    readonly statusCode: number,
    /** Stable identifier clients may branch on, e.g. `invalid_api_key`. */
    readonly code: string,
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
