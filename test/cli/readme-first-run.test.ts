/**
 * The README's first run, as a newcomer runs it: `npm start` (the server, built once by `npm
 * install`), then the README's command-line block through `sh`, exactly as printed: the
 * administrator created with the password from a pipe, the key captured with `$(…)`, and the
 * `curl` that must answer what the README says it answers (`pong`). Only the data folder is the
 * test's own (`DATA_DIR`, which the server and the command line both read).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The `n`th (0-based) fenced `sh` block after `heading`. */
function shBlock(heading: string, n: number): string {
  const from = README.indexOf(heading);
  if (from < 0) throw new Error(`README has no "${heading}"`);
  const blocks = [...README.slice(from).matchAll(/```sh\n([\s\S]*?)```/g)];
  const block = blocks[n]?.[1];
  if (block === undefined) throw new Error(`README: no sh block ${n} after "${heading}"`);
  return block;
}

/** Whether something already listens on `port` (the README's block names port 5000). */
function busy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(true));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
  });
}

/** What the child processes get: the machine's PATH and HOME (npm needs both), the data folder. */
function cleanEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    DATA_DIR: dataDir,
    ...extra,
  };
}

const dataDir = mkdtempSync(join(tmpdir(), 'algodesk-readme-'));
let server: ChildProcess | undefined;
afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    // npm runs the server as a child of its own: the whole process group gets the signal, or the
    // server outlives the test on its port.
    process.kill(-server.pid!, 'SIGTERM');
    await exited;
  }
  // The server itself may still be shutting down: its group has 20 s to end, then it is killed,
  // so no run leaves a server behind.
  const alive = () => {
    try {
      process.kill(-server!.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let i = 0; server && i < 40 && alive(); i++) await new Promise((r) => setTimeout(r, 500));
  if (server && alive()) process.kill(-server.pid!, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the README's first run", () => {
  it('npm start, then the command-line block through sh as printed, ends with pong', async () => {
    const block = shBlock('## Run it', 1);
    expect(block).toContain('KEY=$(npm run -s cli -- apikey create --username admin)');
    const promised = /^# (\{.*"pong".*\})$/m.exec(block)?.[1];
    expect(promised, 'the README says what the ping answers').toBeDefined();
    // The block names port 5000; where that is taken on this machine, both sides move together.
    const port = (await busy(5000)) ? String(await freePort()) : '5000';
    const script = port === '5000' ? block : block.replaceAll('localhost:5000', `localhost:${port}`);

    server = spawn('npm', ['start'], { cwd: ROOT, env: cleanEnv(dataDir, { PORT: port }), detached: true });
    let out = '';
    server.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    server.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not start:\n${out}`)), 120_000);
      const check = () => {
        if (!out.includes('algodesk is running at')) return;
        clearTimeout(timer);
        resolve();
      };
      server!.stderr!.on('data', check);
      server!.once('exit', () => {
        clearTimeout(timer);
        reject(new Error(`npm start exited:\n${out}`));
      });
    });

    const run = spawn('sh', ['-c', script], { cwd: ROOT, env: cleanEnv(dataDir) });
    let stdout = '';
    let stderr = '';
    run.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    run.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    run.stdin.end('first run horse battery\n'); // `user create` reads the password from the pipe
    const code = await new Promise<number | null>((r) => run.once('close', r));
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('created user admin (administrator)');
    // The key went into $KEY and nowhere else; the ping answered as the README says.
    expect(lines.at(-1)).toBe(promised);
    expect(stdout).not.toMatch(/[0-9a-f]{64}/);
  }, 180_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
