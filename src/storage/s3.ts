import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type ListMultipartUploadsCommandOutput,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Env } from '../config/env.ts';
import type { Logger } from '../lib/logger.ts';
import {
  assertKey,
  assertPrefix,
  type FileStore,
  type IncompleteWrite,
  type ListedFile,
  type StoredFile,
  typeOfKey,
} from './file-store.ts';

type S3Config = NonNullable<Env['s3']>;

/** Streamed puts are sent in parts of this size, a few at once (memory: PART_BYTES × PARTS_IN_FLIGHT). */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 4;

const status = (error: unknown) => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
const notFound = (error: unknown) => status(error) === 404 || ['NoSuchKey', 'NotFound'].includes((error as Error).name ?? '');

/**
 * Objects in an S3-compatible bucket, under S3_PREFIX. Credentials come from the SDK's default chain
 * (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, instance roles).
 */
export class S3FileStore implements FileStore {
  readonly driver = 's3';
  readonly client: S3Client;
  readonly #bucket: string;
  readonly #base: string;
  readonly #log?: Logger;
  #warnedUploads = false;

  constructor(config: S3Config, options: { log?: Logger; credentials?: S3ClientConfig['credentials'] } = {}) {
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: options.credentials,
      // Many S3-compatible servers refuse the flexible checksums newer SDKs add to every request;
      // exports carry their own SHA-256.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.#bucket = config.bucket;
    this.#base = config.prefix.replace(/\/+$/, '') ? `${config.prefix.replace(/\/+$/, '')}/` : '';
    this.#log = options.log;
  }

  #key(key: string): string {
    assertKey(key);
    return this.#base + key;
  }

  async put(key: string, body: Readable | Buffer, options: { contentType: string }): Promise<void> {
    const Key = this.#key(key);
    if (Buffer.isBuffer(body)) {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key,
          Body: body,
          ContentType: options.contentType,
          ContentLength: body.length,
        }),
      );
      return;
    }
    // Unknown length: one PUT if it fits in a part, else a multipart upload completed only at the end
    // (aborted here on failure; the sweeper aborts those of processes that died).
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.#bucket, Key, Body: body, ContentType: options.contentType },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
    });
    try {
      await upload.done();
    } catch (error) {
      body.destroy();
      throw error;
    }
  }

  async get(key: string): Promise<StoredFile | undefined> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }));
      return {
        stream: answer.Body as Readable,
        length: answer.ContentLength ?? 0,
        contentType: answer.ContentType ?? typeOfKey(key),
      };
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }));
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }));
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  }

  async *list(prefix: string): AsyncIterable<ListedFile> {
    assertPrefix(prefix);
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: this.#base + prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        yield {
          key: object.Key.slice(this.#base.length),
          size: object.Size ?? 0,
          modifiedAt: object.LastModified ?? new Date(0),
        };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async *incomplete(prefix: string): AsyncIterable<IncompleteWrite> {
    assertPrefix(prefix);
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      let page: ListMultipartUploadsCommandOutput;
      try {
        page = await this.client.send(
          new ListMultipartUploadsCommand({
            Bucket: this.#bucket,
            Prefix: this.#base + prefix,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        );
      } catch (error) {
        // Some servers (s3rver among them) cannot list uploads: a bucket lifecycle rule
        // (AbortIncompleteMultipartUpload) is then the only clean-up (README).
        if ((error as Error).name === 'NotImplemented' || status(error) === 501) {
          if (!this.#warnedUploads)
            this.#log?.warn('the S3 server cannot list multipart uploads; relying on its lifecycle rules');
          this.#warnedUploads = true;
          return;
        }
        throw error;
      }
      for (const upload of page.Uploads ?? []) {
        const { Key, UploadId } = upload;
        if (!Key || !UploadId) continue;
        yield {
          key: Key.slice(this.#base.length),
          modifiedAt: upload.Initiated ?? new Date(0),
          discard: async () => {
            await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key, UploadId }));
          },
        };
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
    } while (keyMarker);
  }

  close(): void {
    this.client.destroy();
  }
}
