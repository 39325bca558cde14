import { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'hono';
import { AppError, validationError } from './errors.ts';
import { assertCleanText } from './validate.ts';

export interface UploadedFile {
  field: string;
  /** The client's name: metadata only, never used as a path. */
  filename: string;
  data: Buffer;
}

export interface MultipartLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxFields?: number;
  maxFieldBytes?: number;
}

/**
 * Streams a multipart body: every file is capped while it arrives (the request stops being read at
 * the first file over the limit), so an oversized upload is refused without buffering the whole body.
 */
export async function readMultipart(
  c: Context,
  limits: MultipartLimits,
): Promise<{ fields: Record<string, string>; files: UploadedFile[] }> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\b/i.test(type) || !c.req.raw.body) {
    throw new AppError('bad_request', 'multipart/form-data で送信してください。');
  }
  const fields: Record<string, string> = {};
  const files: UploadedFile[] = [];
  const mb = Math.round(limits.maxFileBytes / 1024 / 1024);

  await new Promise<void>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': type },
        limits: {
          files: limits.maxFiles,
          fileSize: limits.maxFileBytes,
          fields: limits.maxFields ?? 100,
          fieldSize: limits.maxFieldBytes ?? 64 * 1024,
          parts: (limits.maxFields ?? 100) + limits.maxFiles,
        },
      });
    } catch {
      reject(new AppError('bad_request', 'multipart の形式が正しくありません。'));
      return;
    }
    const source = Readable.fromWeb(c.req.raw.body as import('node:stream/web').ReadableStream);
    let failed = false;
    const fail = (error: AppError) => {
      if (failed) return;
      failed = true;
      source.unpipe(parser);
      source.destroy();
      reject(error);
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(validationError({ [name]: ['入力が長すぎます。'] }));
      else fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      const position = files.length + chunks.length + 1;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () =>
        fail(new AppError('payload_too_large', `画像は1枚${mb}MBまでです。（${info.filename || `${position}枚目`}）`)),
      );
      stream.on('end', () => {
        if (!failed) files.push({ field, filename: info.filename ?? '', data: Buffer.concat(chunks) });
      });
    });
    parser.on('filesLimit', () => fail(validationError({ file: [`画像は${limits.maxFiles}枚までです。`] })));
    parser.on('fieldsLimit', () => fail(new AppError('bad_request', '項目が多すぎます。')));
    parser.on('partsLimit', () => fail(new AppError('bad_request', '項目が多すぎます。')));
    parser.on('error', () => fail(new AppError('bad_request', 'multipart の形式が正しくありません。')));
    parser.on('close', () => {
      if (!failed) resolve();
    });
    source.on('error', () => fail(new AppError('bad_request', '送信が途中で途切れました。')));
    source.pipe(parser);
  });
  assertCleanText(fields);
  return { fields, files };
}

/** `name[0]`, `name[1]`, … (the seed's indexed entries) in index order; also accepts `name[]` and `name`. */
export function indexed<T>(entries: [string, T][], name: string): T[] {
  const pattern = new RegExp(`^${name}(?:\\[(\\d*)\\])?$`);
  return entries
    .map(([key, value], order) => {
      const match = pattern.exec(key);
      if (!match) return null;
      return { index: match[1] ? Number(match[1]) : order, order, value };
    })
    .filter((entry): entry is { index: number; order: number; value: T } => entry !== null)
    .sort((a, b) => a.index - b.index || a.order - b.order)
    .map((entry) => entry.value);
}
