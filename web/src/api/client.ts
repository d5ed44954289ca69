/**
 * The console's one way to the server (docs/rules/web.md#csrf and #session-expiry): JSON in and
 * out, the session cookie sent by the browser (HttpOnly: never read here), the session's CSRF
 * token kept in memory only and sent on every state-changing request, and a 401 on any call
 * reported to the app so it sends the user to /login and back.
 */
import type { paths } from './openapi.js';

/** An error answer of the server: its status, stable code, sentence and messages by field. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The server's messages for one field, joined for the field's `error` slot (undefined when none). */
export function fieldError(err: unknown, field: string): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  const list = err.fields[field];
  return list && list.length > 0 ? list.join(' ') : undefined;
}

/** Whether an error's messages are all shown under fields (so the form needs no general alert). */
export function onlyFieldErrors(err: unknown, fields: readonly string[]): boolean {
  if (!(err instanceof ApiError)) return false;
  const keys = Object.keys(err.fields);
  return keys.length > 0 && keys.every((k) => fields.includes(k));
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The session's CSRF token: in memory only, never in storage or a URL. */
let csrfToken: string | undefined;
let sessionExpired: () => void = () => undefined;

/** Called once by the app: what a 401 on an authenticated call does (back to /login). */
export function onSessionExpired(handler: () => void): void {
  sessionExpired = handler;
}

/** The session ended (the live socket was closed for it): as a 401 would, back to /login. */
export function sessionEnded(): void {
  csrfToken = undefined;
  sessionExpired();
}

/** Forgets the CSRF token: a new session (login, setup) or none (logout) has another one. */
export function forgetCsrfToken(): void {
  csrfToken = undefined;
}

/** The reads on their way: abandoned when the session ends ({@link abandonReads}). */
const readsInFlight = new Set<AbortController>();

/**
 * Abandons every read still on its way (docs/rules/web.md#sign-out): answered after the logout,
 * it would be a 401 the browser reports as an error, and its page is going away. Its promise
 * rejects with the browser's AbortError.
 */
export function abandonReads(): void {
  for (const c of readsInFlight) c.abort();
  readsInFlight.clear();
}

/** The state-changing routes that work without a session: no CSRF token to fetch for them. */
const PRE_SESSION = new Set(['/auth/login', '/auth/login/totp', '/auth/setup', '/auth/reset-password']);

async function fetchCsrfToken(): Promise<string> {
  // Quiet: without a session the request itself answers 401 and reports the expiry.
  const body = await request<{ csrf_token: string }>('GET', '/auth/csrf-token', undefined, {
    quiet401: true,
  });
  csrfToken = body.csrf_token;
  return csrfToken;
}

export interface RequestOptions {
  /** A 401 here is an answer, not an expired session (the session probe, the login form). */
  quiet401?: boolean;
}

async function toApiError(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { message?: unknown; code?: unknown; errors?: unknown };
    const message =
      typeof body.message === 'string'
        ? body.message
        : body.message && typeof body.message === 'object'
          ? Object.entries(body.message as Record<string, string[]>)
              .map(([k, v]) => `${k}: ${v.join(' ')}`)
              .join('; ')
          : `Request failed (${res.status})`;
    const fields =
      body.errors && typeof body.errors === 'object'
        ? (body.errors as Record<string, string[]>)
        : body.message && typeof body.message === 'object'
          ? (body.message as Record<string, string[]>)
          : {};
    return new ApiError(res.status, typeof body.code === 'string' ? body.code : 'error', message, fields);
  } catch {
    // A plain-text answer (the ban gate's 403) or a proxy's page.
    const message = text.trim().slice(0, 300) || `Request failed (${res.status} ${res.statusText})`;
    return new ApiError(res.status, 'error', message);
  }
}

async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  // A FormData body (a file upload) goes as multipart/form-data, its boundary set by the browser.
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers['content-type'] = 'application/json';
  const changing = STATE_CHANGING.has(method);
  if (changing && csrfToken !== undefined) headers['x-csrf-token'] = csrfToken;
  const read = changing ? undefined : new AbortController();
  if (read) readsInFlight.add(read);
  let res: Response;
  let err: ApiError;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(read ? { signal: read.signal } : {}),
      ...(body !== undefined ? { body: form ? (body as FormData) : JSON.stringify(body) } : {}),
    });
    if (res.ok) return (await res.json()) as T;
    err = await toApiError(res);
  } finally {
    if (read) readsInFlight.delete(read);
  }
  if (err.status === 401 && err.code === 'session_required' && !opts.quiet401) {
    forgetCsrfToken();
    sessionExpired();
  }
  throw err;
}

/**
 * A request as the console makes it. A state-changing one fetches the session's CSRF token
 * first when it has none, and once more when the server refuses the one it sent (a new session).
 */
export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<T> {
  if (!STATE_CHANGING.has(method)) return request<T>(method, path, body, opts);
  if (PRE_SESSION.has(path)) return request<T>(method, path, body, opts);
  if (csrfToken === undefined) await fetchCsrfToken().catch(() => undefined);
  try {
    return await request<T>(method, path, body, opts);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'csrf_failed') {
      await fetchCsrfToken();
      return request<T>(method, path, body, opts);
    }
    throw err;
  }
}

/** The JSON body of one documented response. */
type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/**
 * The JSON a route answers on success, as the server's own schemas state it
 * (docs/rules/web.md#typed-api): its 200 answer, or — for a route that creates (201) or accepts
 * work to run in the background (202) — that one. `openapi.d.ts` is generated from
 * `/api/openapi.json`, and a test fails when it is stale, so a changed answer breaks the
 * console's type-check.
 */
export type Answer<P extends keyof paths, M extends 'get' | 'post' | 'put' | 'patch' | 'delete' = 'get'> =
  paths[P] extends Record<M, { responses: infer R }>
    ? R extends { 200: infer OK }
      ? JsonOf<OK>
      : R extends { 201: infer Created }
        ? JsonOf<Created>
        : R extends { 202: infer Accepted }
          ? JsonOf<Accepted>
          : never
    : never;

/**
 * Pages the server renders itself (the agents' consent page, the no-script security summary):
 * after signing in the browser loads them, the console's router does not draw them.
 */
export const isServerPage = (path: string): boolean =>
  path.startsWith('/oauth/') || path.startsWith('/security/');

/** A same-origin path to return to after signing in, or undefined for anything else. */
export function safeReturnPath(raw: string | null | undefined): string | undefined {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return undefined;
  if (raw.startsWith('/login') || raw.startsWith('/setup')) return undefined;
  return raw;
}
