/**
 * Installs sharing one Redis server: the instances of one install (one database) hear each
 * other's invalidations and count in one rate window; another install on the same Redis hears
 * nothing of them and has windows of its own. Real runtimes (openRuntime) on real SQLite files
 * and a real Redis.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureInstallSecrets, loadConfig } from '../../src/config.js';
import { parseRateRules } from '../../src/platform/rate-rule.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { redisUrl } from '../helpers/test-app.js';

const cleanup: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup.length = 0;
});

async function instance(dataDir: string): Promise<Runtime> {
  const { config } = ensureInstallSecrets(
    loadConfig({ DATA_DIR: dataDir, REDIS_URL: redisUrl, LOG_LEVEL: 'silent' }, { envFile: false }),
  );
  const rt = await openRuntime(config, pino({ level: 'silent' }));
  cleanup.push(() => rt.close());
  return rt;
}

function install(): string {
  const dir = mkdtempSync(join(tmpdir(), 'algodesk-prefix-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('REDIS_PREFIX: installs on one Redis server', () => {
  it.skipIf(redisUrl === '')(
    "an install's instances share invalidations and rate windows; another install shares neither",
    async () => {
      const dirA = install();
      const [a1, a2, b] = [await instance(dirA), await instance(dirA), await instance(install())];
      const heard: string[] = [];
      a2.bus.subscribe('probe', (k) => heard.push(`a2:${k}`));
      b.bus.subscribe('probe', (k) => heard.push(`b:${k}`));
      a1.bus.publish('probe', 'x');
      for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100)); // time for a wrong delivery to arrive too
      expect(heard).toEqual(['a2:x']);

      const rule = parseRateRules('2 per minute');
      const key = `test:${Date.now()}`;
      expect((await a1.rateLimiter.hit(key, rule)).allowed).toBe(true);
      expect((await a2.rateLimiter.hit(key, rule)).allowed).toBe(true);
      expect((await a1.rateLimiter.hit(key, rule)).allowed).toBe(false); // one window for the install
      expect((await b.rateLimiter.hit(key, rule)).allowed).toBe(true); // the other install's own
    },
  );
});
