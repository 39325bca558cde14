import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import * as v from 'valibot';
import { site } from '../site-settings.ts';
import { parseNetwork } from './networks.ts';

/** The only reader of process.env: parsed once at start-up; a bad value names every bad variable. */

const urlWith = (protocols: string[]) =>
  v.pipe(
    v.string(),
    v.url('URL の形式ではありません (not a URL)'),
    v.check(
      (value) => protocols.includes(new URL(value).protocol),
      `使えるスキームは ${protocols.join(' ')} です (allowed schemes: ${protocols.join(' ')})`,
    ),
  );

const optional = <T extends v.GenericSchema<string, unknown>>(schema: T) => v.optional(schema);

const seconds = v.pipe(
  v.string(),
  v.regex(/^[1-9]\d{0,5}$/, '1 以上の秒数（整数）を指定してください (whole seconds, at least 1)'),
  v.transform(Number),
);

const EnvSchema = v.object({
  NODE_ENV: v.optional(v.picklist(['development', 'production', 'test']), 'development'),
  PORT: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, '0〜65535 の整数を指定してください (integer 0-65535)'),
      v.transform(Number),
      v.maxValue(65535, '0〜65535 の整数を指定してください (integer 0-65535)'),
    ),
    '3000',
  ),
  APP_URL: optional(urlWith(['http:', 'https:'])),
  DATABASE_URL: optional(urlWith(['postgres:', 'postgresql:'])),
  /** A direct connection (not through a pooler) for migrations, advisory locks and LISTEN. */
  DATABASE_DIRECT_URL: optional(urlWith(['postgres:', 'postgresql:'])),
  REDIS_URL: optional(urlWith(['redis:', 'rediss:'])),
  /** Redis through Sentinel: `host:port,host:port` and the name of the monitored primary. */
  REDIS_SENTINELS: optional(
    v.pipe(
      v.string(),
      v.regex(
        /^\s*[^\s,:]+:\d{1,5}\s*(,\s*[^\s,:]+:\d{1,5}\s*)*$/,
        'host:port をカンマで区切って指定してください (comma-separated host:port)',
      ),
    ),
  ),
  REDIS_SENTINEL_NAME: optional(
    v.pipe(v.string(), v.regex(/^[\w.-]+$/, '監視名を指定してください (the monitored primary name)')),
  ),
  REDIS_PASSWORD: optional(v.string()),
  REDIS_SENTINEL_PASSWORD: optional(v.string()),
  REDIS_DB: optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,2}$/, '0〜15 の整数を指定してください (integer 0-15)'),
      v.transform(Number),
      v.maxValue(15, '0〜15 の整数を指定してください (integer 0-15)'),
    ),
  ),
  /** S3-compatible object storage for pictures and exports (endpoint, region and keys: the AWS SDK's own variables). */
  S3_BUCKET: optional(
    v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'S3 のバケット名ではありません (not an S3 bucket name)')),
  ),
  S3_PREFIX: optional(
    v.pipe(v.string(), v.regex(/^[\w./-]*$/, '英数字と . / - _ で指定してください (letters, digits, . / - _)')),
  ),
  S3_FORCE_PATH_STYLE: v.optional(v.picklist(['true', 'false'], 'true か false を指定してください (true or false)'), 'false'),
  AWS_ENDPOINT_URL_S3: optional(urlWith(['http:', 'https:'])),
  AWS_REGION: optional(v.string()),
  /** How long SIGTERM lets requests and jobs in flight finish before the process exits. */
  SHUTDOWN_GRACE_SECONDS: v.optional(seconds, '15'),
  /** Names this process in logs and metrics. */
  INSTANCE_ID: optional(v.pipe(v.string(), v.maxLength(100))),
  /** GET /metrics (and a worker's metrics port) answer only `Authorization: Bearer <this>`; unset: 404. */
  METRICS_TOKEN: optional(v.pipe(v.string(), v.minLength(16, '16 文字以上にしてください (at least 16 characters)'))),
  /** A worker process serves its metrics on this port (unset: none). */
  WORKER_METRICS_PORT: optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,5}$/, 'ポート番号を指定してください (a port number)'),
      v.transform(Number),
      v.minValue(1, 'ポート番号を指定してください (a port number)'),
      v.maxValue(65535, 'ポート番号を指定してください (a port number)'),
    ),
  ),
  SMTP_URL: optional(urlWith(['smtp:', 'smtps:'])),
  MAIL_FROM: optional(v.pipe(v.string(), v.minLength(3))),
  CONTACT_TO: optional(v.pipe(v.string(), v.email('メールアドレスを指定してください (an e-mail address)'))),
  STRIPE_SECRET_KEY: optional(
    v.pipe(v.string(), v.regex(/^(sk|rk)_/, 'sk_ または rk_ で始まる値です (must start with sk_ or rk_)')),
  ),
  STRIPE_WEBHOOK_SECRET: optional(v.pipe(v.string(), v.regex(/^whsec_/, 'whsec_ で始まる値です (must start with whsec_)'))),
  STRIPE_API_URL: optional(urlWith(['http:', 'https:'])),
  STRIPE_CHECKOUT_ORIGIN: optional(urlWith(['http:', 'https:'])),
  /** Days a bank transfer is awaited (to 23:59 JST of the last day) before the order lapses. */
  BANK_TRANSFER_DAYS: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^(?:[1-9]|[1-5]\d|60)$/, '1〜60 の日数を指定してください (whole days, 1-60)'),
      v.transform(Number),
    ),
    '7',
  ),
  EXPORT_GROUP_NAME: optional(v.string()),
  SENTRY_DSN: optional(urlWith(['http:', 'https:'])),
  SENTRY_ENVIRONMENT: optional(v.string()),
  DATA_DIR: optional(v.string()),
  AUTH_SECRET: optional(v.pipe(v.string(), v.minLength(32, '32 文字以上にしてください (at least 32 characters)'))),
  /** Secrets still accepted after a rotation, newest first (docs/decisions/0043-secret-rotation.md). */
  AUTH_PREVIOUS_SECRETS: optional(
    v.pipe(
      v.string(),
      v.check(
        (value) => value.split(',').every((secret) => secret.trim().length >= 32),
        'カンマ区切りで、どれも 32 文字以上にしてください (comma-separated, each at least 32 characters)',
      ),
    ),
  ),
  /** Networks staff may use the back office from (docs/decisions/0045); unset: anywhere. */
  ADMIN_ALLOWED_NETWORKS: optional(
    v.pipe(
      v.string(),
      v.check(
        (value) => value.split(',').every((cidr) => parseNetwork(cidr) !== null),
        'CIDR（例: 192.0.2.0/24, 2001:db8::/32）をカンマで区切って指定してください (comma-separated CIDRs, IPv4 or IPv6)',
      ),
    ),
  ),
  TRUST_PROXY_HEADER: optional(
    v.pipe(v.string(), v.toLowerCase(), v.regex(/^[a-z0-9-]+$/, 'ヘッダー名を指定してください (a header name)')),
  ),
  LOG_LEVEL: v.optional(v.picklist(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
  /** Diagnostics: `off` bypasses every in-process cache (the bench's caches-off figures). */
  SHOP_CACHES: v.optional(v.picklist(['on', 'off'], 'on か off を指定してください (on or off)'), 'on'),
  /** The sweeper (docs/decisions/0019-sweeper.md): work missing this long is re-driven; how often it looks. */
  SWEEP_GRACE_SECONDS: v.optional(seconds, '300'),
  SWEEP_EVERY_SECONDS: v.optional(seconds, '60'),
  /** The longest wait between two retries of a failed job (src/events/queues.ts); the fault suite shortens it. */
  JOB_RETRY_MAX_DELAY_SECONDS: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[1-9]\d{0,4}$/, '1〜86400 の秒数（整数）を指定してください (whole seconds, 1-86400)'),
      v.transform(Number),
      v.maxValue(86400, '1〜86400 の秒数（整数）を指定してください (whole seconds, 1-86400)'),
    ),
    '300',
  ),
  /** How long a job's lock lives without renewal before another worker takes the job as stalled (BullMQ's lockDuration). */
  JOB_LOCK_SECONDS: v.optional(seconds, '30'),
  /** お知らせ配信: at most this many announcement e-mails a minute (docs/decisions/0048). */
  ANNOUNCEMENT_RATE_PER_MINUTE: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[1-9]\d{0,5}$/, '1〜100000 の整数を指定してください (integer 1-100000)'),
      v.transform(Number),
      v.maxValue(100_000, '1〜100000 の整数を指定してください (integer 1-100000)'),
    ),
    '600',
  ),
});

