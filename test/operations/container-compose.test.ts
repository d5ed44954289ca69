/**
 * compose.yaml, checked without a Docker daemon: parsed as Compose reads it, its variables
 * substituted, each algodesk service's environment run through the real `loadConfig`; the default
 * setup (one instance on SQLite) and the profile scale (two instances, PostgreSQL, Redis and the
 * proxy), down to the scale instances' secret guard run in /bin/sh. A drift between the file and
 * the code or README.md fails here. The Dockerfile: container-dockerfile.test.ts; the proxy's
 * deploy/nginx.conf: container-nginx.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import {
  algodeskServices,
  compose,
  defaults,
  execForm,
  imageEnv,
  inFinal,
  isAlgodesk,
  read,
  readmeVariables,
  scaleInstances,
  SECRET_NAME,
  services,
  type Service,
} from '../helpers/container-files.js';

/**
 * Compose's variable substitution: `$$`, `$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME-default}`,
 * `${NAME:?message}`, `${NAME?message}` (an unset required variable throws, as Compose stops).
 */
function substitute(text: string, vars: Record<string, string>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, name: string | undefined, colon: string, op: string, arg: string, bare: string | undefined) => {
      if (whole === '$$') return '$';
      const key = (name ?? bare)!;
      const value = vars[key];
      const missing = value === undefined || (colon === ':' && value === '');
      if (op === '?' && missing) throw new Error(`required variable ${key}: ${arg}`);
      if (op === '-' && missing) return arg;
      return value ?? '';
    },
  );
}

/** A service's environment as the container sees it: the image's, then the substituted file's. */
function containerEnv(service: Service, vars: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { ...imageEnv };
  for (const [k, v] of Object.entries(service.environment ?? {})) env[k] = substitute(v as string, vars);
  return env;
}

const configOf = (service: Service, vars: Record<string, string>) =>
  loadConfig(containerEnv(service, vars), { envFile: false, cwd: '/app' });

const SCALE_VARS = {
  APP_KEY: 'a1'.repeat(32),
  API_KEY_PEPPER: 'b2'.repeat(32),
  POSTGRES_PASSWORD: 'c3'.repeat(12),
};

