/**
 * What a route's hook (a guard, a rate limit) or handler checks and may answer — the credentials
 * it reads and its error answers — attached to the function itself, so the API reference
 * (platform/http/openapi.plugin.ts) documents each route from what the route runs instead of
 * from a list kept by hand beside every route. Documentation only: the request path never reads
 * it.
 */
import type { TSchema } from 'typebox';
import type { ErrorCode } from '../errors.js';

/** One error answer: its status, its `code`, and when it is given. */
export interface ErrorAnswer {
  status: number;
  /** The body's `code` (platform/errors.ts); absent for answers that carry none. */
  code?: ErrorCode;
  /** When it is given, as the reference says it ("no live session"). */
  when: string;
  /** Only for requests of these methods (the CSRF check); every method when absent. */
  methods?: readonly string[];
  /** The body when it is not the common `ErrorBody` (the webhook's answers). */
  body?: TSchema;
  /** The body's media type when it is not JSON (the ban gate's plain text). */
  contentType?: string;
}

/**
 * A credential the hook reads. In a cookie or a header it is an OpenAPI security scheme (named
 * `scheme`); in a JSON body field (the `/api/v1` `apikey`) OpenAPI has no scheme for it, so the
 * reference marks the field instead.
 */
export interface Credential {
  in: 'cookie' | 'header' | 'body';
  name: string;
  /** The security scheme's name in the reference (cookie and header credentials). */
  scheme?: string;
  description: string;
  /** Only for requests of these methods; every method when absent. */
  methods?: readonly string[];
}

export interface HookDoc {
  credentials?: readonly Credential[];
  answers?: readonly ErrorAnswer[];
}

const DOC = Symbol('hook doc');

/** Returns `fn`, marked with what it checks and answers (added to what it is marked with already). */
export function documentHook<F extends object>(fn: F, doc: HookDoc): F {
  const was = hookDoc(fn);
  const merged: HookDoc = {
    credentials: [...(was.credentials ?? []), ...(doc.credentials ?? [])],
    answers: [...(was.answers ?? []), ...(doc.answers ?? [])],
  };
  Object.defineProperty(fn, DOC, { value: merged, configurable: true });
  return fn;
}

/** What `fn` was marked with (nothing for anything else). */
export function hookDoc(fn: unknown): HookDoc {
  if (typeof fn !== 'function') return {};
  return (fn as { [DOC]?: HookDoc })[DOC] ?? {};
}

/** The state-changing methods (the session guard checks the CSRF token on them). */
export const STATE_CHANGING_METHODS: readonly string[] = ['POST', 'PUT', 'PATCH', 'DELETE'];
