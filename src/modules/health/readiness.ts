/**
 * Whether this instance can serve: its database answers, its Redis answers when one is
 * configured, and the sandbox engine runs when analyzer mode is on. The instrument index is
 * reported, not required: until it is built, lookups answer from the database. So is the live
 * feed: a stalled upstream is reported (and reconnected), not a reason to take the instance out.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { noAnswerWithin, withDeadline } from '../../platform/deadline.js';
import type { InvalidationBus } from '../../platform/invalidation.js';

/** How long one check may take before it counts as failed. */
export const CHECK_TIMEOUT_MS = 2_000;

export interface Check {
  ok: boolean;
  /** What was found: `up`, `down`, `not configured`, `running`, `loading`… */
  state: string;
  /** Why a failed check failed (never a connection string or a credential). */
  reason?: string;
  ms?: number;
}

export interface Readiness {
  ready: boolean;
  /** The names of the failed checks. */
  failing: string[];
  checks: {
    database: Check;
    redis: Check;
    instrument_index: Check & { instruments: number };
    sandbox_engine: Check & { mode: 'analyze' | 'live' };
    market_feed: Check & { upstream: string; stalls: number; holds_upstream: boolean };
  };
}

export interface ReadinessSources {
  db: Kysely<DB>;
  bus: InvalidationBus;
  redisConfigured: boolean;
  index: () => { enabled: boolean; ready: boolean; size: number };
  sandbox: () => { analyze: boolean; engineRunning: boolean };
  /** The live feed: its upstream, whether it is stalled, stalls since start. Reported, never failing. */
  feed: () => {
    upstream: string;
    status: 'live' | 'stale';
    stalls: number;
    stalled: number;
    /** This instance runs the install's upstream (always, on one instance; the lease's holder with Redis). */
    holds: boolean;
  };
}

async function timed(probe: () => Promise<unknown>): Promise<Check> {
  const t0 = performance.now();
  const ms = () => Math.round(performance.now() - t0);
  try {
    await withDeadline(probe(), CHECK_TIMEOUT_MS, noAnswerWithin(CHECK_TIMEOUT_MS));
    return { ok: true, state: 'up', ms: ms() };
  } catch (err) {
    return { ok: false, state: 'down', reason: reasonOf(err), ms: ms() };
  }
}

/** The first line of an error's message, cut short (drivers may append a connection string). */
function reasonOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (
    text
      .split('\n')[0]!
      .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>')
      .slice(0, 200) || 'failed'
  );
}

export async function readiness(s: ReadinessSources): Promise<Readiness> {
  const [database, redis] = await Promise.all([
    timed(() => sql`select 1`.execute(s.db)),
    s.redisConfigured && s.bus.ping
      ? timed(() => s.bus.ping!(CHECK_TIMEOUT_MS))
      : Promise.resolve<Check>({ ok: true, state: 'not configured' }),
  ]);
  const index = s.index();
  const sandbox = s.sandbox();
  const feed = s.feed();
  const checks: Readiness['checks'] = {
    database,
    redis,
    instrument_index: {
      ok: true,
      state: !index.enabled ? 'disabled' : index.ready ? 'ready' : 'loading',
      instruments: index.size,
    },
    sandbox_engine: {
      ok: !sandbox.analyze || sandbox.engineRunning,
      state: sandbox.engineRunning ? 'running' : 'stopped',
      mode: sandbox.analyze ? 'analyze' : 'live',
      ...(sandbox.analyze && !sandbox.engineRunning
        ? { reason: 'analyzer mode is on but the sandbox engine is not running' }
        : {}),
    },
    market_feed: {
      ok: true,
      state: feed.status,
      upstream: feed.upstream,
      stalls: feed.stalls,
      holds_upstream: feed.holds,
      ...(feed.status === 'stale'
        ? { reason: `${feed.stalled} subscribed instrument(s) in session have stopped ticking; reconnecting` }
        : {}),
    },
  };
  const failing = Object.entries(checks)
    .filter(([, c]) => !c.ok)
    .map(([name]) => name);
  return { ready: failing.length === 0, failing, checks };
}
