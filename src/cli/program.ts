/**
 * The `algodesk` command's program: every command, reading and writing through a {@link CliIO}
 * (the process's own from src/cli.ts; streams of their own in tests). Every failure ends with a
 * one-line message on stderr and a non-zero exit; `--help` works on every command. Every command
 * that opens the database names it on stderr (./services.ts), so stdout stays its answer.
 */
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { Presets, SingleBar } from 'cli-progress';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { BROKERS, isBroker } from '../domain/brokers.js';
import { toPublicUser } from '../modules/auth/users.service.js';
import { brokerIds, getFormat } from '../modules/market/importers/index.js';
import { isAppError } from '../platform/errors.js';
import { say, type CliIO } from './io.js';
import { readStdin, withServices } from './services.js';
import { userCommands } from './users.js';

/** This install's own address as `serve` listens on it (a wildcard host is reached on loopback). */
function localUrl(config: { host: string; port: number }): string {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** The `algodesk` command, reading and writing through `io`. */
export function buildCli(io: CliIO): Command {
  const program = new Command('algodesk')
    .description('Self-hosted algorithmic trading service for Indian markets')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    // Before any subcommand: they inherit it, so no command ends the process itself.
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void io.stderr.write(s),
    });

  program
    .command('serve')
    .description('run the HTTP service (config from the environment and ./.env)')
    .action(async () => {
      const { serve } = await import('../main.js');
      await serve(loadConfig(io.env, { cwd: io.cwd }));
    });

  program
    .command('migrate')
    .description('bring the database schema up to date')
    .action(async () => {
      await withServices(io, async (_s, rt) => say(io, `database is up to date (${rt.database.dialect})`), {
        create: true,
      });
    });

  program
    .command('mcp')
    .description(
      "serve the agent tools over stdio (MCP) for a desktop assistant, as an API key's user; the tools run on the algodesk at --url",
    )
    .option(
      '--apikey-stdin',
      'read the API key from the first line of standard input (else ALGODESK_API_KEY)',
    )
    .option(
      '--url <url>',
      "the running algodesk (default: ALGODESK_URL, else this install's HOST and PORT, as serve reads them)",
    )
    .action(async (opts: { apikeyStdin?: boolean; url?: string }) => {
      const url = opts.url ?? io.env.ALGODESK_URL ?? localUrl(loadConfig(io.env, { cwd: io.cwd }));
      const { firstLine, serveStdio } = await import('../modules/mcp/mcp-stdio.js');
      let input: Readable = io.stdin;
      let apikey = io.env.ALGODESK_API_KEY ?? '';
      if (opts.apikeyStdin) {
        const read = await firstLine(io.stdin);
        apikey = read.line;
        input = read.rest;
      }
      if (apikey === '') throw new Error('no API key: pass --apikey-stdin or set ALGODESK_API_KEY');
      if (!/^https?:\/\//.test(url)) throw new Error(`--url must be an http(s) URL: ${url}`);
      await serveStdio({
        url,
        apikey,
        input: input as Readable,
        output: io.stdout,
        version: program.version() ?? '0.1.0',
      });
    });

  userCommands(program, io);

  const brokerSession = program.command('broker-session').description("a user's live broker session");
  brokerSession
    .command('set')
    .description('store a broker access token for a user (sealed at rest); reads the token from stdin')
    .requiredOption('--username <name>', 'the user whose orders use the session')
    .requiredOption('--broker <name>', BROKERS.join(', '))
    .option('--broker-user-id <id>', "the broker's user id")
    .action(async (opts: { username: string; broker: string; brokerUserId?: string }) => {
      const broker = opts.broker.toLowerCase();
      if (!isBroker(broker)) throw new Error(`--broker must be one of ${BROKERS.join(', ')}`);
      const token = (await readStdin(io, 'no token given: pipe it on stdin')).trim();
      if (!/^[\x21-\x7e]{8,4096}$/.test(token))
        throw new Error('the token on stdin is not a plausible access token');
      await withServices(io, async (s) => {
        const row = await s.auth.users.findByUsername(opts.username);
        if (row === undefined) throw new Error(`no user named "${opts.username}"`);
        await s.brokers.sessions.set(toPublicUser(row).id, broker, {
          accessToken: token,
          ...(opts.brokerUserId ? { brokerUserId: opts.brokerUserId } : {}),
        });
        say(io, `broker session stored for ${opts.username} (${broker})`);
      });
    });
  brokerSession
    .command('login')
    .description(
      "log a user in to their broker app's form login (Angel One, Dhan): `name=value` lines on stdin " +
        '(Angel: client_code, pin, totp; Dhan: access_token)',
    )
    .requiredOption('--username <name>', 'the user (their chosen broker app, else BROKER_*)')
    .action(async (opts: { username: string }) => {
      const lines = (await readStdin(io, 'no login fields given: pipe name=value lines on stdin')).split(
        /\r?\n/,
      );
      const values: Record<string, string> = {};
      for (const line of lines.map((l) => l.trim()).filter((l) => l !== '')) {
        const at = line.indexOf('=');
        if (at <= 0) throw new Error('each line on stdin must be name=value');
        values[line.slice(0, at).trim()] = line.slice(at + 1).trim();
      }
      await withServices(io, async (s) => {
        const row = await s.auth.users.findByUsername(opts.username);
        if (row === undefined) throw new Error(`no user named "${opts.username}"`);
        const userId = toPublicUser(row).id;
        await s.brokers.apps.load();
        const app = await s.brokers.apps.appOf(userId);
        const adapter = app ? s.brokers.registry.forApp(app) : undefined;
        if (!app || !adapter) throw new Error('no broker app: set BROKER_NAME or add one on /admin/brokers');
        const fields = adapter.loginFields;
        if (!fields || !adapter.loginWith)
          throw new Error(`${app.broker} logs in through its own page: use /broker in the console`);
        for (const f of fields) {
          const v = values[f.name] ?? '';
          if (!new RegExp(`^(?:${f.pattern})$`).test(v))
            throw new Error(`${f.name}: missing or not in the expected form`);
        }
        const unknown = Object.keys(values).find((k) => !fields.some((f) => f.name === k));
        if (unknown !== undefined) throw new Error(`unknown login field: ${unknown.slice(0, 32)}`);
        try {
          const r = await adapter.loginWith(values);
          await s.brokers.sessions.set(userId, app.broker, r.session, r.expiresAt, app.id);
          const until =
            r.expiresAt === undefined ? '' : `, valid until ${new Date(r.expiresAt).toISOString()}`;
          say(io, `logged in to ${app.broker} for ${opts.username}${until}`);
        } finally {
          await s.brokers.registry.closeAll();
        }
      });
    });
  brokerSession
    .command('clear')
    .description("forget a user's broker session")
    .requiredOption('--username <name>', 'the user')
    .action(async (opts: { username: string }) => {
      await withServices(io, async (s) => {
        const row = await s.auth.users.findByUsername(opts.username);
        if (row === undefined) throw new Error(`no user named "${opts.username}"`);
        await s.brokers.sessions.clear(toPublicUser(row).id);
        say(io, `broker session removed for ${opts.username}`);
      });
    });

  const contracts = program.command('contracts').description('master contracts (instrument masters)');
  contracts
    .command('import')
    .description("import a broker's instrument file (plain or .gz) as the live master contract")
    .requiredOption('--broker <broker>', `file format: ${brokerIds().join(', ')}`)
    .requiredOption('--file <path>', 'the instrument file, e.g. instruments.csv or complete.csv.gz')
    .option('--json', 'print the summary as JSON')
    .action(async (opts: { broker: string; file: string; json?: boolean }) => {
      const format = getFormat(opts.broker.toLowerCase());
      if (!format) throw new Error(`unknown broker "${opts.broker}" (known: ${brokerIds().join(', ')})`);
      const size = statSync(opts.file).size;
      await withServices(
        io,
        async (s) => {
          const bar =
            io.stderr.isTTY && !opts.json
              ? new SingleBar(
                  {
                    format: 'importing [{bar}] {percentage}% | {rows} rows | {skipped} skipped',
                    hideCursor: true,
                  },
                  Presets.shades_classic,
                )
              : null;
          bar?.start(size, 0, { rows: 0, skipped: 0 });
          const id = await s.market.imports.begin(format.broker, basename(opts.file), 'pending');
          let summary;
          try {
            summary = await s.market.imports.run(id, format, createReadStream(opts.file), (p) =>
              bar?.update(p.bytes, { rows: p.rows, skipped: p.skipped }),
            );
          } finally {
            bar?.stop();
          }
          if (opts.json) return say(io, JSON.stringify(summary, null, 2));
          say(
            io,
            `imported ${summary.rows} instruments from ${basename(opts.file)} (${opts.broker}) in ${(summary.duration_ms / 1000).toFixed(1)} s; ${summary.skipped} rows skipped`,
          );
          for (const [exchange, types] of Object.entries(summary.by_exchange).sort())
            say(
              io,
              `  ${exchange.padEnd(10)} ${Object.entries(types)
                .sort()
                .map(([t, n]) => `${t} ${n}`)
                .join(', ')}`,
            );
          const reasons = Object.entries(summary.skipped_by_reason).sort((a, b) => b[1] - a[1]);
          if (reasons.length) say(io, 'skipped:');
          for (const [reason, n] of reasons) say(io, `  ${String(n).padStart(7)}  ${reason}`);
          for (const e of summary.skipped_examples.slice(0, 5)) say(io, `  e.g. line ${e.line}: ${e.reason}`);
        },
        { create: true },
      );
    });

  const sandbox = program.command('sandbox').description("analyzer mode's paper-trading accounts");
  sandbox
    .command('verify')
    .description(
      "recompute every account's positions, realised P&L, funds and fills from its trade book and report each difference (exit 1 on one)",
    )
    .option('--user <name>', 'check only this user (login name)')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { user?: string; json?: boolean }) => {
      await withServices(io, async (s) => {
        let userId: number | undefined;
        if (opts.user !== undefined) {
          const row = await s.auth.users.findByUsername(opts.user);
          if (row === undefined) throw new Error(`no user named "${opts.user}"`);
          userId = row.id;
        }
        const report = await s.sandbox.verify.run(userId === undefined ? {} : { userId });
        if (opts.json) say(io, JSON.stringify(report, null, 2));
        else {
          const names = new Map((await s.auth.users.list()).map((u) => [u.id, u.username]));
          for (const d of report.differences)
            say(io, `user ${names.get(d.user_id) ?? d.user_id}: ${d.check} ${d.subject}: ${d.detail}`);
          const of = `${report.accounts} sandbox account${report.accounts === 1 ? '' : 's'}`;
          say(
            io,
            report.drifted === 0
              ? `checked ${of}: every one agrees with its trade book`
              : `${report.differences.length} difference${report.differences.length === 1 ? '' : 's'} in ${report.drifted} of ${of}`,
          );
        }
        if (report.drifted > 0) io.exitCode = 1;
      });
    });

  return program;
}

/**
 * Runs the command line `argv` (node, script, args…) and returns its exit code; nothing here
 * ends the process.
 */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const program = buildCli(io);
  try {
    if (argv.length <= 2) {
      program.outputHelp();
      return 0;
    }
    await program.parseAsync(argv);
    return io.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    const message =
      err instanceof ConfigError
        ? err.message
        : isAppError(err) || err instanceof Error
          ? err.message
          : String(err);
    io.stderr.write(`algodesk: ${message.split('\n')[0]}\n`);
    return 1;
  }
}
