import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeTunnelDriver } from './fake-tunnel.driver.js';
import { Tunnel } from './tunnel.service.js';
import type { TunnelDriver, TunnelRequest } from './tunnel.types.js';

const LISTEN = { address: '127.0.0.1', port: 5000 };

function tunnel(driver: TunnelDriver) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const manager = new Tunnel({
    allow: true,
    hostServer: 'http://127.0.0.1:5000',
    driver,
    logger: pino({ level: 'trace' }, stream),
  });
  return { manager, logs: () => lines.join('') };
}

/** Opens as told; its close never settles (a provider that does not answer a disconnect). */
class StuckCloseDriver implements TunnelDriver {
  constructor(private readonly url = 'https://a1b2.ngrok-free.app') {}
  open(_req: TunnelRequest): Promise<string> {
    return Promise.resolve(this.url);
  }
  closes = 0;
  close(): Promise<void> {
    // The first close (start-up's stop-first) answers; later ones never do.
    return this.closes++ === 0 ? Promise.resolve() : new Promise(() => undefined);
  }
}

describe('every exit waits for the tunnel to disconnect only a bounded time', () => {
  it('stopWithin resolves true once the provider has closed', async () => {
    const driver = new FakeTunnelDriver();
    const { manager } = tunnel(driver);
    await manager.start(LISTEN);
    expect(await manager.stopWithin(1_000)).toBe(true);
    expect(driver.isOpen).toBe(false);
    expect(manager.publicUrl()).toBeNull();
  });

  it('stopWithin gives up on a provider whose close never answers, with a warning, and forgets the URL', async () => {
    const { manager, logs } = tunnel(new StuckCloseDriver());
    expect(await manager.start(LISTEN)).toBe('https://a1b2.ngrok-free.app');
    expect(await manager.stopWithin(20)).toBe(false);
    expect(manager.publicUrl()).toBeNull();
    expect(logs()).toContain('public tunnel did not disconnect within 0.02 s');
  });
});

describe("the public URL kept, logged and announced is the provider's address only", () => {
  it('user, password, query and fragment of the answer are dropped; listeners hear it once per start', async () => {
    const { manager, logs } = tunnel(
      new StuckCloseDriver('https://user:SECRET-PW@x1.ngrok-free.app/?authtoken=SECRET-TK#f'),
    );
    const heard: string[] = [];
    manager.onUp((url) => heard.push(url));
    manager.onUp(() => {
      throw new Error('a broken listener'); // does not take the tunnel down
    });
    expect(await manager.start(LISTEN)).toBe('https://x1.ngrok-free.app');
    expect(manager.publicUrl()).toBe('https://x1.ngrok-free.app');
    expect(heard).toEqual(['https://x1.ngrok-free.app']);
    expect(logs()).not.toMatch(/SECRET|user/);
  });

  it('an answer that is not a URL is a failed start: logged, no URL, the provider closed', async () => {
    const driver = new FakeTunnelDriver();
    driver.open = (req) => (driver.requests.push(req), Promise.resolve('not a url'));
    const { manager, logs } = tunnel(driver);
    expect(await manager.start(LISTEN)).toBeNull();
    expect(manager.publicUrl()).toBeNull();
    expect(driver.closeCalls).toBe(2); // start-up's stop-first, then the failed start's
    expect(logs()).toContain('without a usable public URL');
  });
});
