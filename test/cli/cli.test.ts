import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_FROM_SOURCE, runCli, runCliHere } from '../helpers/cli-process.js';

/**
 * The commands' rules run in-process (runCliHere: the program on streams of the test's own, as
 * the process runs it); what only a process shows — its own exit code and stderr, signals, the
 * server — runs the real command as a child.
 */
let dataDir: string;
const env = () => ({
  PATH: process.env.PATH,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  DATABASE_URL: '',
  REDIS_URL: '',
});
const run = (args: string[], input?: string, extraEnv: Record<string, string> = {}) =>
  runCliHere(args, { env: { ...env(), ...extraEnv }, ...(input !== undefined ? { input } : {}) });

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'algodesk-cli-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('algodesk CLI', () => {
  it('--help works on every command', async () => {
    for (const args of [
      ['--help'],
      ['serve', '--help'],
      ['migrate', '--help'],
      ['user', 'create', '--help'],
      ['user', 'list', '--help'],
      ['apikey', 'create', '--help'],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.out).toMatch(/Usage: algodesk/);
    }
  }, 60_000);

  it('migrate, user create (first is admin, password from stdin too), user list, apikey create', async () => {
    expect((await run(['migrate'])).out).toMatch(/database is up to date \(sqlite\)/);
    const admin = await run([
      'user',
      'create',
      '--username',
      'Admin',
      '--password',
      'admin-password-1',
      '--email',
      'a@example.com',
    ]);
    expect(admin.code).toBe(0);
    expect(admin.out.trim()).toBe('created user admin (administrator)');
    const bob = await run(['user', 'create', '--username', 'bob', '--password-stdin'], 'bob-password-1\n');
    expect(bob.out.trim()).toBe('created user bob');
    const list = await run(['user', 'list', '--json']);
    expect(
      (JSON.parse(list.out) as Array<{ username: string; is_admin: boolean }>).map((u) => [
        u.username,
        u.is_admin,
      ]),
    ).toEqual([
      ['admin', true],
      ['bob', false],
    ]);
    const key = await run(['apikey', 'create', '--username', 'admin']);
    expect(key.code).toBe(0);
    expect(key.out).toMatch(/^[0-9a-f]{64}\n$/); // only the key on stdout
  }, 60_000);

  it('manages accounts on the server: an administrator, passwords, two-factor, disable, delete, never the last administrator', async () => {
    // The users of the test above: admin (administrator) and bob.
    const carol = await run(
      ['user', 'create', '--username', 'carol', '--admin', '--password-stdin'],
      'carol-password-1\n',
    );
    expect(carol.out.trim()).toBe('created user carol (administrator)');
    const list = await run(['user', 'list']);
    expect(
      list.out
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t').slice(1, 6)),
    ).toEqual([
      ['admin', 'a@example.com', 'admin', '2fa-off', 'enabled'],
      ['bob', '-', 'user', '2fa-off', 'enabled'],
      ['carol', '-', 'admin', '2fa-off', 'enabled'],
    ]);
    const pw = await run(
      ['user', 'set-password', '--username', 'bob', '--password-stdin'],
      'bob-password-2\n',
    );
    expect([pw.code, pw.out.trim()]).toEqual([0, 'password of bob set; their sessions ended']);
    expect((await run(['user', 'reset-2fa', '--username', 'bob'])).out).toMatch(/^two-factor of bob is off/);
    expect((await run(['user', 'disable', '--username', 'bob'])).out.trim()).toBe('bob is disabled');
    const refusedKey = await run(['apikey', 'create', '--username', 'bob']);
    expect([refusedKey.code, refusedKey.err.trim().split('\n').at(-1)]).toEqual([
      1,
      'algodesk: bob is disabled: enable them first',
    ]);
    expect((await run(['user', 'enable', '--username', 'bob'])).out.trim()).toBe('bob is enabled');
    expect((await run(['user', 'revoke-admin', '--username', 'carol'])).out.trim()).toBe(
      'carol is no longer an administrator',
    );
    const last = await run(['user', 'revoke-admin', '--username', 'admin']);
    expect(last.code).toBe(1);
    expect(last.err).toMatch(/algodesk: The install must keep an enabled administrator/);
    expect((await run(['user', 'delete', '--username', 'carol'])).code).not.toBe(0); // --yes is required
    expect((await run(['user', 'delete', '--username', 'carol', '--yes'])).out.trim()).toBe(
      'deleted user carol',
    );
    const after = await run(['user', 'list', '--json']);
    expect((JSON.parse(after.out) as Array<{ username: string }>).map((u) => u.username)).toEqual([
      'admin',
      'bob',
    ]);
  }, 90_000);

  it('fails with a non-zero exit and one line on stderr (after the line naming the database)', async () => {
    const db = `algodesk: database: SQLite at ${join(dataDir, 'algodesk.db')}\n`;
    const short = await run(['user', 'create', '--username', 'carol', '--password', 'short']);
    expect(short.code).toBe(1);
    expect(short.err).toBe(`${db}algodesk: password must be at least 8 characters\n`);
    const unknown = await run(['apikey', 'create', '--username', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe(`${db}algodesk: no user named "nobody"\n`);
    // The same from the real process: its exit code and its stderr.
    const process1 = await runCli(['apikey', 'create', '--username', 'nobody'], { env: env() });
    expect([process1.code, process1.out, process1.err]).toEqual([
      1,
      '',
      `${db}algodesk: no user named "nobody"\n`,
    ]);
    const badConfig = await run(['user', 'list'], undefined, { PORT: 'eighty' });
    expect(badConfig.code).toBe(1);
    expect(badConfig.err).toMatch(/^algodesk: invalid configuration: PORT: "eighty" is not an integer\n$/);
    const missing = await run(['user', 'create']);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toMatch(/required option '--username <name>'/);
    expect((await run(['frobnicate'])).code).not.toBe(0);
  }, 60_000);
});

