/**
 * Runs the real CLI from source (tsx) as a child process, asynchronously: a test of several
 * synchronous spawns blocks its Vitest worker for their whole time (a minute on a loaded 2-core
 * machine), and the worker's RPC to the runner gives up after a fixed 60 s, failing a run whose
 * tests all passed ("Timeout calling onTaskUpdate").
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';

/** Node's arguments that run the CLI from source, as `npm run cli` runs it from dist. */
export const CLI_FROM_SOURCE = ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'src', 'cli.ts')];

export interface CliResult {
  code: number | null;
  out: string;
  err: string;
}

export function runCli(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_FROM_SOURCE, ...args], {
      env: opts.env,
      timeout: opts.timeoutMs ?? 30_000,
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Runs a command in this process, as the `algodesk` process would run it (src/cli/program.ts),
 * with `env` as its whole environment, `input` on a piped standard input, and its outputs
 * captured: the cheap way to state a command's rules (a child process costs seconds to start).
 * What only a process shows (signals, a terminal, the process's own exit) stays with
 * {@link runCli}.
 */
export async function runCliHere(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; input?: string; cwd?: string },
): Promise<CliResult> {
  const { runCli: run } = await import('../../src/cli/program.js');
  let out = '';
  let err = '';
  const stdout = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out += chunk.toString();
      cb();
    },
  });
  const stderr = new Writable({
    write(chunk: Buffer, _enc, cb) {
      err += chunk.toString();
      cb();
    },
  });
  const stdin = Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input)]);
  const code = await run(['node', 'algodesk', ...args], {
    env: opts.env,
    // Not the repository: a developer's .env there must not leak into a test.
    cwd: opts.cwd ?? tmpdir(),
    stdin,
    stdout,
    stderr,
    exitCode: 0,
  });
  return { code, out, err };
}
