/**
 * The sandbox's services as the in-process benches build them (`sandbox-pass`, `day-jobs`): the
 * real engine and service on the bench's database and fake clock, its instruments from a map, its
 * warnings and errors (a refused close, a failed fill or job) on stderr.
 */
import pino from 'pino';
import type { Instrument } from '../../src/modules/market/instrument.js';
import { quoteKey } from '../../src/modules/sandbox/core/types.js';
import { buildSandboxServices } from '../../src/modules/sandbox/sandbox.plugin.js';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';

type SandboxDeps = Parameters<typeof buildSandboxServices>[0];

export function benchSandbox(deps: {
  db: SandboxDeps['db'];
  config: SandboxDeps['config'];
  clock: SandboxDeps['clock'];
  /** Instruments by `EXCHANGE:SYMBOL`. */
  instruments: ReadonlyMap<string, Instrument>;
  sessionOn: SandboxDeps['sessionOn'];
}): ReturnType<typeof buildSandboxServices> {
  const byKey = deps.instruments;
  return buildSandboxServices({
    db: deps.db,
    config: deps.config,
    clock: deps.clock,
    logger: pino({ level: 'warn' }, pino.destination(2)),
    bus: new LocalInvalidationBus(),
    instruments: { get: (symbol, exchange) => Promise.resolve(byKey.get(quoteKey(exchange, symbol))) },
    sessionOn: deps.sessionOn,
  });
}
