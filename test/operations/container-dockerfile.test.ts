/**
 * The Dockerfile, checked without a Docker daemon (read by the small parser of
 * helpers/container-files.ts): a multi-stage build on one pinned node base, only production
 * dependencies and dist shipped, no secret declared, an unprivileged user with DATA_DIR a volume,
 * `algodesk serve` as PID 1, and the image's health check run against a loopback server. A drift
 * between the file and the code or README.md fails here; .ci/run builds the image where a daemon
 * answers. compose.yaml: container-compose.test.ts; deploy/nginx.conf: container-nginx.test.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { builtinModules } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  defaults,
  dockerfile,
  envPairs,
  execForm,
  finalStage,
  imageEnv,
  inFinal,
  read,
  readmeVariables,
  ROOT,
  SECRET_NAME,
} from '../helpers/container-files.js';

/** The first stage with a RUN matching `command`. */
const stageRunning = (command: RegExp) =>
  dockerfile.stages.find((s) => s.instructions.some((i) => i.keyword === 'RUN' && command.test(i.args)));

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
        'scripts/build.mjs',
      ]).toContain(src);
      expect(ignored).not.toContain(src);
      // A folder .dockerignore drops is copied only through an exception for the file.
      const folder = src.split('/')[0]!;
      if (folder !== src && ignored.includes(folder)) expect(ignored).toContain(`!${src}`);
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
