import useSWR from 'swr';
import type { Answer } from '../../lib/api';

/** GET /api/operations: the same figures the Prometheus gauges give (README "Metrics"). */
export type Operations = Answer<'/api/operations'>['operations'];

export function useOperations() {
  return useSWR<Answer<'/api/operations'>>('/api/operations', { refreshInterval: 10_000 });
}
