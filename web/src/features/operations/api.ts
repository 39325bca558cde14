import useSWR from 'swr';

/** GET /api/operations: the same figures the Prometheus gauges give (README "Metrics"). */
export interface Operations {
  queues: Record<string, { waiting: number; active: number; delayed: number; failed: number }>;
  outbox: { backlog: number; oldest_age_seconds: number };
  payments_inbox: { unprocessed: number; failed: number };
  mail: { failed: number; retrying: number; pending: number; stuck: number };
  /** running_on: the processes (INSTANCE_ID) building exports now. */
  exports: { queued: number; running: number; retrying: number; failed: number; running_on: string[] };
  sweeper: { last_run_at: string | null; redriven: number };
  workers: { fresh: number };
}

export function useOperations() {
  return useSWR<{ operations: Operations }>('/api/operations', { refreshInterval: 10_000 });
}
