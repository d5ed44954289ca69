/**
 * `algodesk serve` as a child process for the kill tests (test/strategies/strategies-kill.test.ts):
 * the real process entry on the real database. With `KILL_AT_SEAM=<seam>` (a `StrategySeam` of
 * strategy-runner.ts) the process SIGKILLs itself the first time a strategy order reaches that
 * point between its writes — nothing after it runs, exactly as a kill -9 there. No switch in the
 * product does this: only this file passes the hook to `serve()`.
 */
import { loadConfig } from '../../src/config.js';
import { serve } from '../../src/main.js';

const seam = process.env.KILL_AT_SEAM;

await serve(loadConfig(), {
  ...(seam
    ? {
        strategySeam: (name) => {
          if (name === seam) process.kill(process.pid, 'SIGKILL');
        },
      }
    : {}),
});
