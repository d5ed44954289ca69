/**
 * `algodesk serve` when start-up cannot succeed, run as an operator runs it (the real CLI in a
 * child process): a busy port, a bad or unresolvable `HOST`, an unreachable or silent Redis or
 * PostgreSQL. Each ends the process on its own (every wait is bounded) with exit code 1 and one
 * line on stderr naming the variable and the reason — no stack, no retry loop, no password. And a good start: the port
 * is bound before anything else, so a connection made during start-up is answered, and "running
 * at" is printed only once the server listens.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, onTestFinished } from 'vitest';

const CLI = ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'src', 'cli.ts'), 'serve'];
/**
 * The bound the product promises for a failed start-up is kept by its code (each wait is bounded
 * at 5 s, and the messages of a silent peer say so). The wall clock only guards against a hang:
 * a child still running after this is killed and fails the exit-code check. It is not a timing
 * assertion, as timings must not be on shared machines: through tsx, under the whole suite's
 * load on a slow 2-core machine, loading the app alone took ~10 s.
 */
const HANG_MS = 30_000;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

function freshDataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'algodesk-startup-'));
  dirs.push(d);
  return join(d, 'data');
}

/** A TCP server on a free loopback port; `silent` ones accept and never answer (a black hole). */
async function listener(
  silent = false,
  owned: Server[] = servers,
): Promise<{ port: number; server: Server }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    if (!silent) s.destroy();
  });
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  const origClose = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    sockets.forEach((s) => s.destroy());
    return origClose(cb);
  };
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  owned.push(server);
  return { port: (server.address() as { port: number }).port, server };
}

/** A port nothing listens on (bound, read and released). */
async function closedPort(): Promise<number> {
  const { port, server } = await listener();
  servers.splice(servers.indexOf(server), 1);
  await new Promise((r) => server.close(r));
  return port;
}

async function waitForText(read: () => string, text: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!read().includes(text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

interface Run {
  code: number | null;
  ms: number;
  stderr: string;
  stdout: string;
}

/** Runs `algodesk serve` with `env` to its end (killed at twice the bound: that is a failure). */
function serve(env: Record<string, string>): Promise<Run> {
  const started = Date.now();
  const proc = spawn(process.execPath, CLI, {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn', ...env },
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const killer = setTimeout(() => proc.kill('SIGKILL'), HANG_MS);
  return new Promise((resolve) =>
    proc.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, ms: Date.now() - started, stderr, stdout });
    }),
  );
}

/** The run ended on its own with exit 1 (not killed as hung) and one stderr line matching `line`. */
function expectOneLineFailure(run: Run, line: RegExp): void {
  expect(run.code, `${run.stderr}${run.stdout} (after ${run.ms} ms)`).toBe(1);
  expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(run.stderr).toMatch(line);
  expect(run.stderr + run.stdout).not.toMatch(/\n\s+at /); // no stack trace anywhere
}

describe('algodesk serve: a start-up that cannot succeed ends at once with one line', () => {
  it('a busy port: "port N is in use (PORT)", before the database is opened', async () => {
    const { port } = await listener();
    const dataDir = freshDataDir();
    const run = await serve({ PORT: String(port), DATA_DIR: dataDir });
    expectOneLineFailure(run, new RegExp(`^algodesk: port ${port} is in use \\(PORT\\)\\n$`));
    // Nothing was started on the data directory: no database, no install secrets.
    expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([]);
  }, 30_000);

  it('HOST that is not an address, that does not resolve, or that is not this machine', async () => {
    const port = String(await closedPort());
    const [bad, unresolvable, foreign] = await Promise.all([
      serve({ HOST: '999.1.1.1', PORT: port, DATA_DIR: freshDataDir() }),
      serve({ HOST: 'no-such-host.invalid', PORT: port, DATA_DIR: freshDataDir() }),
      serve({ HOST: '192.0.2.1', PORT: port, DATA_DIR: freshDataDir() }), // TEST-NET-1: never local
    ]);
    expectOneLineFailure(
      bad,
      /^algodesk: invalid configuration: HOST: "999\.1\.1\.1" is not a valid IPv4 address\n$/,
    );
    expectOneLineFailure(unresolvable, /^algodesk: HOST "no-such-host\.invalid" does not resolve \(\w+\)\n$/);
    expectOneLineFailure(foreign, /^algodesk: 192\.0\.2\.1 is not an address of this machine \(HOST\)\n$/);
  }, 30_000);
});

/**
 * The two silent peers each wait the whole bound (5 s): run side by side, each with listeners of
 * its own (a shared list closed after each test would close the other's black hole).
 */
