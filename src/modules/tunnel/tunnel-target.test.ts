import { describe, expect, it } from 'vitest';
import { customDomain, forwardUrl, isLocalHost, publicUrlBanner, scrubCredential } from './tunnel-target.js';
import { tunnelWarnings } from './tunnel-warnings.js';

describe('HOST_SERVER: local hosts get a random URL, public names are requested as the custom domain', () => {
  it.each([
    ['http://127.0.0.1:5000', true],
    ['http://localhost:5000', true],
    ['http://app.localhost', true],
    ['http://[::1]:5000', true],
    ['http://0.0.0.0:5000', true],
    ['http://[::ffff:127.0.0.1]:5000', true],
    ['https://algo.example.com', false],
    ['http://192.168.1.10:5000', false],
  ])('%s is local: %s', (url, local) => {
    expect(isLocalHost(url)).toBe(local);
  });

  it.each([
    ['https://algo.example.com', 'algo.example.com'],
    ['https://Algo.Example.com:8443/base', 'algo.example.com'],
    ['http://127.0.0.1:5000', undefined],
    ['http://localhost:5000', undefined],
    ['http://192.168.1.10:5000', undefined],
    ['http://203.0.113.7', undefined],
    ['http://homebox:5000', undefined],
    ['http://homebox.local', undefined],
    ['http://desk.home.arpa', undefined],
  ])('%s requests domain %s', (url, domain) => {
    expect(customDomain(url)).toBe(domain);
  });
});

describe('the tunnel forwards to the address the server listens on', () => {
  it.each([
    [{ address: '127.0.0.1', port: 5000 }, 'http://127.0.0.1:5000'],
    [{ address: '0.0.0.0', port: 80 }, 'http://127.0.0.1:80'],
    [{ address: '::', port: 5000 }, 'http://[::1]:5000'],
    [{ address: '::1', port: 5000 }, 'http://[::1]:5000'],
    [{ address: '192.168.1.10', port: 5000 }, 'http://192.168.1.10:5000'],
  ])('%o → %s', (listen, url) => {
    expect(forwardUrl(listen)).toBe(url);
  });
});

describe('provider messages lose anything shaped like an auth token', () => {
  const token = '2abcDEFghiJKLmnoPQRstuVWXyz0_1A2b3C4d5E6f7G8h9I0jKlM';
  it('cuts "authtoken: <value>" and bare token shapes, keeps the rest', () => {
    const msg = scrubCredential(
      `ERR_NGROK_105: authentication failed. Your authtoken: ${token}; also ${token}`,
    );
    expect(msg).not.toContain(token);
    expect(msg).toContain('ERR_NGROK_105: authentication failed');
    expect(scrubCredential('authtoken="s3cr3t-value"')).toBe('authtoken="[redacted]"');
  });
  it('leaves ordinary messages alone and bounds their length', () => {
    expect(scrubCredential('failed to connect session: failed to establish tcp connection')).toBe(
      'failed to connect session: failed to establish tcp connection',
    );
    expect(scrubCredential('x'.repeat(2000))).toHaveLength(500);
  });
});

describe('start-up warnings when the tunnel is on', () => {
  const strategy = { method: 'POST', url: '/strategy/webhook/:token' };
  it('debug and trace logging are named; info is not', () => {
    for (const logLevel of ['debug', 'trace'] as const)
      expect(tunnelWarnings({ logLevel, trustProxyHeaders: true, webhookRoutes: [] })).toEqual([
        expect.stringContaining(`LOG_LEVEL=${logLevel}`),
      ]);
    expect(tunnelWarnings({ logLevel: 'info', trustProxyHeaders: true, webhookRoutes: [strategy] })).toEqual(
      [],
    );
  });
  it('a webhook route without a secret in its URL is named; a tokened one is not', () => {
    const w = tunnelWarnings({
      logLevel: 'info',
      trustProxyHeaders: true,
      webhookRoutes: [strategy, { method: 'POST', url: '/scanner/webhook' }],
    });
    expect(w).toEqual([expect.stringContaining('POST /scanner/webhook is reachable')]);
  });
  it('without TRUST_PROXY_HEADERS, senders through the tunnel all look like loopback', () => {
    expect(tunnelWarnings({ logLevel: 'info', trustProxyHeaders: false, webhookRoutes: [strategy] })).toEqual(
      [expect.stringContaining('forwards from loopback')],
    );
  });
});

describe('the start-up banner line shows the public URL and nothing else of what the provider said', () => {
  const TOKEN = '2fakeAuthTokenForTests00000_9FakeSecretPartForTests';
  it('scheme, host and path only', () => {
    expect(publicUrlBanner('https://a1b2.ngrok-free.app')).toBe(
      'algodesk public URL (tunnel): https://a1b2.ngrok-free.app\n',
    );
    const line = publicUrlBanner(`https://u:${TOKEN}@a1b2.ngrok-free.app/x?authtoken=${TOKEN}#${TOKEN}`);
    expect(line).toBe('algodesk public URL (tunnel): https://a1b2.ngrok-free.app/x\n');
  });
  it('a token shape in the address itself is cut out', () => {
    expect(publicUrlBanner(`https://a1b2.ngrok-free.app/${TOKEN}`)).not.toContain(TOKEN);
    expect(publicUrlBanner('not a url')).toBe('algodesk public URL (tunnel): (unusable URL)\n');
  });
});
