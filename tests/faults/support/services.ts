import { startPrivatePostgres } from './postgres.ts';
import { startFaultRedis } from './redis.ts';
import { startFaultSmtp } from './smtp.ts';

/** A private PostgreSQL cluster, redis-server and SMTP server for one test file. */
export async function startServices(options: { redisPolicy?: string } = {}) {
  const [pg, redis, smtp] = await Promise.all([
    startPrivatePostgres(),
    startFaultRedis({ policy: options.redisPolicy }),
    startFaultSmtp(),
  ]);
  return {
    pg,
    redis,
    smtp,
    async stop() {
      await smtp.close();
      await redis.stop();
      await pg.destroy();
    },
  };
}
export type Services = Awaited<ReturnType<typeof startServices>>;
