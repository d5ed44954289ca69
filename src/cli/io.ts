/**
 * What a command reads and writes: the environment and folder it runs in, and its three
 * streams. The `algodesk` process hands its own (src/cli.ts); tests run commands in-process with
 * streams of their own (test/helpers/cli-process.ts), as the process would run them.
 */
import type { Readable, Writable } from 'node:stream';
import { processEnvironment } from '../config.js';

export interface CliIO {
  env: Record<string, string | undefined>;
  cwd: string;
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  /** The exit code the command asks for without failing (a report that found differences). */
  exitCode: number;
}

/** This process's own. */
export function processIO(): CliIO {
  return {
    env: processEnvironment(),
    cwd: process.cwd(),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    exitCode: 0,
  };
}

/** A line of the command's answer (stdout). */
export const say = (io: CliIO, line: string): void => void io.stdout.write(`${line}\n`);
/** A line about the command (stderr): progress, warnings, what it used. */
export const note = (io: CliIO, line: string): void => void io.stderr.write(`${line}\n`);
