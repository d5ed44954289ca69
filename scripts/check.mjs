#!/usr/bin/env node
/**
 * The checks before the tests (`npm test`): ESLint, Prettier, and the type-check of the server and
 * of the console, run at the same time (each is single-threaded; run one after another they took
 * ~45 s of a two-core machine's wall time, together ~25 s). Each one's output is printed whole
 * when it ends, under its name; the script fails when any of them fails.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (pkg, path) => join(ROOT, 'node_modules', pkg, path);

const CHECKS = [
  ['eslint', [bin('eslint', 'bin/eslint.js'), '.']],
  ['prettier', [bin('prettier', 'bin/prettier.cjs'), '--check', '.']],
  ['tsc (server and tests)', [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json', '--noEmit']],
  ['tsc (console)', [bin('typescript', 'bin/tsc'), '-p', 'web/tsconfig.json']],
];

function run([name, args]) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const took = ((Date.now() - started) / 1000).toFixed(1);
      const head = `${code === 0 ? 'ok  ' : 'FAIL'} ${name} (${took} s)`;
      process.stdout.write(code === 0 && !out.trim() ? `${head}\n` : `${head}\n${out.trimEnd()}\n`);
      resolve(code === 0);
    });
  });
}

const results = await Promise.all(CHECKS.map(run));
if (results.some((ok) => !ok)) process.exitCode = 1;
