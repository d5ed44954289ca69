import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ensureInstallSecrets, isStrongSecret, loadConfig } from './config.js';

const load = (env: Record<string, string>, cwd?: string) =>
  loadConfig(env, { cwd, envFile: cwd ? undefined : false });

describe('config defaults', () => {
  it('uses the documented defaults when nothing is set', () => {
    const c = load({});
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(5000);
    expect(c.dataDir.endsWith('/data')).toBe(true);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
    expect(c.trustProxyHeaders).toBe(false);
    expect(c.hostServer).toBe('http://127.0.0.1:5000');
    expect(c.secureCookies).toBe(false);
    expect(c.logLevel).toBe('info');
    expect(c.orderRateLimit).toEqual([{ limit: 10, windowMs: 1000, text: '10 per second' }]);
    expect(c.loginRateLimit.map((r) => [r.limit, r.windowMs])).toEqual([
      [5, 60_000],
      [25, 3_600_000],
    ]);
    expect(c.apiRateLimit).toBeUndefined();
    expect(c.trafficRetentionDays).toBe(30);
    expect(c.disableBanCheck).toBe(false);
  });
  it('derives HOST_SERVER from PORT and marks https installs for Secure cookies', () => {
    expect(load({ PORT: '8080' }).hostServer).toBe('http://127.0.0.1:8080');
    const c = load({ HOST_SERVER: 'https://algo.example.com/' });
    expect(c.hostServer).toBe('https://algo.example.com');
    expect(c.secureCookies).toBe(true);
  });
});

describe('REDIS_PREFIX: one namespace per install', () => {
  const pg = (url: string) => load({ DATABASE_URL: url }).redisPrefix;
  it('defaults to a name derived from the database: the same for its instances, another for another', () => {
    expect(load({ DATA_DIR: '/srv/a' }).redisPrefix).toMatch(/^algodesk-[0-9a-f]{8}$/);
    expect(load({ DATA_DIR: '/srv/a', PORT: '5001' }).redisPrefix).toBe(
      load({ DATA_DIR: '/srv/a' }).redisPrefix,
    );
    expect(load({ DATA_DIR: '/srv/b' }).redisPrefix).not.toBe(load({ DATA_DIR: '/srv/a' }).redisPrefix);
    expect(pg('postgres://u:one@db:5432/algo')).toBe(pg('postgres://other:two@db/algo'));
    expect(pg('postgres://db/algo')).not.toBe(pg('postgres://db/algo2'));
    expect(pg('postgres://db/algo')).not.toBe(pg('postgres://db2/algo'));
  });
  it('never carries the database password', () => {
    const url = 'postgres://u:hunter2secret@db/algo';
    expect(pg(url)).not.toContain('hunter2');
  });
  it('takes an explicit name, and refuses one with other characters', () => {
    expect(load({ REDIS_PREFIX: 'desk-1' }).redisPrefix).toBe('desk-1');
    expect(() => load({ REDIS_PREFIX: 'has space' })).toThrow(/REDIS_PREFIX: must be 1-64/);
  });
});

describe('a bad value stops start-up naming the variable and the reason', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT: "abc" is not an integer/],
    [{ PORT: '70000' }, /PORT: 70000 is outside 1\.\.65535/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL: must use postgres: or postgresql:/],
    [{ REDIS_URL: 'not a url' }, /REDIS_URL: is not a valid URL/],
    [{ TRUST_PROXY_HEADERS: 'maybe' }, /TRUST_PROXY_HEADERS: "maybe" is not a boolean/],
    [{ API_RATE_LIMIT: 'lots' }, /API_RATE_LIMIT: "lots" is not of the form/],
    [{ ORDER_RATE_LIMIT: '10 per eon' }, /ORDER_RATE_LIMIT/],
    [{ HOST_SERVER: 'ftp://x' }, /HOST_SERVER: must use http: or https:/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL: must be one of/],
    [{ APP_KEY: 'short' }, /APP_KEY: must be at least 16 characters/],
    [{ HOST: 'a b' }, /HOST: "a b" is not a host name/],
    [{ HOST: '999.1.1.1' }, /HOST: "999\.1\.1\.1" is not a valid IPv4 address/],
    [{ HOST: '10.0.0' }, /HOST: "10\.0\.0" is not a valid IPv4 address/],
    [{ HOST: 'fe80::1::2' }, /HOST: "fe80::1::2" is not a valid IPv6 address/],
    [{ HOST: '-bad.example' }, /HOST: "-bad\.example" is not a host name/],
    [{ HOST: 'a..b' }, /HOST: "a\.\.b" is not a host name/],
    [{ TRAFFIC_RETENTION_DAYS: '0' }, /TRAFFIC_RETENTION_DAYS: 0 is outside 1\.\.3650/],
    [{ ERROR_LOG_RETENTION_DAYS: '3651' }, /ERROR_LOG_RETENTION_DAYS: 3651 is outside 1\.\.3650/],
    [{ ERROR_LOG_MAX_ROWS: '99' }, /ERROR_LOG_MAX_ROWS: 99 is outside 100\.\.10000000/],
  ];
  for (const [env, reason] of cases) {
    it(`${Object.keys(env)[0]}=${Object.values(env)[0]}`, () => {
      expect(() => load(env)).toThrow(ConfigError);
      expect(() => load(env)).toThrow(reason);
    });
  }
  it('reports every bad variable at once', () => {
    try {
      load({ PORT: 'x', LOG_LEVEL: 'y' });
      expect.unreachable();
    } catch (err) {
      expect((err as ConfigError).problems).toHaveLength(2);
    }
  });
  it('takes an IPv4 or IPv6 address or a host name for HOST', () => {
    for (const host of ['0.0.0.0', '127.0.0.1', '::', '::1', 'localhost', 'algo-1.internal', 'example.com.'])
      expect(load({ HOST: host }).host).toBe(host);
  });
  it('accepts compound rate strings', () => {
    expect(load({ API_RATE_LIMIT: '10 per second;40 per minute' }).apiRateLimit).toHaveLength(2);
  });
});

