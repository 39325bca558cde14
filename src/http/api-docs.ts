import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import { generateSpecs } from 'hono-openapi';
import * as v from 'valibot';
import type { AppEnv, AppModule } from './context.ts';
import { operation } from './openapi.ts';

const TITLE = 'ライセンスショップ API';
const DOCS_SCRIPT = '/api/docs/scalar.js';

/** The OpenAPI document, as an answer (any JSON object; its own shape is OpenAPI 3.1's). */
const DocumentAnswer = v.objectWithRest({ openapi: v.string() }, v.unknown());

const docs = {
  csrfToken: operation('get', {
    summary: 'CSRF トークンを発行する',
    description: 'XSRF-TOKEN クッキーを設定します。状態を変える呼び出しはその値を X-XSRF-TOKEN ヘッダーで送ります。',
    tags: ['共通'],
    access: 'public',
    answers: { 204: { empty: 'XSRF-TOKEN クッキーを設定しました。' } },
  }),
  document: operation('get', {
    summary: 'この API の OpenAPI 3.1 ドキュメント',
    tags: ['共通'],
    access: 'public',
    answers: { 200: DocumentAnswer },
  }),
  page: operation('get', {
    summary: 'API リファレンス（Scalar）',
    tags: ['共通'],
    access: 'public',
    answers: { 200: { media: 'text/html', description: 'API リファレンスの画面' } },
  }),
  script: operation('get', {
    summary: 'API リファレンスの画面のスクリプト（@scalar/api-reference）',
    tags: ['共通'],
    access: 'public',
    answers: { 200: { media: 'text/javascript', description: 'Scalar のスクリプト' } },
    // Without @scalar/api-reference installed.
    errors: [404],
  }),
};

/** Scalar's standalone browser bundle from node_modules (never a CDN: the shop works without one). */
function scalarBundle(): string | undefined {
  try {
    const main = createRequire(import.meta.url).resolve('@scalar/api-reference');
    const file = join(dirname(main), 'browser', 'standalone.js');
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/** Every route of the API (the modules' and the host's own few), as the document's source. */
function apiRoutes(modules: readonly AppModule[]) {
  const app = new Hono<AppEnv>();
  app.get('/api/csrf-token', docs.csrfToken, (c) => c.body(null, 204));
  app.get('/api/openapi.json', docs.document, (c) => c.body(null));
  app.get('/api/docs', docs.page, (c) => c.body(null));
  app.get('/api/docs/scalar.js', docs.script, (c) => c.body(null));
  for (const module of modules) if (module.api) app.route('/api', module.api);
  return app;
}

/** The OpenAPI 3.1 document of the shop's API, generated from the routes' schemas (no data of anyone). */
export function apiDocument(modules: readonly AppModule[], sessionCookie = 'shop.session_token') {
  return generateSpecs(apiRoutes(modules), {
    documentation: {
      info: {
        title: TITLE,
        version: '4',
        description:
          '会員・管理者向けライセンス販売ショップの API です。状態を変える呼び出しには CSRF トークン（X-XSRF-TOKEN）が必要です。',
      },
      servers: [{ url: '/' }],
      security: [{ session: [] }],
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: sessionCookie, description: 'ログインで発行されるセッションクッキー' },
        },
      },
    },
    // The CSV downloads end in `.csv`: they are operations, not static files.
    excludeStaticFile: false,
    defaultValidationErrorResponse: false,
  });
}

/**
 * GET /api/openapi.json (the document, built once) and GET /api/docs (Scalar's reference, its script
 * served from this origin under a nonce of the page's own Content-Security-Policy).
 */
export function apiDocsRoutes(modules: readonly AppModule[], sessionCookie: string) {
  let document: Promise<unknown> | undefined;
  let bundle: string | undefined | null = null;
  return new Hono<AppEnv>()
    .get('/openapi.json', async (c) => {
      document ??= apiDocument(modules, sessionCookie);
      return c.json(await document);
    })
    .get('/docs/scalar.js', (c) => {
      if (bundle === null) bundle = scalarBundle();
      if (bundle === undefined)
        return c.json({ message: 'API リファレンスの表示用スクリプトがインストールされていません。' }, 404);
      return c.body(bundle, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
    })
    .get('/docs', async (c, next) => {
      const nonce = crypto.randomUUID().replaceAll('-', '');
      const page = Scalar({
        url: '/api/openapi.json',
        pageTitle: `${TITLE} リファレンス`,
        cdn: DOCS_SCRIPT,
        nonce,
        // Nothing from elsewhere: no web fonts from Scalar's host, no AI chat, no hosted MCP.
        withDefaultFonts: false,
        showDeveloperTools: 'never',
        mcp: { disabled: true },
        agent: { disabled: true },
      });
      const res = (await page(c as never, next)) as Response;
      res.headers.set(
        'Content-Security-Policy',
        `default-src 'self'; script-src 'self' 'nonce-${nonce}'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; ` +
          `font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'`,
      );
      return res;
    });
}
