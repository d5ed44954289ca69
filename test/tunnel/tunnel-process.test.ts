/**
 * The public tunnel in a real `algodesk serve` process (issue 10 parts 3 and 4), with the fake
 * provider passed in by helpers/serve-fake-tunnel.ts, which prints `fake tunnel: disconnected`
 * when an open tunnel is closed: every way the process ends disconnects the tunnel, and the
 * start-up banner shows the public URL once whatever the log level.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnServeWithFakeTunnel, type ServeProcess } from '../helpers/tunnel-app.js';

const RANDOM_URL = 'https://a1b2-203-0-113-7.ngrok-free.app';
const BANNER = `algodesk public URL (tunnel): ${RANDOM_URL}\n`;
const TOKEN = '2fakeNgrokTokenForAlgodeskTests_7NotARealSecretAtAll0';
const DISCONNECTED = 'fake tunnel: disconnected\n';

let procs: ServeProcess[] = [];
afterEach(() => {
  for (const p of procs) p.cleanup();
  procs = [];
});

async function serveWithTunnel(env: Record<string, string>, args: string[] = []) {
  const p = await spawnServeWithFakeTunnel({ TUNNEL_ALLOW: 'true', NGROK_AUTHTOKEN: TOKEN, ...env }, args);
  procs.push(p);
  await p.waitFor(/algodesk public URL \(tunnel\)/);
  return p;
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('the start-up banner prints the public URL once, on the stream of "algodesk is running at"', () => {
  it('at LOG_LEVEL=warn, where the info line with the URL is not shown', async () => {
    const p = await serveWithTunnel({ LOG_LEVEL: 'warn' });
    const { stdout, stderr } = p.out;
    const running = stderr.indexOf(`algodesk is running at http://127.0.0.1:${p.port}\n`);
    expect(running).toBeGreaterThanOrEqual(0);
    expect(stderr.indexOf(BANNER)).toBeGreaterThan(running); // after the "running at" line
    expect(count(stderr, BANNER)).toBe(1);
    expect(stdout).not.toContain(RANDOM_URL); // the info log line is below the level
    p.proc.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.out.stdout + p.out.stderr).not.toContain(TOKEN);
  }, 60_000);
});

describe('SIGTERM and SIGINT: the graceful shutdown disconnects the tunnel, then the process exits 0', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s',
    async (signal) => {
      const p = await serveWithTunnel({ LOG_LEVEL: 'info' });
      expect(p.out.stderr).not.toContain(DISCONNECTED);
      p.proc.kill(signal);
      expect(await p.exited).toBe(0);
      const all = p.out.stdout + p.out.stderr;
      expect(count(p.out.stderr, DISCONNECTED)).toBe(1);
      expect(all).toContain(`"signal":"${signal}"`);
      expect(all).toContain('"msg":"public tunnel disconnected"');
      expect(all).toContain('"msg":"stopped"');
      expect(count(p.out.stdout, `public tunnel up: ${RANDOM_URL}`)).toBe(1); // logged once
      expect(count(p.out.stderr, BANNER)).toBe(1); // and shown once on the banner
      expect(all).not.toContain(TOKEN);
    },
    60_000,
  );
});

describe('an uncaught exception disconnects the tunnel before the process exits 1', () => {
  it('the crash is logged as fatal, the tunnel is closed, the exit code is 1', async () => {
    const p = await serveWithTunnel({ LOG_LEVEL: 'info' }, ['crash']);
    expect(await p.exited).toBe(1);
    const all = p.out.stdout + p.out.stderr;
    expect(all).toContain('"msg":"uncaught exception; exiting"');
    expect(all).toContain('boom after the tunnel came up');
    expect(count(p.out.stderr, DISCONNECTED)).toBe(1);
    expect(all).toContain('"msg":"public tunnel disconnected"');
    expect(all).not.toContain(TOKEN);
  }, 60_000);
});
