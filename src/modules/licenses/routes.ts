import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { may, permit, requireUser, signedInUser } from '../../http/guards.ts';
import { indexed, readMultipart } from '../../http/multipart.ts';
import { isNumericId } from '../../http/path-ids.ts';
import { collectErrors, jsonInput, parseInput, parseInputs, queryInput, readJson } from '../../http/validate.ts';
import { parseJapanTime } from '../../lib/japan-time.ts';
import {
  createLicense,
  deleteLicense,
  moveLicense,
  orderLicenses,
  setLicensePublished,
  updateLicense,
  validateLicense,
} from './admin-licenses.ts';
import { catalogueBody, getLicense, LICENSE_NOT_FOUND, listLicenses, withAvailability } from './catalogue.ts';
import { CONTENT_TYPE, MAX_PICTURE_BYTES, MAX_PICTURES, pictureKey, STORED_NAME } from './images.ts';
import { licenseDocs } from './responses.ts';
import {
  LicenseFields,
  type LicenseFieldsData,
  ListQuery,
  MoveInput,
  OrderInput,
  PublishedInput,
  UpdatedAtField,
} from './schemas.ts';

/** Upload routes may carry ten 5 MB pictures; every other API body stays under 1 MB (app.ts). */
export const LICENSE_UPLOAD_PATH = /^\/api\/licenses\/(create|\d+)(\/validate)?$/;
export const LICENSE_UPLOAD_LIMIT = MAX_PICTURES * MAX_PICTURE_BYTES + 1024 * 1024;

function licenseId(c: Context<AppEnv>): number {
  const raw = c.req.param('id');
  if (!isNumericId(raw)) throw new AppError('not_found', LICENSE_NOT_FOUND);
  return Number(raw);
}

async function readLicenseJson(c: Context<AppEnv>) {
  const body = await readJson(c);
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (name === 'filenames' || name === 'order') continue;
    if (typeof value === 'object' && value !== null) throw validationError({ [name]: ['文字列か数値で入力してください。'] });
    fields[name] = value === null ? '' : String(value);
  }
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
  const order = list(body.order);
  return { fields, keep: list(body.filenames), uploads: [], order: order.length ? order : undefined };
}

async function readLicenseForm(c: Context<AppEnv>) {
  if (/^application\/json\b/i.test(c.req.header('content-type') ?? '')) return readLicenseJson(c);
  const { fields, files } = await readMultipart(c, { maxFiles: MAX_PICTURES, maxFileBytes: MAX_PICTURE_BYTES });
  const keep = indexed(Object.entries(fields), 'filenames').filter((name) => name !== '');
  const uploads = indexed(
    files.map((f) => [f.field, f] as [string, (typeof files)[number]]),
    'file',
  );
  // Optional: the full picture order (`stored:<filename>` / `new:<i>`); absent, kept pictures come first.
  const order = indexed(Object.entries(fields), 'order').filter((entry) => entry !== '');
  return { fields, keep, uploads, order: order.length ? order : undefined };
}

const periodOf = (fields: Record<string, string>) => ({
  saleStartsAt: fields.sale_starts_at === undefined ? undefined : parseJapanTime(fields.sale_starts_at.trim()),
  saleEndsAt: fields.sale_ends_at === undefined ? undefined : parseJapanTime(fields.sale_ends_at.trim()),
});

const formAnswer = (input: LicenseFieldsData) => ({
  name: input.name,
  description: input.description,
  price: input.price,
  published: input.published,
  capacity: input.capacity,
  sale_starts_at: input.sale_starts_at?.toISOString() ?? input.sale_starts_at,
  sale_ends_at: input.sale_ends_at?.toISOString() ?? input.sale_ends_at,
});

const actorOf = (c: Context<AppEnv>) => {
  const user = signedInUser(c);
  return { id: user.id, email: user.email };
};

/** Licence ids are numbers: `/licenses/create` and `/licenses/stripe` never reach `/licenses/:id`. */
const LICENSE = ':id{[0-9]+}';

