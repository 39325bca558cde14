import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spaRoutes } from '../../src/http/spa.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { WEB_ROOT } from '../support/server.ts';

let t: TestRuntime;
let script: string;
let stylesheet: string;
beforeAll(async () => {
  t = await startTestRuntime({ webRoot: WEB_ROOT });
  const html = readFileSync(join(WEB_ROOT, 'index.html'), 'utf8');
  script = /<script type="module" crossorigin src="([^"]+\.js)"/.exec(html)?.[1] ?? '';
  stylesheet = /<link rel="stylesheet" crossorigin href="([^"]+\.css)"/.exec(html)?.[1] ?? '';
});
afterAll(async () => t?.stop());

const get = (path: string, encoding?: string) =>
  t.app.request(path, { headers: encoding === undefined ? {} : { 'accept-encoding': encoding } });
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());
const decode = (encoding: string | null, body: Buffer) =>
  encoding === 'br' ? brotliDecompressSync(body) : encoding === 'gzip' ? gunzipSync(body) : body;

describe('the built SPA, compressed and cached', () => {
  it('the build writes a brotli and a gzip copy of every script and stylesheet (of 512 bytes or more), each decoding to the file', () => {
    const assets = readdirSync(join(WEB_ROOT, 'assets')).filter(
      (f) => /\.(js|css)$/.test(f) && readFileSync(join(WEB_ROOT, 'assets', f)).length >= 512,
    );
    expect(assets.length).toBeGreaterThan(1);
    for (const file of assets) {
      const original = readFileSync(join(WEB_ROOT, 'assets', file));
      const br = readFileSync(join(WEB_ROOT, 'assets', `${file}.br`));
      const gz = readFileSync(join(WEB_ROOT, 'assets', `${file}.gz`));
      expect(brotliDecompressSync(br).equals(original), file).toBe(true);
      expect(gunzipSync(gz).equals(original), file).toBe(true);
      if (original.length > 10_000) expect(br.length, file).toBeLessThan(original.length / 2);
    }
  });

  it.each([
    ['br', 'gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip, deflate', 'gzip'],
    ['nothing', '', null],
    ['gzip when brotli is refused', 'br;q=0, gzip', 'gzip'],
  ])('a hashed script: %s, immutable for a year', async (_name, accept, encoding) => {
    expect(script).toMatch(/^\/assets\/.+-[\w-]{8}\.js$/);
    const res = await get(script, accept);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(res.headers.get('content-encoding')).toBe(encoding);
    expect(res.headers.get('vary')).toMatch(/Accept-Encoding/i);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const body = await bytes(res);
    expect(decode(encoding, body).equals(readFileSync(join(WEB_ROOT, script)))).toBe(true);
  });

  it('a hashed stylesheet comes compressed and immutable too', async () => {
    const res = await get(stylesheet, 'br, gzip');
    expect(res.headers.get('content-type')).toMatch(/^text\/css/);
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(await bytes(res)).equals(readFileSync(join(WEB_ROOT, stylesheet)))).toBe(true);
  });

  it.each([
    ['/licenses', 'br', 'br'],
    ['/users/registration', 'gzip', 'gzip'],
    ['/login', '', null],
    ['/', 'gzip, br', 'br'],
    ['/index.html', 'gzip', 'gzip'],
  ])('the page %s (accepting "%s") is index.html with its config, revalidated on every load', async (path, accept, encoding) => {
    const res = await get(path, accept);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-encoding')).toBe(encoding);
    expect(res.headers.get('vary')).toMatch(/Accept-Encoding/i);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = decode(encoding, await bytes(res)).toString('utf8');
    // The header is drawn before any script runs.
    expect(html).toMatch(/<div id="root"><div class="app"><header class="site-header">.*<a href="\/" class="brand">/);
    expect(html).toContain('<meta name="app-config"');
    expect(html).toContain('<link rel="icon" href="/favicon.ico"');
  });

  it('the favicon is a real icon, revalidated', async () => {
    const res = await get('/favicon.ico', 'br, gzip');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)$/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const icon = decode(res.headers.get('content-encoding'), await bytes(res));
    // ICONDIR: reserved 0, type 1 (icon), at least one image.
    expect(icon.readUInt16LE(0)).toBe(0);
    expect(icon.readUInt16LE(2)).toBe(1);
    expect(icon.readUInt16LE(4)).toBeGreaterThan(0);
    const svg = await get('/favicon.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });

  it('a missing asset is a 404, never the page', async () => {
    const res = await get('/assets/missing-abcdefgh.js', 'br');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('API answers are not cached', async () => {
    const res = await get('/api/csrf-token', 'br');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('source maps are never public', () => {
  it('a build without a Sentry token writes no source map and no script names one', () => {
    const files = readdirSync(WEB_ROOT, { recursive: true, encoding: 'utf8' });
    expect(files.filter((f) => f.endsWith('.js')).length).toBeGreaterThan(1);
    expect(files.filter((f) => /\.map(\.(br|gz))?$/.test(f))).toEqual([]);
    for (const file of files.filter((f) => f.endsWith('.js'))) {
      expect(readFileSync(join(WEB_ROOT, file), 'utf8'), file).not.toMatch(/sourceMappingURL=/);
    }
  });

  it('GET /assets/<name>.map is a 404 in the running app', async () => {
    const map = script.replace(/\.js$/, '.js.map');
    for (const encoding of ['br', 'gzip', '']) {
      const res = await get(map, encoding);
      expect(res.status, `${map} (${encoding})`).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('a .map file left in the web root by a build is still a 404, with its compressed copies', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spa-maps-'));
    try {
      mkdirSync(join(root, 'assets'));
      writeFileSync(join(root, 'index.html'), '<!doctype html><html><head></head><body></body></html>');
      writeFileSync(join(root, 'assets', 'app-abcdefgh.js'), 'console.log(1);');
      for (const name of ['app-abcdefgh.js.map', 'app-abcdefgh.js.map.gz', 'app-abcdefgh.js.map.br', 'stray.map']) {
        writeFileSync(join(root, 'assets', name), '{"version":3,"sources":["secret.ts"]}');
      }
      const spa = spaRoutes(root, {});
      expect((await spa.request('/assets/app-abcdefgh.js')).status).toBe(200);
      for (const path of [
        '/assets/app-abcdefgh.js.map',
        '/assets/app-abcdefgh.js.map.gz',
        '/assets/app-abcdefgh.js.map.br',
        '/assets/stray.map',
        '/assets/APP-ABCDEFGH.JS.MAP',
      ]) {
        for (const encoding of ['br, gzip', '']) {
          const res = await spa.request(path, { headers: { 'accept-encoding': encoding } });
          expect(res.status, `${path} (${encoding})`).toBe(404);
          expect(await res.text()).not.toContain('secret.ts');
        }
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
