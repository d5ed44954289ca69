/**
 * What the commands share: the services on the configured database (the same `.env`,
 * `DATA_DIR` and `DATABASE_URL` as `serve`, named on stderr), and the input they read.
 */
import { existsSync } from 'node:fs';
import pino from 'pino';
import type { Services } from '../app.js';
import { describeDatabase, ensureInstallSecrets, loadConfig, sqliteFile } from '../config.js';
import { createLogger } from '../platform/logger.js';
import type { Runtime } from '../runtime.js';
import { note, type CliIO } from './io.js';

export interface ServicesOptions {
  /**
   * The command may create the database (`migrate`, `user create`, `contracts import`). Every
   * other command only works on an install that exists: on SQLite without a database file it
   * says where it looked and creates nothing.
   */
  create?: boolean;
}

/**
 * Runs `fn` with the services built (not started: no timers, no tunnel, no index load) on the
 * configured database, which it names on stderr so stdout stays the command's answer.
 */
export async function withServices<T>(
  io: CliIO,
  fn: (s: Services, rt: Runtime) => Promise<T>,
  opts: ServicesOptions = {},
): Promise<T> {
  const base = loadConfig(io.env, { cwd: io.cwd });
  if (!base.databaseUrl && !opts.create && !existsSync(sqliteFile(base))) {
    throw new Error(
      `no database at ${sqliteFile(base)}: nothing was created. Run this where the server runs (its ` +
        '.env), with the DATA_DIR or DATABASE_URL it was started with, or start the server once',
    );
  }
  note(io, `algodesk: database: ${describeDatabase(base)}`);
  // Loaded here, not at the top: `--help` and argument errors answer without loading the app.
  const [{ openRuntime }, { buildApp }] = await Promise.all([import('../runtime.js'), import('../app.js')]);
  const logger = createLogger('warn', pino.destination(2));
  const { config, warnings } = ensureInstallSecrets(base);
  for (const w of warnings) note(io, `warning: ${w}`);
  const runtime = await openRuntime(config, logger);
  let built: Services | undefined;
  try {
    built = (await buildApp({ config, logger, ...runtime })).services;
    return await fn(built, runtime);
  } finally {
    // The command's warnings (a refused import, say) are in the error log before it closes: the
    // app is never started here, so no shutdown hook would write them.
    await built?.observability.errors.stop();
    await runtime.close();
  }
}

/** All of standard input (a pipe), without its final newline; `whenTty` is the error on a terminal. */
export async function readStdin(io: CliIO, whenTty: string): Promise<string> {
  if (io.stdin.isTTY) throw new Error(whenTty);
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/**
 * A new password: typed twice on a terminal with nothing echoed (the prompt on stderr, so stdout
 * stays the command's answer), or read from a pipe. Never from the command line unless `--password`
 * was given, which lands in shell history.
 */
export async function newPassword(io: CliIO, what: 'created' | 'changed' = 'changed'): Promise<string> {
  if (!io.stdin.isTTY) return readStdin(io, '');
  const { read } = await import('read');
  const ask = (prompt: string) =>
    read({ prompt, silent: true, replace: '', input: io.stdin, output: io.stderr });
  const first = await ask('Password: ');
  if (first.length === 0) throw new Error('no password given');
  const again = await ask('Password again: ');
  io.stderr.write('\n'); // the hidden answer left the cursor after the prompt
  if (again !== first) throw new Error(`the two passwords differ; nothing was ${what}`);
  return first;
}
