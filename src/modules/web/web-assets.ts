import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built console (`npm run build:web` writes it): its folder and the app shell's HTML, or
 * undefined when it was not built (the server then answers as it did without a console).
 */
export interface WebBuild {
  /** The folder Vite built into (`web/dist`). */
  root: string;
  /** `index.html`, read once at start (a rebuild needs a restart, as the server's own code does). */
  shell: string;
}

/** `web/dist` beside the package.json above this file (in `src/` or in `dist/src/`). */
export function defaultWebRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'web', 'dist');
    dir = dirname(dir);
  }
  return undefined;
}

export function loadWebBuild(root: string | undefined): WebBuild | undefined {
  if (root === undefined) return undefined;
  const index = join(root, 'index.html');
  if (!existsSync(index)) return undefined;
  return { root, shell: readFileSync(index, 'utf8') };
}
