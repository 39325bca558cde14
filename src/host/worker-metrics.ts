import { createServer, type Server } from 'node:http';
import type { Logger } from '../lib/logger.ts';
import { metricsFor } from '../lib/metrics.ts';

/**
 * A worker's own metrics page on WORKER_METRICS_PORT: GET /metrics with `Authorization: Bearer
 * $METRICS_TOKEN`, the same rule as the web process's (404 for anything else, and always 404
 * without a token configured). Jobs completed and failed, their durations, the process's figures.
 */
export function serveWorkerMetrics(port: number, token: string | undefined, log: Logger): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const page = req.method === 'GET' && path === '/metrics' ? metricsFor(token, req.headers.authorization) : undefined;
    void Promise.resolve(page)
      .then((found) => {
        if (!found) {
          res.writeHead(404, { 'Content-Type': 'application/json; charset=UTF-8' });
          res.end(JSON.stringify({ message: 'お探しのページは見つかりませんでした。' }));
          return;
        }
        res.writeHead(200, { 'Content-Type': found.contentType, 'Cache-Control': 'no-store' });
        res.end(found.body);
      })
      .catch((error) => {
        log.error('metrics page failed', { error });
        res.writeHead(500).end();
      });
  });
  if (!token) log.warn('WORKER_METRICS_PORT is set without METRICS_TOKEN: the metrics page answers 404');
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      log.info('worker metrics listening', { port });
      resolve(server);
    });
  });
}
