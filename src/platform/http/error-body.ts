import { Type } from 'typebox';

/**
 * The body of every error answer outside the order and webhook flows (whose answers are their
 * documented shapes): `{status: 'error', message, code}` — `code` one of `ErrorCode`
 * (platform/errors.ts) — plus `errors` by field for a validation failure on a session route. On
 * `/api/v1` a schema failure's `message` is an object keyed by field, as OpenAlgo clients expect.
 */
export const ErrorBody = Type.Object({
  status: Type.Literal('error'),
  message: Type.Union([Type.String(), Type.Record(Type.String(), Type.Array(Type.String()))]),
  code: Type.Optional(Type.String()),
  /** Per-field messages of a validation failure (session routes). */
  errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
});

/** A route's error answers: each of `statuses` with {@link ErrorBody}. */
export const errorBodies = <S extends number>(...statuses: S[]) =>
  Object.fromEntries(statuses.map((s) => [s, ErrorBody])) as Record<S, typeof ErrorBody>;