describe.concurrent('algodesk serve: a store that refuses or never answers', () => {
  it('REDIS_URL refused or silent: names REDIS_URL and the reason, no password', async () => {
    const silent = await listener(true, []);
    onTestFinished(() => new Promise<void>((r) => silent.server.close(() => r())));
    const refusedPort = await closedPort();
    const [refused, blackHole] = await Promise.all([
      serve({
        PORT: String(await closedPort()),
        DATA_DIR: freshDataDir(),
        REDIS_URL: `redis://:redis-secret-pw@127.0.0.1:${refusedPort}/0`,
      }),
      serve({
        PORT: String(await closedPort()),
        DATA_DIR: freshDataDir(),
        REDIS_URL: `redis://127.0.0.1:${silent.port}`,
      }),
    ]);
    expectOneLineFailure(
      refused,
      new RegExp(
        `^algodesk: REDIS_URL: cannot connect to redis://127\\.0\\.0\\.1:${refusedPort}/0 \\(.*ECONNREFUSED.*\\)\\n$`,
      ),
    );
    expect(refused.stderr + refused.stdout).not.toContain('redis-secret-pw');
    expectOneLineFailure(
      blackHole,
      new RegExp(
        `^algodesk: REDIS_URL: cannot connect to redis://127\\.0\\.0\\.1:${silent.port} \\(.+\\)\\n$`,
      ),
    );
  }, 40_000);

  it('DATABASE_URL refused or silent: names DATABASE_URL and the reason, no password', async () => {
    const silent = await listener(true, []);
    onTestFinished(() => new Promise<void>((r) => silent.server.close(() => r())));
    const refusedPort = await closedPort();
    const [refused, blackHole] = await Promise.all([
      serve({
        PORT: String(await closedPort()),
        DATA_DIR: freshDataDir(),
        DATABASE_URL: `postgres://algo:pg-secret-pw@127.0.0.1:${refusedPort}/desk`,
      }),
      serve({
        PORT: String(await closedPort()),
        DATA_DIR: freshDataDir(),
        DATABASE_URL: `postgres://algo:pg-secret-pw@127.0.0.1:${silent.port}/desk`,
      }),
    ]);
    expectOneLineFailure(
      refused,
      new RegExp(
        `^algodesk: DATABASE_URL: cannot use postgres://127\\.0\\.0\\.1:${refusedPort}/desk \\(.*ECONNREFUSED.*\\)\\n$`,
      ),
    );
    expectOneLineFailure(
      blackHole,
      new RegExp(
        `^algodesk: DATABASE_URL: cannot use postgres://127\\.0\\.0\\.1:${silent.port}/desk \\(.+\\)\\n$`,
      ),
    );
    for (const r of [refused, blackHole]) expect(r.stderr + r.stdout).not.toContain('pg-secret-pw');
  }, 40_000);
});

describe('algodesk serve: the port first, then everything else', () => {
  it('a connection made while the app starts is answered; "running at" comes once listening', async () => {
    const port = await closedPort();
    const proc = spawn(process.execPath, CLI, {
      env: {
        ...process.env,
        DATABASE_URL: '',
        REDIS_URL: '',
        LOG_LEVEL: 'warn',
        PORT: String(port),
        DATA_DIR: freshDataDir(),
      },
    });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      // Connect as early as the port accepts: usually long before the app has finished starting.
      // Tried until the process exits (or HANG_MS): loading the CLI through tsx alone took ~10 s
      // on a loaded machine, so a count of tries is no bound.
      let socket: Socket | undefined;
      const giveUp = Date.now() + HANG_MS;
      while (!socket && proc.exitCode === null && Date.now() < giveUp) {
        socket = await new Promise<Socket | undefined>((resolve) => {
          const s = connect(port, '127.0.0.1');
          s.once('connect', () => resolve(s));
          s.once('error', () => resolve(undefined));
        });
        if (!socket) await new Promise((r) => setTimeout(r, 20));
      }
      expect(socket, stderr).toBeDefined();
      const answer = await new Promise<string>((resolve, reject) => {
        let got = '';
        socket!.on('data', (d: Buffer) => (got += d.toString()));
        socket!.on('end', () => resolve(got));
        socket!.on('error', reject);
        socket!.write(`GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toContain('{"status":"ok"}');
      await waitForText(() => stderr, 'running at');
      expect(stderr).toContain(`algodesk is running at http://127.0.0.1:${port}`);
      // The banner says where paper fills take their prices: no broker here, so simulated ones.
      await waitForText(() => stderr, 'sandbox prices:');
      expect(stderr).toMatch(
        /\nsandbox prices: simulated \(demo prices, not market data, auto: no broker configured\)\n/,
      );
      // The moment the banner is out, a fresh connection is served.
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
    } finally {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.on('exit', r));
    }
  }, 60_000);
});
