/**
 * The container files, checked without a Docker daemon: the Dockerfile (read by a small parser),
 * compose.yaml (parsed as Compose reads it, its variables substituted, each algodesk service's
 * environment run through the real `loadConfig`), deploy/nginx.conf (its headers replayed against
 * the real client-address resolution) and the commands the files run (the image's health check
 * against a loopback server, the scale instances' secret guard in /bin/sh). A drift between these
 * files and the code or README.md fails here; .ci/run builds the image where a daemon answers.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { builtinModules } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, type Config } from '../../src/config.js';
import { resolveClientIp } from '../../src/platform/client-ip.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

// ---------------------------------------------------------------------------------------------
// Dockerfile

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  base: string;
  name: string | undefined;
  instructions: Instruction[];
}

/**
 * Instructions in order (continuation lines joined, comments and parser directives dropped), the
 * ARGs declared before the first FROM, and the stages.
 */
function parseDockerfile(text: string): { globalArgs: Map<string, string>; stages: Stage[] } {
  const instructions: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    pending += (pending ? ' ' : '') + line.replace(/\\$/, '').trim();
    if (line.endsWith('\\')) continue;
    const m = /^(\S+)\s*(.*)$/.exec(pending)!;
    instructions.push({ keyword: m[1]!.toUpperCase(), args: m[2]! });
    pending = '';
  }
  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args)!;
      stages.push({ base: m[1]!, name: m[2], instructions: [] });
    } else if (stages.length === 0) {
      expect(ins.keyword, 'only ARG may precede the first FROM').toBe('ARG');
      const [name, value = ''] = ins.args.split('=');
      globalArgs.set(name!, value);
    } else stages.at(-1)!.instructions.push(ins);
  }
  return { globalArgs, stages };
}

/** `ENV A=1 B="x y"` (or the old `ENV A 1`) as pairs. */
function envPairs(args: string): Array<[string, string]> {
  if (!args.includes('=')) {
    const [name, ...rest] = args.split(/\s+/);
    return [[name!, rest.join(' ')]];
  }
  return [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)].map((m) => [
    m[1]!,
    m[2]!.replace(/^"(.*)"$/, '$1'),
  ]);
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const finalStage = dockerfile.stages.at(-1)!;
const inFinal = (keyword: string) => finalStage.instructions.filter((i) => i.keyword === keyword);
const imageEnv = Object.fromEntries(inFinal('ENV').flatMap((i) => envPairs(i.args)));
const execForm = (keyword: string): string[] => {
  const [ins] = inFinal(keyword);
  expect(ins, keyword).toBeDefined();
  return JSON.parse(ins!.args) as string[];
};
const stageRunning = (command: RegExp) =>
  dockerfile.stages.find((s) => s.instructions.some((i) => i.keyword === 'RUN' && command.test(i.args)));

/** Names that hold secrets: none may be given a value (or even declared) in the image. */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD|PASSWD|PEPPER|CREDENTIAL/i;

/** README.md's "Configuration" table: the variables its rows start with. */
function readmeVariables(): Set<string> {
  const text = read('README.md');
  const start = text.indexOf('\n## Configuration');
  const end = text.indexOf('\n## ', start + 1);
  expect(start).toBeGreaterThan(-1);
  return new Set(
    text
      .slice(start, end === -1 ? undefined : end)
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!)),
  );
}

/** The defaults the service falls back to without any variable. */
const defaults: Config = loadConfig({}, { envFile: false, cwd: '/app' });

