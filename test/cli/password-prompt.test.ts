/**
 * `user create` on a real terminal: the password is asked twice with nothing echoed, and the
 * user can then sign in with it; two different answers create nothing. The terminal is a pseudo-
 * terminal made by util-linux `script`, which gives the CLI a TTY as its stdin and relays what the
 * test types; everything the terminal showed comes back on `script`'s stdout.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ensureInstallSecrets, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { openRuntime } from '../../src/runtime.js';

const SCRIPT = spawnSync('script', ['--version']).status === 0;
const CLI_ARGS = ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'src', 'cli.ts')];
const CLI = [process.execPath, ...CLI_ARGS].join(' ');
const dataDir = mkdtempSync(join(tmpdir(), 'algodesk-tty-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * Runs `args` on a pseudo-terminal, typing each answer once its prompt has appeared; resolves
 * with the exit code and everything the terminal displayed.
 */
function onTerminal(args: string, answers: Array<[prompt: string, typed: string]>) {
  const proc = spawn('script', ['-qec', `${CLI} ${args}`, '/dev/null'], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' },
  });
  let shown = '';
  let next = 0;
  let answeredUpTo = 0;
  proc.stdout.on('data', (d: Buffer) => {
    shown += d.toString();
    const pending = answers[next];
    if (pending && shown.indexOf(pending[0], answeredUpTo) !== -1) {
      answeredUpTo = shown.indexOf(pending[0], answeredUpTo) + pending[0].length;
      next++;
      proc.stdin.write(`${pending[1]}\r`);
    }
  });
  return new Promise<{ code: number | null; shown: string }>((resolve) =>
    proc.on('exit', (code) => resolve({ code, shown })),
  );
}

describe.skipIf(!SCRIPT)('user create on a terminal asks the password, hidden', () => {
  it('asks twice, echoes nothing, and the user signs in with it', async () => {
    const password = 'typed-on-a-tty-1';
    const r = await onTerminal('user create --username tty --email tty@example.com', [
      ['Password: ', password],
      ['Password again: ', password],
    ]);
    expect(r.code, r.shown).toBe(0);
    expect(r.shown).toContain('created user tty (administrator)');
    expect(r.shown).not.toContain(password);

    const { config } = ensureInstallSecrets(
      loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, { envFile: false }),
    );
    const logger = createLogger('silent');
    const runtime = await openRuntime(config, logger);
    const { app } = await buildApp({ config, logger, ...runtime });
    try {
      const login = await app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { username: 'tty', password },
      });
      expect(login.statusCode).toBe(200);
    } finally {
      await app.close();
      await runtime.close();
    }
  }, 60_000);

  it('two different answers create nothing and say so', async () => {
    const r = await onTerminal('user create --username typo', [
      ['Password: ', 'first-answer-1'],
      ['Password again: ', 'second-answer-2'],
    ]);
    expect(r.code).toBe(1);
    expect(r.shown).toContain('algodesk: the two passwords differ; nothing was created');
    expect(r.shown).not.toMatch(/first-answer|second-answer/);
    const list = spawnSync(process.execPath, [...CLI_ARGS, 'user', 'list', '--json'], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    expect((JSON.parse(list.stdout) as Array<{ username: string }>).map((u) => u.username)).not.toContain(
      'typo',
    );
  }, 60_000);
});