describe('the command line uses the configured database and names it', () => {
  it('a command that only reads creates no database where there is none, and says where it looked', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'algodesk-cli-empty-'));
    try {
      for (const args of [
        ['user', 'list'],
        ['apikey', 'create', '--username', 'admin'],
        ['sandbox', 'verify'],
      ]) {
        const r = await runCliHere(args, { env: { ...env(), DATA_DIR: empty } });
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.err).toMatch(
          new RegExp(`^algodesk: no database at ${join(empty, 'algodesk.db')}: nothing was created\\.`),
        );
      }
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function waitFor(proc: ChildProcess, pattern: RegExp, stream: 'stdout' | 'stderr'): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}: ${seen}`)), 20_000);
    proc[stream]!.on('data', (d: Buffer) => {
      seen += d.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve(seen);
      }
    });
  });
}

describe('algodesk serve: listens, answers, and shuts down gracefully', () => {
  it('prints the URL, serves ping to a curl-style body, finishes in-flight requests on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-serve-'));
    const port = await freePort();
    const serveEnv = { ...env(), DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'info' };
    const proc = spawn(process.execPath, [...CLI_FROM_SOURCE, 'serve'], { env: serveEnv });
    const stdout: string[] = [];
    proc.stdout.on('data', (d: Buffer) => stdout.push(d.toString()));
    const banner = await waitFor(proc, /No user exists yet[\s\S]*apikey create/, 'stderr');
    expect(banner).toContain(`algodesk is running at http://127.0.0.1:${port}`);
    // The commands it shows run the CLI the way this server was started (here: node, tsx, the source).
    expect(banner).toContain(
      '\n  node --import tsx src/cli.ts user create --username admin --email you@example.com\n',
    );

    // The CLI writes to the same SQLite file while the server runs (WAL).
    const serveOnly = { DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'info' };
    const made = await run(
      ['user', 'create', '--username', 'op', '--password', 'op-password-1'],
      undefined,
      serveOnly,
    );
    expect(made.code).toBe(0);
    const key = (await run(['apikey', 'create', '--username', 'op'], undefined, serveOnly)).out.trim();

    const base = `http://127.0.0.1:${port}`;
    const ok = await fetch(`${base}/api/v1/ping`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify({ apikey: key }),
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'success', data: { message: 'pong', broker: null } });
    const bad = await fetch(`${base}/api/v1/ping`, {
      method: 'POST',
      body: JSON.stringify({ apikey: 'wrong' }),
    });
    expect(bad.status).toBe(403);
    expect(await bad.json()).toMatchObject({ status: 'error', message: 'Invalid algodesk apikey' });

    // A login (argon2, tens of ms) is in flight when SIGTERM arrives: it must still be answered.
    const inFlight = fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'op', password: 'op-password-1' }),
    });
    await new Promise((r) => setTimeout(r, 5));
    proc.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(200);
    const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
    expect(code).toBe(0);
    const log = stdout.join('');
    expect(log).toMatch(/"msg":"stopped"/);
    expect(log).not.toContain(key);
    expect(log).not.toContain('op-password-1');
    rmSync(dir, { recursive: true, force: true });
  }, 90_000);
});