export type Env = ReturnType<typeof resolveEnv>;

export class EnvError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`環境変数の設定に誤りがあります (invalid environment):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'EnvError';
    this.problems = problems;
  }
}

const PRODUCTION_REQUIRED = ['DATABASE_URL', 'AUTH_SECRET', 'SMTP_URL', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const;

export function parseEnv(source: Record<string, string | undefined>) {
  // An empty or blank variable counts as unset.
  const cleaned = Object.fromEntries(
    Object.entries(source)
      .map(([key, value]) => [key, value?.trim()])
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = v.safeParse(EnvSchema, cleaned, { abortPipeEarly: true });
  if (!result.success) {
    const problems = result.issues.map((issue) => {
      const key = issue.path?.map((p) => String(p.key)).join('.') ?? '?';
      return `${key}: ${issue.message}`;
    });
    throw new EnvError(problems);
  }
  const raw = result.output;
  if (raw.REDIS_SENTINELS !== undefined && raw.REDIS_SENTINEL_NAME === undefined) {
    throw new EnvError(['REDIS_SENTINEL_NAME: REDIS_SENTINELS を使うときは必須です (required with REDIS_SENTINELS)']);
  }
  if (raw.NODE_ENV === 'production') {
    const missing = PRODUCTION_REQUIRED.filter((key) => raw[key] === undefined);
    if (missing.length > 0) {
      throw new EnvError(missing.map((key) => `${key}: NODE_ENV=production では必須です (required in production)`));
    }
    if (raw.APP_URL !== undefined && !secureEnough(raw.APP_URL)) {
      throw new EnvError([
        'APP_URL: NODE_ENV=production では https:// の URL にしてください。Cookie はすべて Secure 属性付きのため、http:// ではブラウザがサインインの Cookie を保存しません (production cookies are Secure: browsers drop them over http://; use https://, or localhost for a local trial)',
      ]);
    }
  }
  return raw;
}

/** https://, or plain http:// on the machine itself (a local trial of production mode). */
function secureEnough(appUrl: string): boolean {
  const url = new URL(appUrl);
  return url.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

function resolveEnv(raw: ReturnType<typeof parseEnv>) {
  const dataDir = resolve(raw.DATA_DIR ?? './var');
  const port = raw.PORT;
  return {
    nodeEnv: raw.NODE_ENV,
    isProduction: raw.NODE_ENV === 'production',
    port,
    appUrl: (raw.APP_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl: raw.DATABASE_URL,
    /** Migrations, advisory locks and LISTEN: the direct connection when DATABASE_URL is a pooler. */
    databaseDirectUrl: raw.DATABASE_DIRECT_URL ?? raw.DATABASE_URL,
    redisUrl: raw.REDIS_URL,
    redisSentinel: raw.REDIS_SENTINELS
      ? {
          sentinels: raw.REDIS_SENTINELS.split(',').map((entry) => {
            const [host = '', port = ''] = entry.trim().split(':');
            return { host, port: Number(port) };
          }),
          name: raw.REDIS_SENTINEL_NAME ?? '',
        }
      : undefined,
    redisPassword: raw.REDIS_PASSWORD,
    redisSentinelPassword: raw.REDIS_SENTINEL_PASSWORD,
    redisDb: raw.REDIS_DB,
    s3: raw.S3_BUCKET
      ? {
          bucket: raw.S3_BUCKET,
          prefix: raw.S3_PREFIX ?? '',
          forcePathStyle: raw.S3_FORCE_PATH_STYLE === 'true',
          endpoint: raw.AWS_ENDPOINT_URL_S3,
          region: raw.AWS_REGION ?? 'us-east-1',
        }
      : undefined,
    shutdownGraceMs: raw.SHUTDOWN_GRACE_SECONDS * 1_000,
    instanceId: raw.INSTANCE_ID ?? `${hostname()}:${process.pid}`,
    metricsToken: raw.METRICS_TOKEN,
    workerMetricsPort: raw.WORKER_METRICS_PORT,
    smtpUrl: raw.SMTP_URL,
    mailFrom: raw.MAIL_FROM ?? '"ライセンスストア" <no-reply@example.jp>',
    contactTo: raw.CONTACT_TO ?? site.contactEmail,
    stripe: {
      secretKey: raw.STRIPE_SECRET_KEY,
      webhookSecret: raw.STRIPE_WEBHOOK_SECRET,
      apiUrl: raw.STRIPE_API_URL,
      checkoutOrigin: raw.STRIPE_CHECKOUT_ORIGIN ? new URL(raw.STRIPE_CHECKOUT_ORIGIN).origin : undefined,
    },
    bankTransferDays: raw.BANK_TRANSFER_DAYS,
    exportGroupName: raw.EXPORT_GROUP_NAME ?? '（グループ名未設定）',
    exportGroupNameConfigured: raw.EXPORT_GROUP_NAME !== undefined,
    sentry: {
      dsn: raw.SENTRY_DSN,
      environment: raw.SENTRY_ENVIRONMENT ?? 'released_production',
    },
    dataDir,
    authSecret: raw.AUTH_SECRET,
    authPreviousSecrets: (raw.AUTH_PREVIOUS_SECRETS ?? '')
      .split(',')
      .map((secret) => secret.trim())
      .filter(Boolean),
    trustProxyHeader: raw.TRUST_PROXY_HEADER,
    adminAllowedNetworks: raw.ADMIN_ALLOWED_NETWORKS?.split(',').map((cidr) => cidr.trim()),
    logLevel: raw.LOG_LEVEL,
    /** In-process caches kept current by change notices (SHOP_CACHES=off: none, for measurements). */
    caches: raw.SHOP_CACHES === 'on',
    sweep: { graceMs: raw.SWEEP_GRACE_SECONDS * 1_000, everyMs: raw.SWEEP_EVERY_SECONDS * 1_000 },
    jobRetryMaxDelayMs: raw.JOB_RETRY_MAX_DELAY_SECONDS * 1_000,
    jobLockMs: raw.JOB_LOCK_SECONDS * 1_000,
    announcementRatePerMinute: raw.ANNOUNCEMENT_RATE_PER_MINUTE,
  };
}

/** Reads and validates an environment; throws EnvError naming every bad variable. */
export function loadEnv(source: Record<string, string | undefined> = process.env) {
  return resolveEnv(parseEnv(source));
}

/** The session secret: AUTH_SECRET, or (outside production) one generated once into DATA_DIR. */
export function authSecretFor(env: Env): string {
  if (env.authSecret) return env.authSecret;
  const file = join(env.dataDir, 'auth-secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(env.dataDir, { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    try {
      writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
      return secret;
    } catch {
      // Another process wrote it first: use theirs.
      return readFileSync(file, 'utf8').trim();
    }
  }
}

let cached: Env | undefined;
/** The process environment, parsed once. */
export function env(): Env {
  cached ??= loadEnv();
  return cached;
}
