/**
 * `algodesk serve` with the fake tunnel provider, run as a child process by
 * test/tunnel/tunnel-process.test.ts: the real process entry (signals, exit paths, start-up banner)
 * with a provider that records its calls as lines on stderr. No switch in the product selects
 * the fake: only this file passes it to `serve()`.
 *
 * `node --import tsx serve-fake-tunnel.ts [crash]`: with `crash`, an uncaught exception is
 * thrown once the tunnel is up.
 */
import { loadConfig } from '../../src/config.js';
import { serve } from '../../src/main.js';
import { FakeTunnelDriver } from '../../src/modules/tunnel/fake-tunnel.driver.js';
import type { TunnelRequest } from '../../src/modules/tunnel/tunnel.types.js';

const crash = process.argv[2] === 'crash';

class RecordingTunnelDriver extends FakeTunnelDriver {
  override async open(req: TunnelRequest): Promise<string> {
    const url = await super.open(req);
    process.stderr.write('fake tunnel: opened\n');
    if (crash)
      setTimeout(() => {
        throw new Error('boom after the tunnel came up');
      }, 50);
    return url;
  }

  override async close(): Promise<void> {
    const wasOpen = this.isOpen;
    await super.close();
    if (wasOpen) process.stderr.write('fake tunnel: disconnected\n');
  }
}

await serve(loadConfig(), { tunnelDriver: new RecordingTunnelDriver() });
