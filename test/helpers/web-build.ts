import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The repository's root, and the console's sources and build. */
export const REPO = resolve(import.meta.dirname, '../..');
export const WEB_DIST = join(REPO, 'web', 'dist');

/**
 * Builds the console into web/dist when its sources changed since its last build, as `npm start`
 * does (scripts/build.mjs: a content hash of the sources, Vite's production build, a lock that
 * keeps two test workers from building at once), so the browser tests drive the code under test.
 */
export async function ensureWebBuild(): Promise<void> {
  const { code, err } = await new Promise<{ code: number | null; err: string }>((done, fail) => {
    const child = spawn(process.execPath, [join(REPO, 'scripts', 'build.mjs'), '--only', 'web'], {
      cwd: REPO,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, err }));
  });
  if (code !== 0) throw new Error(`web build failed (exit ${String(code)}):\n${err}`);
}
