#!/usr/bin/env node
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { Presets, SingleBar } from 'cli-progress';
import { Command, CommanderError } from 'commander';
import pino from 'pino';
import { ConfigError, ensureInstallSecrets, loadConfig } from './config.js';
import { isAppError } from './platform/errors.js';
import type { Runtime } from './runtime.js';
import type { Services } from './app.js';
import { createLogger } from './platform/logger.js';
import { toPublicUser } from './modules/auth/users.service.js';
import { brokerIds, getFormat } from './modules/market/importers/index.js';
import { BROKERS, isBroker } from './domain/brokers.js';

/**
 * The `algodesk` command. Every failure ends with a one-line message on stderr and a non-zero
 * exit; `--help` works on every command.
 */
async function withServices<T>(fn: (s: Services, rt: Runtime) => Promise<T>): Promise<T> {
  // Loaded here, not at the top: `--help` and argument errors answer without loading the app.
  const [{ openRuntime }, { buildApp }] = await Promise.all([import('./runtime.js'), import('./app.js')]);
  const logger = createLogger('warn', pino.destination(2));
  const { config, warnings } = ensureInstallSecrets(loadConfig());
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
  const runtime = await openRuntime(config, logger);
  try {
    // The modules are built, not started (no `ready()`): no timers, no tunnel, no index load.
    const { services } = await buildApp({ config, logger, ...runtime });
    return await fn(services, runtime);
  } finally {
    await runtime.close();
  }
}