describe('Dockerfile', () => {
  it('is multi-stage on one pinned node base within package.json engines', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    const image = dockerfile.globalArgs.get('NODE_IMAGE')!;
    const m = /^node:(\d+)\.(\d+)-bookworm-slim$/.exec(image);
    expect(m, `NODE_IMAGE ${image} names major.minor on bookworm-slim`).not.toBeNull();
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const [, minMajor, minMinor] = /^>=(\d+)\.(\d+)/.exec(engines)!.map(Number);
    const [major, minor] = [Number(m![1]), Number(m![2])];
    expect(major > minMajor! || (major === minMajor && minor >= minMinor!)).toBe(true);
    const names = new Set(dockerfile.stages.map((s) => s.name));
    for (const s of dockerfile.stages) {
      expect(s.base === '${NODE_IMAGE}' || names.has(s.base), `stage ${s.name} on ${s.base}`).toBe(true);
    }
    expect(finalStage.base, 'the runtime starts from the bare base, no build tools').toBe('${NODE_IMAGE}');
  });

  it('builds with every dependency and ships only the production ones and dist', () => {
    const build = stageRunning(/\bnpm run build\b/)!;
    const prodDeps = stageRunning(/\bnpm ci\b.*--omit=dev/)!;
    expect(build.instructions.some((i) => i.keyword === 'RUN' && /^npm ci\b(?!.*--omit)/.test(i.args))).toBe(
      true,
    );
    expect(prodDeps).toBeDefined();
    expect(prodDeps).not.toBe(build);
    const copies = inFinal('COPY').map((i) => i.args);
    expect(copies).toContain(`--from=${prodDeps.name} /app/node_modules ./node_modules`);
    expect(copies).toContain(`--from=${build.name} /app/dist ./dist`);
    expect(copies, '"type": "module" makes dist/ ESM').toContain('package.json ./');
    expect(inFinal('RUN').some((i) => /\bnpm (ci|install)\b/.test(i.args))).toBe(false);
  });

  it('copies only the sources it names, none of which .dockerignore drops, and never .env or data', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const must of [
      'node_modules',
      'dist',
      'web/dist',
      'data',
      '.git',
      '.env',
      '*.env',
      'coverage',
      '.ci/out',
    ])
      expect(ignored).toContain(must);
    const sources = dockerfile.stages
      .flatMap((s) => s.instructions)
      .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from='))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const src of sources) {
      expect([
        'package.json',
        'package-lock.json',
        'tsconfig.json',
        'tsconfig.build.json',
        'src',
        'web',
      ]).toContain(src);
      expect(ignored).not.toContain(src);
      expect(existsSync(join(ROOT, src)), src).toBe(true);
    }
  });

  it('declares no secret: no ENV or ARG named like one, in any stage', () => {
    const declared = [
      ...dockerfile.globalArgs.keys(),
      ...dockerfile.stages.flatMap((s) =>
        s.instructions.flatMap((i) =>
          i.keyword === 'ENV'
            ? envPairs(i.args).map(([k]) => k)
            : i.keyword === 'ARG'
              ? [i.args.split('=')[0]!]
              : [],
        ),
      ),
    ];
    expect(declared.filter((name) => SECRET_NAME.test(name))).toEqual([]);
  });

  it('runs as an unprivileged user with DATA_DIR a volume, listening on every interface', () => {
    const user = inFinal('USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user);
    expect(imageEnv).toMatchObject({ HOST: '0.0.0.0', DATA_DIR: '/data' });
    const readme = readmeVariables();
    for (const name of Object.keys(imageEnv)) expect(readme, `${name} in README's table`).toContain(name);
    const volumes = inFinal('VOLUME').flatMap((i) =>
      i.args.startsWith('[') ? (JSON.parse(i.args) as string[]) : i.args.split(/\s+/),
    );
    expect(volumes).toContain(imageEnv.DATA_DIR);
    // The volume's directory exists, owned by that user, before VOLUME (a new named volume copies it).
    const order = finalStage.instructions.map((i) => i.keyword);
    const chown = finalStage.instructions.findIndex(
      (i) => i.keyword === 'RUN' && i.args.includes(`chown ${user}`) && i.args.includes(imageEnv.DATA_DIR!),
    );
    expect(chown).toBeGreaterThan(-1);
    expect(chown).toBeLessThan(order.indexOf('VOLUME'));
    expect(inFinal('EXPOSE').map((i) => i.args)).toEqual([String(defaults.port)]);
  });

  it('ships every package the compiled service imports: each is a production dependency', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    // What tsconfig.build.json compiles: src/ without the tests. Type-only imports are erased.
    const files = (readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }) as string[]).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    const imported = new Map<string, string>();
    for (const f of files) {
      const text = readFileSync(join(ROOT, 'src', f), 'utf8');
      const specifiers = [
        ...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^'";]*?from\s+'([^']+)'/gm),
        ...text.matchAll(/^\s*import\s+'([^']+)'/gm),
        ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
        ...text.matchAll(/\.resolve\(\s*'([^'.][^']*)'\s*\)/g),
      ].map((m) => m[1]!);
      for (const spec of specifiers) {
        if (spec.startsWith('.') || spec.startsWith('node:')) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!builtinModules.includes(name)) imported.set(name, f);
      }
    }
    expect(imported.size).toBeGreaterThan(10);
    const missing = [...imported]
      .filter(([name]) => !(name in pkg.dependencies))
      .map(([n, f]) => `${n} (${f})`);
    expect(missing, 'imported at run time but not in "dependencies" (npm ci --omit=dev drops it)').toEqual(
      [],
    );
  });

  it('starts `algodesk serve` as PID 1 in exec form, stopped by SIGTERM, which src/main.ts handles', () => {
    const command = [...execForm('ENTRYPOINT'), ...execForm('CMD')];
    const pkg = JSON.parse(read('package.json')) as { bin: { algodesk: string } };
    expect(command).toEqual(['node', pkg.bin.algodesk, 'serve']);
    expect(inFinal('STOPSIGNAL').map((i) => i.args)).toEqual(['SIGTERM']);
    // Node as PID 1 gets a signal only through a handler of its own.
    expect(read('src/main.ts')).toMatch(/process\.on\('SIGTERM'/);
  });

  describe('HEALTHCHECK', () => {
    const [ins] = inFinal('HEALTHCHECK');
    const m = /^((?:--\S+\s+)*)CMD\s+(\[.*\])$/.exec(ins?.args ?? '');
    const cmd = JSON.parse(m?.[2] ?? '[]') as string[];

    /** Runs the health check against a loopback server answering `status` on /health. */
    async function probe(status: number | 'closed'): Promise<{ code: number | null; paths: string[] }> {
      const paths: string[] = [];
      const server = createServer((req, res) => {
        paths.push(req.url ?? '');
        res.statusCode = req.url === '/health' ? (status as number) : 404;
        res.end('{}');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as AddressInfo;
      if (status === 'closed') await new Promise((r) => server.close(r));
      const child = spawn(process.execPath, cmd.slice(1), {
        env: { PATH: process.env.PATH, PORT: String(port) },
        stdio: 'ignore',
      });
      const code = await new Promise<number | null>((r) => child.on('exit', r));
      if (status !== 'closed') await new Promise((r) => server.close(r));
      return { code, paths };
    }

    it('is node fetching /health (no curl in the image), bounded by a timeout', () => {
      expect(m, 'HEALTHCHECK [options] CMD ["…"]').not.toBeNull();
      expect(m![1]).toMatch(/--timeout=\d+s/);
      expect(cmd[0]).toBe('node');
      expect(cmd.join(' ')).toContain('/health');
    });

    it('passes on 200 from /health on PORT, fails on 503 and on a closed port', async () => {
      expect(await probe(200)).toEqual({ code: 0, paths: ['/health'] });
      expect((await probe(503)).code).toBe(1);
      expect((await probe('closed')).code).toBe(1);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// compose.yaml

interface Service {
  build?: string;
  image?: string;
  profiles?: string[];
  ports?: string[];
  environment?: Record<string, unknown>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  entrypoint?: string[];
  networks?: string[];
  restart?: string;
  stop_grace_period?: string;
}
interface ComposeFile {
  name: string;
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
  networks: Record<string, { internal?: boolean }>;
}

const composeText = read('compose.yaml');
// Compose reads `<<` merge keys (YAML 1.1); so does this parse.
const compose = parse(composeText, { merge: true }) as ComposeFile;
const services = compose.services;
const isAlgodesk = (s: Service) => s.image === 'algodesk:local';
const algodeskServices = Object.entries(services).filter(([, s]) => isAlgodesk(s));
const scaleInstances = algodeskServices.filter(([, s]) => s.profiles?.includes('scale'));

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

// ---------------------------------------------------------------------------------------------
// deploy/nginx.conf

describe('deploy/nginx.conf', () => {
  const mount = services.proxy!.volumes!.find((v) => v.includes('/etc/nginx/'))!;
  const [source, target] = mount.split(':');
  const conf = read(source!);
  /** The config without comments, as `directive args;` and braces. */
  const code = conf.replace(/#.*$/gm, '');
  const block = (head: RegExp): string => {
    const m = head.exec(code);
    expect(m, String(head)).not.toBeNull();
    let depth = 0;
    for (let i = m!.index + m![0].length - 1; i < code.length; i++) {
      if (code[i] === '{') depth++;
      else if (code[i] === '}' && --depth === 0) return code.slice(m!.index + m![0].length, i);
    }
    throw new Error(`unclosed ${String(head)}`);
  };
  const server = block(/\bserver\s*\{/);
  /** The server block's own directives (its location blocks removed). */
  const serverLevel = server.replace(/location[^{]*\{[^}]*\}/g, '');
  const setHeaders = new Map(
    [...serverLevel.matchAll(/proxy_set_header\s+(\S+)\s+([^;]*);/g)].map((m) => [
      m[1]!.toLowerCase(),
      m[2]!.trim(),
    ]),
  );

  it('is the file compose.yaml mounts into the nginx image, read-only', () => {
    expect(source).toBe('./deploy/nginx.conf');
    expect(target).toBe('/etc/nginx/conf.d/default.conf');
    expect(mount.endsWith(':ro')).toBe(true);
  });

  it('routes every request to both instances on the port they listen on', () => {
    const servers = [...block(/\bupstream\s+algodesk\s*\{/).matchAll(/^\s*server\s+(\S+)/gm)].map(
      (m) => m[1],
    );
    expect(servers).toEqual(scaleInstances.map(([name]) => `${name}:${defaults.port}`));
    const locations = [...server.matchAll(/location\s+([^{]*)\{([^}]*)\}/g)];
    expect(locations.map((l) => l[1]!.trim())).toContain('/');
    for (const [, where, body] of locations) {
      expect(body, `location ${where}`).toMatch(/proxy_pass\s+http:\/\/algodesk;/);
      // A location with a proxy_set_header of its own would drop every server-level one.
      expect(body, `location ${where}`).not.toContain('proxy_set_header');
    }
    const listen = /^\s*listen\s+(\d+);/m.exec(server)![1];
    expect(services.proxy!.ports![0]!.endsWith(`:${listen}`)).toBe(true);
    expect(services.proxy!.healthcheck!.test.join(' ')).toContain(`127.0.0.1:${listen}/`);
  });

  it('forwards the WebSocket upgrade and the Host the live socket checks its Origin against', () => {
    expect(setHeaders.get('host')).toBe('$http_host');
    expect(setHeaders.get('upgrade')).toBe('$http_upgrade');
    expect(setHeaders.get('connection')).toBe('$connection_upgrade');
    expect(code).toMatch(/map\s+\$http_upgrade\s+\$connection_upgrade/);
  });

  it('sets the client address from the connection: a client spoofing every proxy header gets its own address', () => {
    // The headers resolveClientIp reads, from its own source, so a header added there is checked here.
    const list = /const PROXY_HEADERS = \[([^\]]*)\]/.exec(read('src/platform/client-ip.ts'));
    const names = [...list![1]!.matchAll(/'([a-z-]+)'/g)].map((m) => m[1]!);
    expect(names).toContain('x-forwarded-for');
    for (const name of names) expect(['$remote_addr', '""'], name).toContain(setHeaders.get(name));
    expect(setHeaders.get('x-forwarded-for')).toBe('$remote_addr');

    const client = '198.51.100.7';
    const spoofed: IncomingHttpHeaders = Object.fromEntries(names.map((n) => [n, '203.0.113.66']));
    spoofed['x-forwarded-for'] = '203.0.113.66, 10.0.0.1';
    // nginx passes the client's headers on, except those it sets (an empty value drops the header).
    const forwarded: IncomingHttpHeaders = { ...spoofed };
    for (const [name, value] of setHeaders) {
      if (value === '""') delete forwarded[name];
      else if (value === '$remote_addr') forwarded[name] = client;
    }
    expect(resolveClientIp('172.18.0.5', forwarded, true)).toBe(client);
    // Without the proxy's rewriting the spoof would have won: the check above is not vacuous.
    expect(resolveClientIp('172.18.0.5', spoofed, true)).toBe('203.0.113.66');
  });
});
