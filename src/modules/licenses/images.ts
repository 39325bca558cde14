import { randomUUID } from 'node:crypto';
import sharp, { type Metadata, type Sharp } from 'sharp';
import type { FileStore } from '../../storage/file-store.ts';

export const MAX_PICTURES = 10;
export const MAX_PICTURE_BYTES = 5 * 1024 * 1024;
/** Larger images are refused before decoding (pixel floods): 40 megapixels. */
const MAX_PIXELS = 40_000_000;
export const PICTURE_DIRECTORY = '/uploads/licenses';

type Format = 'jpeg' | 'png' | 'webp';
const EXTENSION: Record<Format, string> = { jpeg: 'jpg', png: 'png', webp: 'webp' };
export const CONTENT_TYPE: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/** The format by the file's own bytes, never by its name or declared type. */
function sniffFormat(data: Buffer): Format | null {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (data.length >= 12 && data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return null;
}

export class ImageRejected extends Error {}

export interface ProcessedPicture {
  format: Format;
  main: Buffer;
  thumbnail: Buffer;
  width: number;
  height: number;
  originalName: string;
}

/**
 * Decodes and re-encodes an upload: orientation applied, every metadata block (EXIF, GPS, XMP, ICC
 * comments) dropped, anything appended to the image (polyglots) gone, and a thumbnail made.
 */
export async function processPicture(data: Buffer, originalName: string): Promise<ProcessedPicture> {
  const format = sniffFormat(data);
  if (!format) throw new ImageRejected('JPEG・PNG・WebP 形式の画像を選択してください。');
  const options = { limitInputPixels: MAX_PIXELS, failOn: 'error' as const, sequentialRead: true };
  let meta: Metadata;
  try {
    meta = await sharp(data, { ...options, limitInputPixels: false }).metadata();
  } catch {
    throw new ImageRejected('画像を読み込めませんでした。ファイルが壊れていないか確認してください。');
  }
  if (meta.format !== format || !meta.width || !meta.height) {
    throw new ImageRejected('画像を読み込めませんでした。ファイルが壊れていないか確認してください。');
  }
  if (meta.width * meta.height > MAX_PIXELS) {
    throw new ImageRejected('画像の画素数が大きすぎます（4,000万画素まで）。');
  }
  try {
    const encode = (image: Sharp) =>
      format === 'jpeg'
        ? image.jpeg({ quality: 85, mozjpeg: true })
        : format === 'png'
          ? image.png({ compressionLevel: 9 })
          : image.webp({ quality: 85 });
    const main = await encode(
      sharp(data, options).rotate().resize({ width: 1600, height: 1600, fit: 'inside', withoutEnlargement: true }),
    ).toBuffer({ resolveWithObject: true });
    const thumbnail = await encode(sharp(data, options).rotate().resize({ width: 480, height: 360, fit: 'cover' })).toBuffer();
    return { format, main: main.data, thumbnail, width: main.info.width, height: main.info.height, originalName };
  } catch {
    throw new ImageRejected('画像を読み込めませんでした。ファイルが壊れていないか確認してください。');
  }
}

export interface StoredPicture {
  fileName: string;
  thumbnailName: string;
  contentType: string;
  width: number;
  height: number;
  byteSize: number;
  originalName: string;
}

/** A stored picture's file store key (the same place under DATA_DIR as before the file store). */
export const pictureKey = (name: string) => `uploads/licenses/${name}`;

/** Stores processed pictures under server-generated names. */
export async function storePictures(files: FileStore, pictures: ProcessedPicture[]): Promise<StoredPicture[]> {
  const stored: StoredPicture[] = [];
  try {
    for (const picture of pictures) {
      const id = randomUUID();
      const ext = EXTENSION[picture.format];
      const fileName = `${id}.${ext}`;
      const thumbnailName = `${id}-thumb.${ext}`;
      const contentType = CONTENT_TYPE[ext] as string;
      await files.put(pictureKey(fileName), picture.main, { contentType });
      try {
        await files.put(pictureKey(thumbnailName), picture.thumbnail, { contentType });
      } catch (error) {
        await files.delete(pictureKey(fileName)).catch(() => undefined);
        throw error;
      }
      stored.push({
        fileName,
        thumbnailName,
        contentType: CONTENT_TYPE[ext] as string,
        width: picture.width,
        height: picture.height,
        byteSize: picture.main.length,
        originalName: picture.originalName.slice(0, 255),
      });
    }
  } catch (error) {
    await removePictures(files, stored);
    throw error;
  }
  return stored;
}

export async function removePictures(files: FileStore, pictures: { fileName: string; thumbnailName: string }[]): Promise<void> {
  await Promise.all(pictures.flatMap((p) => [files.delete(pictureKey(p.fileName)), files.delete(pictureKey(p.thumbnailName))]));
}

/** Only names this server generates can be served. */
export const STORED_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(-thumb)?\.(jpg|png|webp)$/;
