/**
 * The windows and limits of the product specification ("Limits"), written once; the modules that
 * enforce them import them from here.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Both automatic-ban trackers count within this window (24 hours). */
export const TRACKER_WINDOW_MS = 24 * HOUR;
/** Distinct 404 paths kept per address by the 404 tracker. */
export const TRACKED_404_PATHS = 50;
/** Distinct API-key digests kept per address by the invalid-key tracker. */
export const TRACKED_KEY_DIGESTS = 20;

/** A password-checked login waits this long for its authenticator code. */
export const PENDING_TOTP_LOGIN_MS = 5 * MINUTE;
/** A remote agent's consent needs an authenticator code verified within this window. */
export const FRESH_TOTP_MS = 60 * SECOND;

/** The strategy webhook's declared body size, at most (bytes). */
export const WEBHOOK_MAX_BYTES = 16_384;
/** Identical batch deliveries within this window are one delivery. */
export const DEDUPE_WINDOW_MS = 60 * SECOND;
/** A batch start this soon after a stop is refused. */
export const COOLING_OFF_MS = 30 * SECOND;

/** Strategy events returned at most by one read (`limit` 1 to this). */
export const STRATEGY_EVENTS_MAX = 1_000;

/** Order events: dispatch workers and pending queue. */
export const EVENT_WORKERS = 10;
export const EVENT_QUEUE_LIMIT = 1_000;

/** Seconds, for messages that state a window ("30 s"). */
export const seconds = (ms: number): number => ms / SECOND;
