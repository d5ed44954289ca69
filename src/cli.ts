#!/usr/bin/env node
/**
 * The `algodesk` process: the program of src/cli/program.ts on this process's own streams and
 * environment. Output piped into a reader that stops early (`| head`) ends it quietly.
 */
import { processIO } from './cli/io.js';
import { runCli } from './cli/program.js';

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  process.stderr.write(`algodesk: cannot write the output (${err.code ?? err.message})\n`);
  process.exit(1);
});
process.exitCode = await runCli(process.argv, processIO());
