/**
 * Redis going away while the service runs: requests are still served (rate limits let them
 * through), the outage is one warning per connection (not a line per reconnect attempt), and
 * when Redis returns the connections say so and cache invalidations flow again. A real app on a
 * real runtime (openRuntime) whose Redis is reached through a TCP relay the test cuts and restores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ensureInstallSecrets, loadConfig } from '../../src/config.js';
import { openRuntime } from '../../src/runtime.js';
import { redisUrl } from '../helpers/test-app.js';

const cleanup: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup.length = 0;
});

/** A TCP relay to Redis that can be cut (every connection dropped, nothing accepted) and restored. */
async function relay(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const up = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  };
  const down = async () => {
    const closed = new Promise((r) => server!.close(r));
    for (const s of sockets) s.destroy();
    await closed;
  };
  await up();
  return { port: () => port, up, down };
}

/** The log lines the runtime writes, parsed. */
function logSink() {
  const lines: Array<{ level: number; msg: string; redis?: string }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

const waitUntil = async (cond: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return cond();
};

describe('a Redis outage at run time', () => {
  it.skipIf(redisUrl === '')(
    'serves on with one warning per connection, and recovers when Redis returns',
    async () => {
      const r = await relay(new URL(redisUrl));
      cleanup.push(() => r.down().catch(() => undefined));
      const dir = mkdtempSync(join(tmpdir(), 'algodesk-outage-'));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const { config } = ensureInstallSecrets(
        loadConfig(
          {
            DATA_DIR: dir,
            REDIS_URL: `redis://127.0.0.1:${r.port()}/0`,
            REDIS_PREFIX: `outage-${Date.now()}`,
            LOG_LEVEL: 'info',
          },
          { envFile: false },
        ),
      );
      const { lines, logger } = logSink();
      const runtime = await openRuntime(config, logger);
      cleanup.push(() => runtime.close());
      const { app } = await buildApp({ config, logger, ...runtime });
      cleanup.push(() => app.close());
      await app.ready();
      // Another instance of the install, straight on Redis: its invalidations reach this one.
      const other = await openRuntime(
        { ...config, redisUrl: redisUrl, dataDir: mkdtempSync(join(tmpdir(), 'algodesk-outage-b-')) },
        pino({ level: 'silent' }),
      );
      cleanup.push(() => other.close());
      const heard: string[] = [];
      runtime.bus.subscribe('probe', (k) => heard.push(k));
      const ping = () =>
        app.inject({ method: 'POST', url: '/api/v1/ping', payload: { apikey: 'not-a-key' } });

      expect((await ping()).statusCode).toBe(403);
      other.bus.publish('probe', 'before');
      expect(await waitUntil(() => heard.includes('before'))).toBe(true);

      await r.down();
      // Several reconnect attempts go by; requests are answered all along, not 500s.
      for (let i = 0; i < 6; i++) {
        expect((await ping()).statusCode).toBe(403);
        await new Promise((res) => setTimeout(res, 150));
      }
      const warnings = () => lines.filter((l) => l.msg.startsWith('Redis is unreachable'));
      expect(await waitUntil(() => warnings().length === 2)).toBe(true);
      expect(
        warnings()
          .map((l) => l.redis)
          .sort(),
      ).toEqual(['pub', 'sub']);
      expect(warnings().every((l) => l.level === 40)).toBe(true);

      await r.up();
      const restored = () => lines.filter((l) => l.msg === 'Redis connection restored');
      expect(await waitUntil(() => restored().length === 2)).toBe(true);
      expect(warnings()).toHaveLength(2); // one per connection for the whole outage
      // The subscription is back: another instance's invalidation reaches this one again.
      const deadline = Date.now() + 5_000;
      while (!heard.includes('after') && Date.now() < deadline) {
        other.bus.publish('probe', 'after');
        await new Promise((res) => setTimeout(res, 100));
      }
      expect(heard).toContain('after');
      expect((await ping()).statusCode).toBe(403);
    },
    40_000,
  );
});
