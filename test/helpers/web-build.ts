import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'vite';

/** The repository's root, and the console's sources and build. */
export const REPO = resolve(import.meta.dirname, '../..');
export const WEB_DIST = join(REPO, 'web', 'dist');

/** Newest modification time under `path` (a file or a folder), 0 when absent. */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/**
 * Builds the console into web/dist (as `npm run build:web` does) when it is missing or older than
 * its sources, so the browser tests drive the code under test. A lock folder keeps two test
 * workers from building at once.
 */
export async function ensureWebBuild(): Promise<void> {
  const sources = Math.max(
    newest(join(REPO, 'web', 'src')),
    newest(join(REPO, 'web', 'index.html')),
    newest(join(REPO, 'web', 'vite.config.ts')),
    newest(join(REPO, 'src', 'modules', 'web', 'web-pages.ts')),
  );
  const fresh = () => newest(join(WEB_DIST, 'index.html')) >= sources;
  if (fresh()) return;
  const lock = join(REPO, 'web', '.build-lock');
  for (let waited = 0; ; waited += 200) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (waited > 120_000) throw new Error(`web build lock ${lock} held for 2 minutes; remove it`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    if (!fresh()) {
      // Vitest sets NODE_ENV=test, which Vite would compile in (React's development build):
      // the tests drive, and measure, the production bundle `npm run build:web` makes.
      const was = process.env.NODE_ENV;
      process.env.NODE_ENV = 'production';
      try {
        await build({
          configFile: join(REPO, 'web', 'vite.config.ts'),
          mode: 'production',
          logLevel: 'warn',
        });
      } finally {
        process.env.NODE_ENV = was;
      }
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
