import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { sentryVitePlugin } from '@sentry/vite-plugin';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { site } from './src/site-settings.ts';

const OUT_DIR = resolve(import.meta.dirname, 'dist/web');
const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/**
 * Writes `<file>.br` and `<file>.gz` next to every text asset of the build, so the server sends them
 * as they are (src/http/spa.ts) instead of compressing on each request. `index.html` is left out: the
 * server adds its config to it and compresses it once in memory.
 */
function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    async closeBundle() {
      const files = (await readdir(OUT_DIR, { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile() && /\.(js|css|svg|ico|json|txt|webmanifest)$/.test(e.name) && e.name !== 'index.html')
        .map((e) => join(e.parentPath, e.name));
      await Promise.all(
        files.map(async (file) => {
          const data = await readFile(file);
          if (data.length < 512) return;
          const [br, gzipped] = await Promise.all([
            brotli(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }),
            gz(data, { level: 9 }),
          ]);
          await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gzipped)]);
        }),
      );
    },
  };
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The page's header as plain HTML in `#root`, drawn as soon as the stylesheet is in, before any
 * script runs (first paint); the app replaces it with the same header when it starts. Nothing sits
 * under it, so what the app adds below moves nothing.
 */
function staticShell(): Plugin {
  return {
    name: 'static-shell',
    transformIndexHtml(html) {
      const header =
        '<div class="app"><header class="site-header"><div class="site-header-inner">' +
        `<a href="/" class="brand">${escapeHtml(site.shopName)}</a><p class="tagline">${escapeHtml(site.tagline)}</p>` +
        '</div></header></div>';
      return html.replace('<div id="root"></div>', `<div id="root">${header}</div>`);
    },
  };
}

/**
 * Source maps never ship with the site (decision 0031). With SENTRY_AUTH_TOKEN, SENTRY_ORG and
 * SENTRY_PROJECT set, the build writes hidden maps (no `sourceMappingURL` comment in the scripts),
 * `@sentry/vite-plugin` uploads them (matched to the scripts by the debug IDs it writes into them)
 * and deletes them. An upload that fails is logged and the build goes on without maps: a deploy does
 * not wait on Sentry. Without the three settings no maps are written at all.
 */
function sourceMaps(): { sourcemap: 'hidden' | false; plugins: Plugin[] } {
  const { SENTRY_AUTH_TOKEN: authToken, SENTRY_ORG: org, SENTRY_PROJECT: project } = process.env;
  if (!authToken || !org || !project) return { sourcemap: false, plugins: [] };
  return {
    sourcemap: 'hidden',
    plugins: sentryVitePlugin({
      authToken,
      org,
      project,
      url: process.env.SENTRY_URL || undefined,
      release: { name: process.env.SENTRY_RELEASE || undefined },
      telemetry: false,
      sourcemaps: { filesToDeleteAfterUpload: [join(OUT_DIR, '**/*.map')] },
    }) as Plugin[],
  };
}

const maps = sourceMaps();

export default defineConfig({
  root: 'web',
  plugins: [react(), staticShell(), ...maps.plugins, precompress()],
  build: { outDir: OUT_DIR, emptyOutDir: true, sourcemap: maps.sourcemap },
  server: {
    port: 5173,
    proxy: { '/api': 'http://localhost:3000', '/healthz': 'http://localhost:3000', '/readyz': 'http://localhost:3000' },
  },
});