describe('compose.yaml', () => {
  it('needs no variable for the default setup, and the algodesk image is built from this directory', () => {
    // Compose substitutes every service, those of inactive profiles too: nothing may be required.
    const strings = (v: unknown): string[] =>
      typeof v === 'string'
        ? [v]
        : v !== null && typeof v === 'object'
          ? Object.values(v).flatMap(strings)
          : [];
    const values = strings(compose);
    expect(values.some((v) => v.includes('${'))).toBe(true);
    for (const v of values) expect(() => substitute(v, {}), v).not.toThrow();
    expect(algodeskServices.map(([n]) => n).sort()).toEqual(['algodesk', 'algodesk-1', 'algodesk-2']);
    for (const [name, s] of algodeskServices) {
      expect(s.build, name).toBe('.');
      expect(s.restart, name).toBe('unless-stopped');
    }
    for (const [name, s] of Object.entries(services).filter(([, s]) => !isAlgodesk(s)))
      expect(s.image, `${name} pins a version`).toMatch(/^[a-z0-9/-]+:\d[\w.-]*$/);
  });

  it('default: one instance on SQLite, its data on a named volume, published on 127.0.0.1:5000 only', () => {
    const s = services.algodesk!;
    expect(s.profiles).toBeUndefined();
    expect(Object.values(services).filter((x) => x.profiles === undefined)).toEqual([s]);
    expect(s.ports).toEqual(['127.0.0.1:${ALGODESK_PORT:-5000}:5000']);
    expect(substitute(s.ports![0]!, {})).toBe(`127.0.0.1:5000:${defaults.port}`);
    expect(s.volumes).toEqual([`data:${imageEnv.DATA_DIR}`]);
    const config = configOf(s, {});
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 5000,
      dataDir: '/data',
      databaseUrl: undefined,
      redisUrl: undefined,
      instanceId: 'algodesk',
      hostServer: 'http://127.0.0.1:5000',
      // Published directly: a client could write these headers itself.
      trustProxyHeaders: false,
      // Generated on first start into the volume (ensureInstallSecrets), never in the file.
      appKey: undefined,
      apiKeyPepper: undefined,
    });
  });

  it('sets on the algodesk services only variables README.md documents, all as strings', () => {
    const readme = readmeVariables();
    for (const [name, s] of algodeskServices) {
      for (const [key, value] of Object.entries(s.environment ?? {})) {
        expect(readme, `${name}: ${key} is in README's configuration table`).toContain(key);
        expect(typeof value, `${name}: ${key} is a string (Compose refuses booleans)`).toBe('string');
      }
    }
  });

  it('holds no secret value: secrets come from variables or are generated into the volume', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [key, value] of Object.entries(s.environment ?? {})) {
        if (SECRET_NAME.test(key)) expect(value, `${name}: ${key}`).toBe(`\${${key}:-}`);
      }
    }
    expect(String(services['algodesk-1']!.environment!.DATABASE_URL)).toContain('${POSTGRES_PASSWORD:-}');
  });

  it('stops with more grace than the service needs to shut down', () => {
    const bound = /SHUTDOWN_BOUND_MS = ([\d_]+)/.exec(read('src/main.ts'));
    expect(bound).not.toBeNull();
    const boundMs = Number(bound![1]!.replaceAll('_', ''));
    for (const [name, s] of algodeskServices) {
      const m = /^(\d+)s$/.exec(s.stop_grace_period ?? '');
      expect(m, `${name} stop_grace_period`).not.toBeNull();
      expect(Number(m![1]) * 1000).toBeGreaterThan(boundMs);
    }
  });

  describe('profile scale', () => {
    it('holds the two instances, PostgreSQL, Redis and the proxy, nothing published but the proxy', () => {
      const scale = Object.entries(services)
        .filter(([, s]) => s.profiles?.includes('scale'))
        .map(([n]) => n)
        .sort();
      expect(scale).toEqual(['algodesk-1', 'algodesk-2', 'postgres', 'proxy', 'redis']);
      for (const [name, s] of Object.entries(services))
        for (const p of s.ports ?? []) expect(p, name).toMatch(/^127\.0\.0\.1:/);
      for (const name of ['algodesk-1', 'algodesk-2', 'postgres', 'redis'])
        expect(services[name]!.ports, name).toBeUndefined();
      expect(services.proxy!.ports).toEqual(['127.0.0.1:${ALGODESK_SCALE_PORT:-5080}:8080']);
    });

    it('runs both instances on one database and one Redis, as distinct instances with the same secrets', () => {
      const configs = scaleInstances.map(([, s]) => configOf(s, SCALE_VARS));
      expect(configs).toHaveLength(2);
      const [a, b] = configs as [Config, Config];
      expect(a.databaseUrl).toBe(
        `postgres://algodesk:${SCALE_VARS.POSTGRES_PASSWORD}@postgres:5432/algodesk`,
      );
      expect(b.databaseUrl).toBe(a.databaseUrl);
      expect(a.redisUrl).toBe('redis://redis:6379/0');
      expect(b.redisUrl).toBe(a.redisUrl);
      // Derived from the database: one install, one Redis namespace.
      expect(b.redisPrefix).toBe(a.redisPrefix);
      expect([a.instanceId, b.instanceId]).toEqual(['algodesk-1', 'algodesk-2']);
      for (const c of configs) {
        expect(c).toMatchObject({
          appKey: SCALE_VARS.APP_KEY,
          apiKeyPepper: SCALE_VARS.API_KEY_PEPPER,
          trustProxyHeaders: true,
          host: '0.0.0.0',
          port: defaults.port,
          hostServer: 'http://127.0.0.1:5080',
        });
      }
      // The host names are the services' own, on the network they share.
      expect(new URL(a.databaseUrl!).hostname).toBe('postgres');
      expect(new URL(a.redisUrl!).hostname).toBe('redis');
      expect(services.postgres!.environment).toMatchObject({
        POSTGRES_USER: 'algodesk',
        POSTGRES_DB: 'algodesk',
      });
      for (const [name, s] of scaleInstances) expect(s.networks, name).toEqual(['default', 'backend']);
      expect(services.postgres!.networks).toEqual(['backend']);
      expect(services.redis!.networks).toEqual(['backend']);
      expect(compose.networks.backend).toEqual({ internal: true });
      expect(services.proxy!.networks).toBeUndefined();
    });

    it('gives each instance a volume of its own, every named volume declared', () => {
      const named = Object.values(services)
        .flatMap((s) => s.volumes ?? [])
        .filter((v) => !v.startsWith('.') && !v.startsWith('/'))
        .map((v) => v.split(':')[0]!);
      expect(new Set(named).size).toBe(named.length);
      expect(Object.keys(compose.volumes).sort()).toEqual([...named].sort());
    });

    it('starts in order of health: the data stores, then the instances, then the proxy', () => {
      const healthy = (s: Service) =>
        Object.entries(s.depends_on ?? {})
          .filter(([, d]) => d.condition === 'service_healthy')
          .map(([n]) => n)
          .sort();
      for (const [name, s] of scaleInstances) expect(healthy(s), name).toEqual(['postgres', 'redis']);
      expect(healthy(services.proxy!)).toEqual(['algodesk-1', 'algodesk-2']);
      // Each awaited service has a health check: its own, or the algodesk image's HEALTHCHECK.
      for (const name of ['postgres', 'redis', 'proxy'])
        expect(services[name]!.healthcheck?.test, name).toBeDefined();
      expect(inFinal('HEALTHCHECK')).toHaveLength(1);
      expect(services.proxy!.healthcheck!.test.join(' ')).toContain('/health');
      expect(services.postgres!.healthcheck!.test).toContain('pg_isready');
      expect(services.redis!.healthcheck!.test).toEqual(['CMD', 'redis-cli', 'ping']);
    });

    describe('the instances refuse to start without the shared secrets', () => {
      const entrypoint = services['algodesk-1']!.entrypoint!;
      const fakeBin = mkdtempSync(join(tmpdir(), 'algodesk-guard-'));
      writeFileSync(join(fakeBin, 'node'), '#!/bin/sh\necho "node $*"\n');
      chmodSync(join(fakeBin, 'node'), 0o755);
      const run = (env: Record<string, string>) =>
        spawnSync('/bin/sh', ['-c', substitute(entrypoint[2]!, SCALE_VARS)], {
          env: { PATH: `${fakeBin}:${process.env.PATH}`, ...env },
          encoding: 'utf8',
        });

      it('is a /bin/sh guard Compose leaves alone ($$ only), on both instances', () => {
        expect(entrypoint.slice(0, 2)).toEqual(['/bin/sh', '-c']);
        expect(entrypoint[2]!.replaceAll('$$', '')).not.toContain('$');
        expect(services['algodesk-2']!.entrypoint).toEqual(entrypoint);
      });

      it('exits 1 naming the variables when either is missing or empty', () => {
        const cases: Array<Record<string, string>> = [
          {},
          { APP_KEY: SCALE_VARS.APP_KEY },
          { APP_KEY: SCALE_VARS.APP_KEY, API_KEY_PEPPER: '' },
        ];
        for (const env of cases) {
          const r = run(env);
          expect(r.status).toBe(1);
          expect(r.stderr).toContain('APP_KEY and API_KEY_PEPPER must be set');
          expect(r.stdout).toBe('');
        }
      });

      it("execs the image's own command when both are set", () => {
        const r = run({ APP_KEY: SCALE_VARS.APP_KEY, API_KEY_PEPPER: SCALE_VARS.API_KEY_PEPPER });
        expect(r.status).toBe(0);
        expect(r.stdout.trim()).toBe([...execForm('ENTRYPOINT'), ...execForm('CMD')].join(' '));
      });
    });
  });
});
