/**
 * The real tunnel provider (`@ngrok/ngrok`) as far as it goes without network (issue 10 "Done
 * when"): its start fails cleanly within the start-up bound, the service keeps serving, shutdown
 * leaves nothing running, and the auth token (a known fake in NGROK_AUTHTOKEN) is never logged.
 * Where the machine has network, ngrok refuses the fake token instead: the same assertions hold.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { NgrokDriver } from '../../src/modules/tunnel/ngrok.driver.js';
import { createTunnelApp, records, type TunnelTestApp } from '../helpers/tunnel-app.js';

const TOKEN = '2fakeNgrokTokenForAlgodeskTests_7NotARealSecretAtAll0';
const CLI = ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'src', 'cli.ts')];

let apps: TunnelTestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.map((t) => t.close()));
  apps = [];
});

describe('the ngrok SDK without network', () => {
  it('start fails within the bound, is logged without the token, and the service keeps serving', async () => {
    const bound = 5_000;
    const t = await createTunnelApp({
      env: { TUNNEL_ALLOW: 'true', NGROK_AUTHTOKEN: TOKEN },
      startTimeoutMs: bound,
    });
    apps.push(t);
    const began = Date.now();
    expect(await t.listen()).toBeNull();
    expect(Date.now() - began).toBeLessThan(bound + 3_000);
    expect(t.services.tunnel.publicUrl()).toBeNull();
    const failure = records(t.logs).find((r) => r.msg.startsWith('public tunnel failed to start'));
    expect(failure?.reason).toEqual(expect.any(String));
    expect((await fetch(`${t.base}/api/config/host`)).status).toBe(401);
    const closing = Date.now();
    await t.app.close();
    expect(Date.now() - closing).toBeLessThan(5_000);
    expect(t.logs.join('\n')).not.toContain(TOKEN);
  }, 30_000);

  describe('an ingress that accepts the connection and never answers', () => {
    let blackhole: Server;
    const held: Socket[] = [];
    let connections = 0;
    beforeAll(async () => {
      blackhole = createServer((s) => {
        connections++;
        held.push(s);
      });
      await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', r));
    });
    afterAll(async () => {
      for (const s of held) s.destroy();
      await new Promise((r) => blackhole.close(r));
    });

    it('the SDK dials it, start-up gives up at the bound, and close ends the SDK at once', async () => {
      const { port } = blackhole.address() as AddressInfo;
      const t = await createTunnelApp({
        env: { TUNNEL_ALLOW: 'true' },
        driver: new NgrokDriver({ serverAddr: `127.0.0.1:${port}`, authtoken: TOKEN }),
        startTimeoutMs: 1_000,
      });
      apps.push(t);
      const began = Date.now();
      expect(await t.listen()).toBeNull();
      const took = Date.now() - began;
      expect(took).toBeGreaterThanOrEqual(900);
      expect(took).toBeLessThan(1_000 + 4_000);
      expect(connections).toBeGreaterThan(0);
      expect(records(t.logs).find((r) => r.msg.startsWith('public tunnel failed'))?.reason).toMatch(
        /within 1 s/,
      );
      expect((await fetch(`${t.base}/api/config/host`)).status).toBe(401);
      const closing = Date.now();
      await t.app.close();
      expect(Date.now() - closing).toBeLessThan(5_000);
    }, 30_000);

    it('a close before any open starts nothing and leaves the driver usable; closing an open ends its worker', async () => {
      const { port } = blackhole.address() as AddressInfo;
      const driver = new NgrokDriver({ serverAddr: `127.0.0.1:${port}`, authtoken: TOKEN });
      const dialled = connections;
      await expect(driver.close()).resolves.toBeUndefined();
      await expect(driver.close()).resolves.toBeUndefined(); // idempotent
      expect(connections).toBe(dialled); // no SDK was started by a close
      // Not refused as "already open": the early closes left no state behind.
      const opening = driver.open({ forwardTo: 'http://127.0.0.1:9', domain: undefined });
      await vi.waitFor(() => expect(connections).toBeGreaterThan(dialled), { timeout: 10_000 });
      await driver.close();
      // The open settles only when its worker has exited: nothing is left running.
      await expect(opening).rejects.toThrow('the tunnel worker stopped');
      await expect(driver.close()).resolves.toBeUndefined();
    }, 30_000);
  });
});

function waitFor(proc: ChildProcess, pattern: RegExp, seen: { text: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}: ${seen.text}`)),
      40_000,
    );
    const check = () => {
      if (pattern.test(seen.text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout!.on('data', check);
    proc.stderr!.on('data', check);
    check();
  });
}

describe('algodesk serve with TUNNEL_ALLOW=true and no reachable ngrok', () => {
  it('logs the failure, keeps serving, and exits cleanly on SIGTERM; the token is nowhere in its output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-tunnel-serve-'));
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const env = {
      ...process.env,
      DATA_DIR: dir,
      PORT: String(port),
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
      REDIS_URL: '',
      TUNNEL_ALLOW: 'True',
      NGROK_AUTHTOKEN: TOKEN,
    };
    const proc = spawn(process.execPath, [...CLI, 'serve'], { env });
    const out = { text: '' };
    proc.stdout.on('data', (d: Buffer) => (out.text += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out.text += d.toString()));
    try {
      await waitFor(proc, /public tunnel failed to start/, out);
      const res = await fetch(`http://127.0.0.1:${port}/api/config/host`);
      expect(res.status).toBe(401);
      const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
      const began = Date.now();
      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(Date.now() - began).toBeLessThan(10_000);
      expect(out.text).toMatch(/"msg":"stopped"/);
      expect(out.text).not.toContain(TOKEN);
    } finally {
      proc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