export const licenseRoutes = new Hono<AppEnv>()
  .get('/licenses', licenseDocs.list, requireUser, async (c) => {
    const query = queryInput(c, ListQuery);
    // c.get, not c.var (which copies every variable into a new object): every member's first screen.
    const deps = c.get('deps');
    const page = await listLicenses(deps.orm, query, { includeHidden: may(signedInUser(c), 'licenses:read') }, deps.changes);
    return c.body(await catalogueBody(deps, page), 200, { 'Content-Type': 'application/json' });
  })
  .post('/licenses/create/validate', licenseDocs.validateCreate, permit('licenses:update'), async (c) => {
    const form = await readLicenseForm(c);
    const [fields] = await collectErrors(
      () => parseInput(LicenseFields, form.fields),
      () => validateLicense(c.var.deps.orm, null, { keep: [], order: form.order, period: periodOf(form.fields) }, form.uploads),
    );
    return c.json({ license: formAnswer(fields) });
  })
  .post('/licenses/create', licenseDocs.create, permit('licenses:update'), async (c) => {
    const form = await readLicenseForm(c);
    const fields = parseInput(LicenseFields, form.fields);
    const license = await createLicense(c.var.deps.orm, c.var.deps.files, actorOf(c), fields, form.uploads, form.order);
    return c.json({ license, message: 'ライセンスを登録しました。' }, 201);
  })
  .put('/licenses/order', licenseDocs.order, permit('licenses:update'), async (c) => {
    const input = await jsonInput(c, OrderInput);
    const ids = await orderLicenses(c.var.deps.orm, actorOf(c), input.ids);
    return c.json({ ids, message: '表示順を変更しました。' });
  })
  .post(`/licenses/${LICENSE}/move`, licenseDocs.move, permit('licenses:update'), async (c) => {
    const id = licenseId(c);
    const input = await jsonInput(c, MoveInput);
    const ids = await moveLicense(c.var.deps.orm, actorOf(c), id, input.direction);
    return c.json({ ids, message: input.direction === 'up' ? '表示順を1つ上げました。' : '表示順を1つ下げました。' });
  })
  .put(`/licenses/${LICENSE}/published`, licenseDocs.published, permit('licenses:update'), async (c) => {
    const id = licenseId(c);
    const input = await jsonInput(c, PublishedInput);
    const license = await setLicensePublished(c.var.deps.orm, actorOf(c), id, input.published);
    return c.json({
      license,
      message: license.published ? `「${license.name}」を公開しました。` : `「${license.name}」を非公開にしました。`,
    });
  })
  .get(`/licenses/${LICENSE}`, licenseDocs.show, requireUser, async (c) => {
    const license = await getLicense(c.var.deps.orm, licenseId(c), {
      includeHidden: may(signedInUser(c), 'licenses:read'),
      withDeletable: may(signedInUser(c), 'licenses:update'),
    });
    const [shown] = await withAvailability(c.var.deps, [license]);
    return c.json({ license: shown });
  })
  .delete(`/licenses/${LICENSE}`, licenseDocs.remove, permit('licenses:update'), async (c) => {
    await deleteLicense(c.var.deps.orm, c.var.deps.files, actorOf(c), licenseId(c));
    return c.json({ message: 'ライセンスを削除しました。' });
  })
  .post(`/licenses/${LICENSE}/validate`, licenseDocs.validateEdit, permit('licenses:update'), async (c) => {
    const id = licenseId(c);
    const form = await readLicenseForm(c);
    const [input] = await collectErrors(
      () => parseInputs(form.fields, LicenseFields, UpdatedAtField),
      () =>
        validateLicense(
          c.var.deps.orm,
          id,
          { keep: form.keep, order: form.order, updatedAt: form.fields.updated_at, period: periodOf(form.fields) },
          form.uploads,
        ),
    );
    return c.json({ license: formAnswer(input) });
  })
  .post(`/licenses/${LICENSE}`, licenseDocs.edit, permit('licenses:update'), async (c) => {
    const id = licenseId(c);
    const form = await readLicenseForm(c);
    const input = parseInputs(form.fields, LicenseFields, UpdatedAtField);
    const license = await updateLicense(
      c.var.deps.orm,
      c.var.deps.files,
      actorOf(c),
      id,
      {
        fields: {
          name: input.name,
          description: input.description,
          price: input.price,
          published: input.published,
          capacity: input.capacity,
          sale_starts_at: input.sale_starts_at,
          sale_ends_at: input.sale_ends_at,
        },
        updatedAt: input.updated_at,
        keep: form.keep,
        order: form.order,
      },
      form.uploads,
    );
    return c.json({ license, message: 'ライセンスを更新しました。' });
  });

/** Stored pictures: server-generated names only, their stored type, nosniff, cached for good. */
export const uploadRoutes = new Hono<AppEnv>().get('/uploads/licenses/:name', async (c) => {
  const name = c.req.param('name');
  if (!STORED_NAME.test(name)) return c.json({ message: 'お探しの画像は見つかりませんでした。' }, 404);
  const file = await c.var.deps.files.get(pictureKey(name));
  if (!file) return c.json({ message: 'お探しの画像は見つかりませんでした。' }, 404);
  const ext = name.split('.').pop() as string;
  c.header('Content-Type', CONTENT_TYPE[ext] ?? 'application/octet-stream');
  c.header('Content-Length', String(file.length));
  c.header('Cache-Control', 'public, max-age=31536000, immutable');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Content-Disposition', 'inline');
  return c.body(Readable.toWeb(file.stream) as ReadableStream);
});
