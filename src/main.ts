import { buildApp, type AppDeps } from './app.js';
import { describeDatabase, ensureInstallSecrets, type Config } from './config.js';
import { describePriceSource } from './config-sandbox.js';
import { publicUrlBanner } from './modules/tunnel/tunnel-target.js';
import type { TunnelDriver } from './modules/tunnel/tunnel.types.js';
import { isAbsolute, relative } from 'node:path';
import type { Logger } from 'pino';
import { bindEarly } from './platform/http/early-bind.js';
import { createLogger, createStdoutDestination } from './platform/logger.js';
import { StartupError } from './platform/startup-error.js';
import { openRuntime } from './runtime.js';

/** What a caller may replace in the served process (the process tests pass a fake tunnel). */
export interface ServeOptions {
  /** The public tunnel's provider; default ngrok. */
  tunnelDriver?: TunnelDriver;
  /** Called between a strategy order's writes (the kill tests end the process there). */
  strategySeam?: AppDeps['strategySeam'];
}

/** How long a graceful shutdown may take before the process exits anyway. */
const SHUTDOWN_BOUND_MS = 15_000;

/**
 * Process entry for `algodesk serve`: config → database → app → listen, then a graceful
 * shutdown on SIGINT/SIGTERM (stop accepting, finish in-flight requests, flush pending writes,
 * disconnect the tunnel, close the database). Every other way out (an uncaught exception, the
 * shutdown bound, a second signal) disconnects the tunnel too, waiting for it only a bounded time.
 */
/**
 * Everything before the server listens, in an order that fails early and cheaply: the port is
 * bound first (a busy port or a foreign `HOST` ends here, before any engine or timer), then the
 * database and Redis (each bounded, failing with a line naming its variable), then the app.
 */
async function start(baseConfig: Config, logger: Logger, opts: ServeOptions) {
  const binding = await bindEarly(baseConfig.host, baseConfig.port);
  try {
    const { config, warnings } = ensureInstallSecrets(baseConfig);
    for (const w of warnings) logger.warn(w);
    if (config.disableBanCheck)
      logger.warn('UNSAFE_DISABLE_BAN_CHECK is set: banned addresses are NOT blocked (benchmarks only)');
    const runtime = await openRuntime(config, logger);
    try {
      const { app, services } = await buildApp({
        config,
        logger,
        ...runtime,
        ...(opts.tunnelDriver ? { tunnelDriver: opts.tunnelDriver } : {}),
        ...(opts.strategySeam ? { strategySeam: opts.strategySeam } : {}),
      });
      return { config, runtime, app, services, binding };
    } catch (err) {
      await runtime.close();
      throw err;
    }
  } catch (err) {
    await binding.close();
    throw err;
  }
}

export async function serve(baseConfig: Config, opts: ServeOptions = {}): Promise<void> {
  const out = createStdoutDestination(
    baseConfig.logFormat === 'pretty' || (baseConfig.logFormat === 'auto' && process.stdout.isTTY === true)
      ? 'pretty'
      : 'json',
  );
  const logger = createLogger(baseConfig.logLevel, out.stream);
  /** Disconnects the tunnel within its bound; a no-op until the app (and its tunnel) exists. */
  let stopTunnel: () => Promise<unknown> = () => Promise.resolve();
  let exiting = false;
  /** Ends the process with `code` once the tunnel is disconnected (or its bound has passed). */
  const exitAfterTunnel = (code: number) => {
    if (exiting) return;
    exiting = true;
    void stopTunnel().finally(() => {
      out.stop();
      process.exit(code);
    });
  };
  // A crash is logged and flushed before the process ends, so its cause is never lost. (`on`,
  // not `once`: a second failure while the tunnel disconnects must not end the process early.)
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception; exiting');
    exitAfterTunnel(1);
  });
  let started: Awaited<ReturnType<typeof start>>;
  try {
    started = await start(baseConfig, logger, opts);
  } catch (err) {
    // A start-up failure is one line naming what to change (no stack); anything else is a bug.
    if (err instanceof StartupError) process.stderr.write(`algodesk: ${err.message}\n`);
    else logger.fatal({ err }, 'start-up failed');
    exitAfterTunnel(1);
    return;
  }
  const { config, runtime, app, services, binding } = started;
  const tunnel = services.tunnel.manager;
  stopTunnel = () => tunnel.stopWithin();
  // The public URL goes on the banner's stream too (at LOG_LEVEL=warn its info line is not
  // shown), right after "running at" even when the tunnel comes up before that line is written.
  let banner: 'pending' | 'shown' = 'pending';
  let earlyPublicUrl: string | undefined;
  tunnel.onUp((publicUrl) => {
    if (banner === 'shown') process.stderr.write(publicUrlBanner(publicUrl));
    else earlyPublicUrl = publicUrl;
  });
  try {
    // Starts the modules (`onReady`: engines, timers, the index load), then takes over the port.
    await app.listen(binding.listenOptions());
  } catch (err) {
    logger.fatal({ err }, 'start-up failed');
    await binding.close();
    await app.close().catch(() => undefined);
    await runtime.close().catch(() => undefined);
    exitAfterTunnel(1);
    return;
  }
  binding.handOver(app.server);
  // OpenAlgo's WebSocket port for the live feed; a taken port is logged, the service runs on.
  await app.feed.listenOwnPort();

  let stopping = false;
  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error(`shutdown took longer than ${SHUTDOWN_BOUND_MS / 1000} s; exiting`);
      exitAfterTunnel(1);
    }, SHUTDOWN_BOUND_MS);
    force.unref();
    // Connections that were busy when closing began become idle later; Node closes idle
    // keep-alive connections only once, so keep closing them until the server is down.
    const reaper = setInterval(() => app.server.closeIdleConnections(), 100);
    try {
      await app.close(); // its onClose hooks disconnect the tunnel
      clearInterval(reaper);
      await runtime.close();
      logger.info('stopped');
    } catch (err) {
      logger.error({ err }, 'error during shutdown');
      process.exitCode = 1;
      await stopTunnel(); // app.close() may have failed before the tunnel's hook
    } finally {
      out.stop();
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) {
      stopping = true;
      void shutdown(signal);
      return;
    }
    // A second Ctrl-C: the operator does not want to wait for in-flight requests.
    logger.warn({ signal }, 'second signal during shutdown; exiting now');
    exitAfterTunnel(1);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  // Fastify logged "Server listening at"; the person at the terminal reads the banner below.
  process.stderr.write(
    `algodesk is running at ${url}\ndatabase: ${describeDatabase(config)}\n${describePriceSource(config)}\n`,
  );
  banner = 'shown';
  if (earlyPublicUrl) process.stderr.write(publicUrlBanner(earlyPublicUrl));
  if ((await services.auth.users.count()) === 0) {
    const cli = cliCommand();
    process.stderr.write(
      `No user exists yet. Open ${config.hostServer}/setup in a browser to create the administrator,\n` +
        'or on the command line:\n' +
        `  ${cli} user create --username admin --email you@example.com\n` +
        'then an API key with:\n' +
        `  ${cli} apikey create --username admin\n`,
    );
  }
}

/**
 * The command line that runs this CLI the way this server was started: `npm run -s cli --` from
 * npm (`npm start`), else node with its options and the script's path (a container, a service unit).
 */
function cliCommand(): string {
  if (process.env.npm_lifecycle_event === 'start') return 'npm run -s cli --';
  const script = process.argv[1] ?? 'dist/src/cli.js';
  const rel = relative(process.cwd(), script);
  return ['node', ...process.execArgv, rel.startsWith('..') || isAbsolute(rel) ? script : rel].join(' ');
}