describe('an optional .env file is read; the environment wins over it', () => {
  it('merges .env with the environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-env-'));
    writeFileSync(join(dir, '.env'), "PORT='6000'\nLOG_LEVEL=debug\n");
    const c = loadConfig({ LOG_LEVEL: 'warn' }, { cwd: dir });
    expect(c.port).toBe(6000);
    expect(c.logLevel).toBe('warn');
    expect(c.dataDir).toBe(join(dir, 'data'));
  });
});

describe('NGROK_AUTHTOKEN is part of the configuration (environment or .env), unset when empty', () => {
  it('reads it trimmed from either source, the environment first', () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-env-'));
    writeFileSync(join(dir, '.env'), 'NGROK_AUTHTOKEN=from-dotenv-token\n');
    expect(loadConfig({}, { cwd: dir }).ngrokAuthtoken).toBe('from-dotenv-token');
    expect(loadConfig({ NGROK_AUTHTOKEN: ' from-env ' }, { cwd: dir }).ngrokAuthtoken).toBe('from-env');
    expect(load({ NGROK_AUTHTOKEN: '  ' }).ngrokAuthtoken).toBeUndefined();
    expect(load({}).ngrokAuthtoken).toBeUndefined();
  });
});

describe('APP_KEY and API_KEY_PEPPER are generated once when unset, kept with mode 0600', () => {
  it('generates, stores 0600, warns, and reuses on the next start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-sec-'));
    const first = ensureInstallSecrets(load({ DATA_DIR: dir }));
    expect(first.config.appKey).toMatch(/^[0-9a-f]{64}$/);
    expect(first.config.apiKeyPepper).toMatch(/^[0-9a-f]{64}$/);
    expect(first.warnings.join(' ')).toMatch(/APP_KEY and API_KEY_PEPPER not set: generated/);
    expect(first.warnings.join(' ')).not.toContain(first.config.appKey);
    const file = join(dir, 'install-secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = ensureInstallSecrets(load({ DATA_DIR: dir }));
    expect(second.config.appKey).toBe(first.config.appKey);
    expect(second.config.apiKeyPepper).toBe(first.config.apiKeyPepper);
    expect(second.warnings).toEqual([]);
    expect(readFileSync(file, 'utf8')).toContain(first.config.apiKeyPepper);
  });
  it('uses given values without writing a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-sec-'));
    const appKey = 'a'.repeat(20) + 'b'.repeat(44);
    const r = ensureInstallSecrets(load({ DATA_DIR: dir, APP_KEY: appKey, API_KEY_PEPPER: 'c'.repeat(64) }));
    expect(r.config.appKey).toBe(appKey);
    expect(r.warnings).toEqual([]);
  });
  it('reports published sample placeholders as weak', () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-sec-'));
    const r = ensureInstallSecrets(
      load({
        DATA_DIR: dir,
        APP_KEY: 'OPENALGO_PLACEHOLDER_APP_KEY_REGENERATE_BEFORE_USE',
        API_KEY_PEPPER: 'change-me-to-64-random-hex-characters',
      }),
    );
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings.join(' ')).toMatch(/APP_KEY is a published sample/);
    expect(isStrongSecret('f'.repeat(10) + '0123456789abcdef'.repeat(4))).toBe(true);
  });
});
