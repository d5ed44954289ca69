import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The web console's build (`npm run build:web`): `web/` is the root, the output `web/dist`, which
 * the server serves (src/modules/web/web.plugin.ts). Every asset is content-hashed under
 * `/assets/` and loaded from this origin only (docs/rules/web.md#no-cdn). `npm run dev:web`
 * serves the console with hot reload and forwards the JSON routes to a server on port 5000.
 */
const api = process.env.ALGODESK_URL ?? 'http://127.0.0.1:5000';
const JSON_PREFIXES = [
  '/auth',
  '/api',
  '/security',
  '/settings',
  '/logs/api',
  '/admin/api',
  '/apikey',
  '/scanner/api',
  '/flow/api',
];

/**
 * Writes a `.br` and a `.gz` beside every built script, style sheet and SVG: the server sends the
 * one the browser accepts (`@fastify/static`'s `preCompressed`), so the wire carries the
 * compressed bytes the first-load budget counts, with no compression on the request path.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'algodesk-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = join(config.root, config.build.outDir);
    },
    writeBundle(_options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(?:js|css|svg)$/.test(name)) continue;
        const file = join(outDir, name);
        const raw = readFileSync(file);
        writeFileSync(`${file}.br`, brotliCompressSync(raw));
        writeFileSync(`${file}.gz`, gzipSync(raw, { level: 9 }));
      }
    },
  };
}

/**
 * Writes `.build-files.json`, the files this build wrote (`index.html`, the assets and their
 * compressed copies): the build script keeps them and the previous build's, and prunes the rest
 * (scripts/build.mjs). The output folder is not emptied first, so a running server that handed out
 * the previous `index.html` still finds the assets it names.
 */
function buildFiles(): Plugin {
  let outDir = '';
  return {
    name: 'algodesk-build-files',
    apply: 'build',
    configResolved(config) {
      outDir = join(config.root, config.build.outDir);
    },
    writeBundle(_options, bundle) {
      const names = Object.keys(bundle).flatMap((name) =>
        /\.(?:js|css|svg)$/.test(name) ? [name, `${name}.br`, `${name}.gz`] : [name],
      );
      writeFileSync(join(outDir, '.build-files.json'), `${JSON.stringify(names.sort(), null, 1)}\n`);
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react(), precompress(), buildFiles()],
  build: {
    outDir: 'dist',
    // Built beside the previous build, pruned by scripts/build.mjs (see buildFiles).
    emptyOutDir: false,
    assetsDir: 'assets',
    target: 'es2022',
    // No inline data: scripts or styles: the shell's policy allows this origin's files only.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    // The budget is on compressed first-load JavaScript (docs/rules/web.md#first-load-budget,
    // checked by test/web/console-build.test.ts), not on one raw chunk: React and the component
    // kit make a ~520 kB raw (~165 kB gzip) entry.
    chunkSizeWarningLimit: 700,
  },
  server: {
    proxy: Object.fromEntries(JSON_PREFIXES.map((p) => [p, { target: api, changeOrigin: false }])),
  },
});
