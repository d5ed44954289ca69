#!/usr/bin/env node
/**
 * Builds what changed since the last build, and only that: the server (tsc → dist/) and the web
 * console (Vite → web/dist/). `npm install` (prepare), `npm start` and `npm run cli` run it; when
 * nothing changed it costs a hash of the sources (~0.1 s) and prints nothing.
 *
 * - A part is rebuilt when the hash of its sources (contents, not times: a checkout or a copy
 *   keeps what matters) differs from the one its last successful build wrote (`dist/.build-hash`,
 *   `web/dist/.build-hash`). Before building it says so in one line on stderr.
 * - Everything it and the compilers print goes to stderr: stdout stays the command's own answer,
 *   so `KEY=$(npm run -s cli -- apikey create …)` captures the key only.
 * - It never removes a file a running server serves: tsc writes in place, and the console is
 *   built beside the previous build (its hashed assets are kept for one more build, so a page a
 *   running server handed out still loads them; older ones are pruned).
 * - Two builds at once wait for each other (a lock folder), so two commands started together do
 *   not build over each other.
 *
 * Options: `--force` builds both parts; `--only server|web`; `--if-possible` (prepare) exits 0
 * with a warning where the compilers are not installed (`npm install --omit=dev`) or there are no
 * sources (a container's dependency stage).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const say = (line) => process.stderr.write(`algodesk: ${line}\n`);

/** Files under `path` (a file or a folder) that `keep` accepts, sorted, relative to the root. */
function files(path, keep) {
  const full = join(ROOT, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  const out = [];
  for (const entry of readdirSync(full, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const rel = relative(ROOT, join(entry.parentPath ?? entry.path, entry.name));
    if (keep(rel)) out.push(rel);
  }
  return out.sort();
}

/** The hash of the files' names and contents. */
function hashOf(list) {
  const h = createHash('sha256');
  for (const f of list) {
    h.update(f);
    h.update('\0');
    h.update(readFileSync(join(ROOT, f)));
    h.update('\0');
  }
  return h.digest('hex');
}

const bin = (pkg, path) => join(ROOT, 'node_modules', pkg, path);

const PARTS = {
  server: {
    what: 'the server',
    sources: () => [
      ...files('src', (f) => f.endsWith('.ts') && !f.endsWith('.test.ts')),
      ...files('tsconfig.json', () => true),
      ...files('tsconfig.build.json', () => true),
      ...files('package-lock.json', () => true),
    ],
    stamp: 'dist/.build-hash',
    compiler: bin('typescript', 'bin/tsc'),
    run: (compiler) => [compiler, '-p', 'tsconfig.build.json'],
  },
  web: {
    what: 'the web console',
    sources: () => [
      ...files('web', (f) => !f.startsWith(join('web', 'dist')) && !f.includes('.build-lock')),
      // The pages' list the console's routes are checked against.
      ...files(join('src', 'modules', 'web', 'web-pages.ts'), () => true),
      ...files('package-lock.json', () => true),
    ],
    stamp: 'web/dist/.build-hash',
    compiler: bin('vite', 'bin/vite.js'),
    run: (compiler) => [compiler, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
    before: () => readList(),
    after: (previous) => pruneWeb(previous),
  },
};

/** The console's files of its latest build (written by the Vite config's build-files plugin). */
function readList() {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'web/dist/.build-files.json'), 'utf8'));
  } catch {
    return [];
  }
}

/** Deletes the console's files that neither this build nor the one before it wrote. */
function pruneWeb(previous) {
  const dist = join(ROOT, 'web/dist');
  const present = files(relative(ROOT, dist), () => true).map((f) => relative(dist, join(ROOT, f)));
  for (const rel of staleFiles(present, previous, readList())) rmSync(join(dist, rel), { force: true });
}

/**
 * The console's files to delete after a build: those neither this build (`current`) nor the one
 * before it (`previous`) wrote, so the page a running server handed out still finds its assets;
 * dotfiles (the build's own records) stay. Paths relative to web/dist.
 */
export function staleFiles(present, previous, current) {
  const keep = new Set([...previous, ...current]);
  return present.filter((rel) => !rel.startsWith('.') && !keep.has(rel));
}

/** Waits for (and takes) the build lock; returns its release. */
async function lock() {
  const dir = join(ROOT, '.build-lock');
  for (let waited = 0; ; waited += 200) {
    try {
      mkdirSync(dir);
      return () => rmSync(dir, { recursive: true, force: true });
    } catch {
      // A lock older than ten minutes belongs to a build that died: take it over.
      if (existsSync(dir) && Date.now() - statSync(dir).mtimeMs > 600_000) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      if (waited === 0) say('waiting for another build to finish…');
      await sleep(200);
    }
  }
}

function stale(part) {
  const list = part.sources();
  if (list.length === 0) return undefined;
  const hash = hashOf(list);
  const stamp = join(ROOT, part.stamp);
  const was = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  return args.has('--force') || was !== hash ? hash : undefined;
}

async function main() {
  const names = only ? [only] : ['server', 'web'];
  for (const n of names) if (!PARTS[n]) throw new Error(`unknown part "${n}" (server or web)`);
  if (!existsSync(join(ROOT, 'src'))) {
    if (args.has('--if-possible')) return; // no sources here (a container's dependency stage)
    throw new Error('no src/ folder: nothing to build');
  }
  let due = names.filter((n) => stale(PARTS[n]) !== undefined);
  if (due.length === 0) return;
  const missing = due.filter((n) => !existsSync(PARTS[n].compiler));
  if (missing.length > 0) {
    const message = `cannot build ${missing.map((n) => PARTS[n].what).join(' and ')}: the development dependencies are not installed (run npm install without --omit=dev)`;
    if (args.has('--if-possible')) return say(`warning: ${message}`);
    throw new Error(message);
  }
  const release = await lock();
  try {
    // Another command may have built while this one waited.
    due = due.filter((n) => stale(PARTS[n]) !== undefined);
    if (due.length === 0) return;
    const why = args.has('--force')
      ? 'npm run build: everything'
      : existsSync(join(ROOT, PARTS[due[0]].stamp))
        ? 'its sources changed since the last build'
        : 'first build';
    say(`building ${due.map((n) => PARTS[n].what).join(' and ')} (${why}; about a minute on two cores)…`);
    for (const n of due) {
      const part = PARTS[n];
      const hash = stale(part);
      const previous = part.before?.();
      // The compilers' output goes to stderr (fd 2 for both of their streams).
      const r = spawnSync(process.execPath, part.run(part.compiler), {
        cwd: ROOT,
        stdio: ['ignore', 2, 2],
        env: { ...process.env, NODE_ENV: 'production' },
      });
      if (r.status !== 0) throw new Error(`building ${part.what} failed (exit ${r.status ?? r.signal})`);
      part.after?.(previous);
      mkdirSync(dirname(join(ROOT, part.stamp)), { recursive: true });
      writeFileSync(join(ROOT, part.stamp), `${hash}\n`);
    }
  } finally {
    release();
  }
}

// Run as a script (npm's scripts), not when a test imports its functions.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  main().catch((err) => {
    say(err.message);
    process.exitCode = 1;
  });
