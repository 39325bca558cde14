/** Where the tests find PostgreSQL and Redis (CI and the README start them on the default ports). */
export const TEST_PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** TEST_TEMPLATE_DB lets two test runs share the machine (each builds and clones its own template). */
export const TEMPLATE_DB = process.env.TEST_TEMPLATE_DB ?? 'shop_test_template';

export function databaseUrl(name: string): string {
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
}
