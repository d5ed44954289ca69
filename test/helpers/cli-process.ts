/**
 * Runs the real CLI from source (tsx) as a child process, asynchronously: a test of several
 * synchronous spawns blocks its Vitest worker for their whole time (a minute on a loaded 2-core
 * machine), and the worker's RPC to the runner gives up after a fixed 60 s, failing a run whose
 * tests all passed ("Timeout calling onTaskUpdate").
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

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
