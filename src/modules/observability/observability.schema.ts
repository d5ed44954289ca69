/**
 * TypeBox schemas of the observability routes. Responses are serialised through them, so a
 * field that is not declared here (a token that slipped into an object, say) cannot leave.
 */
import { Type, type TSchema } from 'typebox';
import { CLIENT_LEVELS, ERROR_LEVELS } from './error-record.js';
import { ERROR_LOG_LIMITS } from './error-log.service.js';

const Success = Type.Literal('success');
const Str = Type.String();
const Int = Type.Integer();
const N = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

// ---- Requests ----

/** Level filter: that level and the more severe ones. */
const LevelFilter = Type.Enum([...ERROR_LEVELS], {
  description: 'warn, error or fatal: that level and above',
});

export const ErrorsQuery = Type.Object({
  /** Entries returned, newest first; values outside 1..500 are clamped. Default 100. */
  limit: Type.Optional(
    Type.Integer({ description: `clamped to ${ERROR_LOG_LIMITS.listMin}..${ERROR_LOG_LIMITS.listMax}` }),
  ),
  level: Type.Optional(LevelFilter),
  /** `server` or `client`. */
  origin: Type.Optional(Type.Enum(['server', 'client'])),
  /** Case-insensitive substring of message, module, exception or request path. */
  q: Type.Optional(Type.String({ maxLength: 200 })),
});

export const GroupsQuery = Type.Object({
  /** Groups returned, most recently seen first; clamped to 1..200. Default 50. */
  limit: Type.Optional(Type.Integer()),
  level: Type.Optional(LevelFilter),
});

/**
 * A browser's error report. Long fields are never refused: they are cut to the store's caps
 * (message 2,000 characters, stack 16,000, component stack 8,000, URL 2,048, user agent 512,
 * `CAPS` in error-record.ts); what bounds the input is the body limit,
 * {@link CLIENT_REPORT_BODY_LIMIT} bytes (413 beyond). Unknown fields are ignored.
 */
export const ClientErrorBody = Type.Object({
  level: Type.Optional(Type.Enum(Object.keys(CLIENT_LEVELS))),
  message: Type.String({ minLength: 1 }),
  stack: Type.Optional(N(Str)),
  url: Type.Optional(N(Str)),
  component_stack: Type.Optional(N(Str)),
  user_agent: Type.Optional(N(Str)),
});

/** Largest client report body (bytes); larger ones are refused with 413. */
export const CLIENT_REPORT_BODY_LIMIT = 256 * 1024;

// ---- Responses ----

const ErrorEntry = Type.Object({
  id: Int,
  time: Str,
  level: Str,
  origin: Str,
  module: N(Str),
  message: Str,
  exception: N(Str),
  stack: N(Str),
  request: Type.Object({ id: N(Str), method: N(Str), path: N(Str) }),
  user_id: N(Int),
  url: N(Str),
  user_agent: N(Str),
  component_stack: N(Str),
  context: N(Str),
  fingerprint: Str,
});

export const ErrorsResponse = Type.Object({
  status: Success,
  data: Type.Object({ limit: Int, count: Int, entries: Type.Array(ErrorEntry) }),
});

export const ClientErrorResponse = Type.Object({
  status: Success,
  message: Str,
  data: Type.Object({ level: Str, fingerprint: Str }),
});

const Counts = (keys: readonly string[]) => Type.Object(Object.fromEntries(keys.map((k) => [k, Int])));

export const StatsResponse = Type.Object({
  status: Success,
  data: Type.Object({
    total: Int,
    by_level: Counts(ERROR_LEVELS),
    by_origin: Counts(['server', 'client']),
    last_hour: Int,
    last_24h: Int,
    dropped: Int,
    pending: Int,
    retention: Type.Object({ max_rows: Int, max_age_days: Int }),
  }),
});

export const GroupsResponse = Type.Object({
  status: Success,
  data: Type.Object({
    limit: Int,
    groups: Type.Array(
      Type.Object({
        fingerprint: Str,
        level: Str,
        module: N(Str),
        pattern: Str,
        count: Int,
        first_seen: Str,
        last_seen: Str,
        sample: ErrorEntry,
      }),
    ),
  }),
});