async function readStdin(whenTty: string): Promise<string> {
  if (process.stdin.isTTY) throw new Error(whenTty);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/**
 * A new password: typed twice on a terminal with nothing echoed (the prompt on stderr, so stdout
 * stays the command's answer), or read from a pipe. Never from the command line unless `--password`
 * was given, which lands in shell history.
 */
async function newPassword(): Promise<string> {
  if (!process.stdin.isTTY) return readStdin('');
  const { read } = await import('read');
  const ask = (prompt: string) =>
    read({ prompt, silent: true, replace: '', input: process.stdin, output: process.stderr });
  const first = await ask('Password: ');
  if (first.length === 0) throw new Error('no password given');
  const again = await ask('Password again: ');
  process.stderr.write('\n'); // the hidden answer left the cursor after the prompt
  if (again !== first) throw new Error('the two passwords differ; nothing was created');
  return first;
}

export function buildCli(): Command {
  const program = new Command('algodesk')
    .description('Self-hosted algorithmic trading service for Indian markets')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)');

  program
    .command('serve')
    .description('run the HTTP service (config from the environment and ./.env)')
    .action(async () => {
      const { serve } = await import('./main.js');
      await serve(loadConfig());
    });

  program
    .command('migrate')
    .description('bring the database schema up to date')
    .action(async () => {
      await withServices(async (_s, rt) => console.log(`database is up to date (${rt.database.dialect})`));
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
    .option('--url <url>', 'the running algodesk', process.env.ALGODESK_URL ?? 'http://127.0.0.1:5000')
    .action(async (opts: { apikeyStdin?: boolean; url: string }) => {
      const { firstLine, serveStdio } = await import('./modules/mcp/mcp-stdio.js');
      let input: Readable = process.stdin;
      let apikey = process.env.ALGODESK_API_KEY ?? '';
      if (opts.apikeyStdin) {
        const read = await firstLine(process.stdin);
        apikey = read.line;
        input = read.rest;
      }
      if (apikey === '') throw new Error('no API key: pass --apikey-stdin or set ALGODESK_API_KEY');
      if (!/^https?:\/\//.test(opts.url)) throw new Error(`--url must be an http(s) URL: ${opts.url}`);
      await serveStdio({
        url: opts.url,
        apikey,
        input: input as Readable,
        output: process.stdout,
        version: program.version() ?? '0.1.0',
      });
    });

  const user = program.command('user').description('manage users');
  user
    .command('create')
    .description('create a user (the first user becomes the administrator)')
    .requiredOption('--username <name>', 'login name (case-insensitive)')
    .option(
      '--password <password>',
      'password, at least 8 characters (lands in shell history: prefer the prompt)',
    )
    .option(
      '--password-stdin',
      'read the password from standard input (a pipe); on a terminal it is asked, hidden',
    )
    .option('--email <email>', 'e-mail address')
    .action(
      async (opts: { username: string; password?: string; passwordStdin?: boolean; email?: string }) => {
        const password = opts.password ?? (await newPassword());
        await withServices(async (s) => {
          const created = await s.auth.users.create({
            username: opts.username,
            password,
            email: opts.email ?? null,
          });
          console.log(`created user ${created.username}${created.is_admin ? ' (administrator)' : ''}`);
        });
      },
    );
  user
    .command('list')
    .description('list users')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await withServices(async (s) => {
        const users = await s.auth.users.list();
        if (opts.json) return console.log(JSON.stringify(users, null, 2));
        if (users.length === 0) return console.log('no users');
        for (const u of users)
          console.log(
            `${u.id}\t${u.username}\t${u.email ?? '-'}\t${u.is_admin ? 'admin' : 'user'}\t${u.created_at}`,
          );
      });
    });

  const apikey = program.command('apikey').description('manage API keys');
  apikey
    .command('create')
    .description('issue a new API key for a user (revokes the old one); prints only the key')
    .requiredOption('--username <name>', 'owner of the key')
    .action(async (opts: { username: string }) => {
      await withServices(async (s) => {
        const row = await s.auth.users.findByUsername(opts.username);
        if (row === undefined) throw new Error(`no user named "${opts.username}"`);
        const { apikey: key } = await s.auth.apiKeys.regenerate(toPublicUser(row).id);
        console.log(key);
      });
    });

  const brokerSession = program.command('broker-session').description("a user's live broker session");
  brokerSession
    .command('set')
    .description('store a broker access token for a user (sealed at rest); reads the token from stdin')
    .requiredOption('--username <name>', 'the user whose orders use the session')
    .requiredOption('--broker <name>', BROKERS.join(' or '))
    .option('--broker-user-id <id>', "the broker's user id")
    .action(async (opts: { username: string; broker: string; brokerUserId?: string }) => {
      const broker = opts.broker.toLowerCase();
      if (!isBroker(broker)) throw new Error(`--broker must be ${BROKERS.join(' or ')}`);
      const token = (await readStdin('no token given: pipe it on stdin')).trim();
      if (!/^[\x21-\x7e]{8,4096}$/.test(token))
        throw new Error('the token on stdin is not a plausible access token');
      await withServices(async (s) => {
        const row = await s.auth.users.findByUsername(opts.username);
        if (row === undefined) throw new Error(`no user named "${opts.username}"`);
        await s.brokers.sessions.set(toPublicUser(row).id, broker, {
          accessToken: token,
          ...(opts.brokerUserId ? { brokerUserId: opts.brokerUserId } : {}),
        });
        console.log(`broker session stored for ${opts.username} (${broker})`);
      });
    });
  brokerSession
    .command('clear')
    .description("forget a user's broker session")
    .requiredOption('--username <name>', 'the user')
    .action(async (opts: { username: string }) => {
      await withServices(async (s) => {
        const row = await s.auth.users.findByUsername(opts.username);
        if (row === undefined) throw new Error(`no user named "${opts.username}"`);
        await s.brokers.sessions.clear(toPublicUser(row).id);
        console.log(`broker session removed for ${opts.username}`);
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
      await withServices(async (s) => {
        const bar =
          process.stderr.isTTY && !opts.json
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
        if (opts.json) return console.log(JSON.stringify(summary, null, 2));
        console.log(
          `imported ${summary.rows} instruments from ${basename(opts.file)} (${opts.broker}) in ${(summary.duration_ms / 1000).toFixed(1)} s; ${summary.skipped} rows skipped`,
        );
        for (const [exchange, types] of Object.entries(summary.by_exchange).sort())
          console.log(
            `  ${exchange.padEnd(10)} ${Object.entries(types)
              .sort()
              .map(([t, n]) => `${t} ${n}`)
              .join(', ')}`,
          );
        const reasons = Object.entries(summary.skipped_by_reason).sort((a, b) => b[1] - a[1]);
        if (reasons.length) console.log('skipped:');
        for (const [reason, n] of reasons) console.log(`  ${String(n).padStart(7)}  ${reason}`);
        for (const e of summary.skipped_examples.slice(0, 5))
          console.log(`  e.g. line ${e.line}: ${e.reason}`);
      });
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
      await withServices(async (s) => {
        let userId: number | undefined;
        if (opts.user !== undefined) {
          const row = await s.auth.users.findByUsername(opts.user);
          if (row === undefined) throw new Error(`no user named "${opts.user}"`);
          userId = row.id;
        }
        const report = await s.sandbox.verify.run(userId === undefined ? {} : { userId });
        if (opts.json) console.log(JSON.stringify(report, null, 2));
        else {
          const names = new Map((await s.auth.users.list()).map((u) => [u.id, u.username]));
          for (const d of report.differences)
            console.log(`user ${names.get(d.user_id) ?? d.user_id}: ${d.check} ${d.subject}: ${d.detail}`);
          const of = `${report.accounts} sandbox account${report.accounts === 1 ? '' : 's'}`;
          console.log(
            report.drifted === 0
              ? `checked ${of}: every one agrees with its trade book`
              : `${report.differences.length} difference${report.differences.length === 1 ? '' : 's'} in ${report.drifted} of ${of}`,
          );
        }
        if (report.drifted > 0) process.exitCode = 1;
      });
    });

  return program;
}

async function main(argv: string[]): Promise<void> {
  // Output piped into a reader that stops early (`| head`) ends the command quietly, not with a stack.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    process.stderr.write(`algodesk: cannot write the output (${err.code ?? err.message})\n`);
    process.exit(1);
  });
  const program = buildCli().exitOverride();
  try {
    if (argv.length <= 2) {
      program.outputHelp();
      return;
    }
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    const message =
      err instanceof ConfigError
        ? err.message
        : isAppError(err) || err instanceof Error
          ? err.message
          : String(err);
    process.stderr.write(`algodesk: ${message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}

await main(process.argv);
