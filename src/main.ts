import { buildApp } from './app.js';
import { ensureInstallSecrets, type Config } from './config.js';
import { createLogger, createStdoutDestination } from './platform/logger.js';
import { openRuntime } from './runtime.js';

/**
 * Process entry for `algodesk serve`: config → database → app → listen, then a graceful
 * shutdown on SIGINT/SIGTERM (stop accepting, finish in-flight requests, flush pending writes,
 * close the database).
 */
export async function serve(baseConfig: Config): Promise<void> {
  const out = createStdoutDestination();
  const logger = createLogger(baseConfig.logLevel, out.stream);
  // A crash is logged and flushed before the process ends, so its cause is never lost.
  process.once('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception; exiting');
    out.stop();
    process.exit(1);
  });
  const { config, warnings } = ensureInstallSecrets(baseConfig);
  for (const w of warnings) logger.warn(w);
  if (config.disableBanCheck)
    logger.warn('UNSAFE_DISABLE_BAN_CHECK is set: banned addresses are NOT blocked (benchmarks only)');

  const runtime = await openRuntime(config, logger);
  const { app, services } = await buildApp({ config, logger, ...runtime });
  await app.listen({ host: config.host, port: config.port });

  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  logger.info({ url, database: runtime.database.dialect }, `algodesk listening on ${url}`);
  process.stderr.write(`algodesk is running at ${url}\n`);
  if ((await services.users.count()) === 0) {
    process.stderr.write(
      'No user exists yet. Create the administrator with:\n' +
        '  npm run cli -- user create --username admin --email you@example.com --password-stdin\n' +
        '(type the password, then Ctrl-D), then an API key with:\n' +
        '  npm run cli -- apikey create --username admin\n',
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('shutdown took longer than 15 s; exiting');
      process.exit(1);
    }, 15_000);
    force.unref();
    // Connections that were busy when closing began become idle later; Node closes idle
    // keep-alive connections only once, so keep closing them until the server is down.
    const reaper = setInterval(() => app.server.closeIdleConnections(), 100);
    try {
      await app.close();
      clearInterval(reaper);
      await runtime.close();
      logger.info('stopped');
    } catch (err) {
      logger.error({ err }, 'error during shutdown');
      process.exitCode = 1;
    } finally {
      out.stop();
    }
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}
