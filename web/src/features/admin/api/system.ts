/** The install's snapshot and its diagnostics probes (the `/admin/system` page). */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { adminKeys } from './keys';

export type SystemSnapshot = Answer<'/admin/api/system'>['data'];
export type Diagnostics = Answer<'/admin/api/system/diagnostics', 'post'>['data'];

export function useSystemSnapshot() {
  return useQuery({
    queryKey: adminKeys.system(),
    queryFn: () => api<Answer<'/admin/api/system'>>('GET', '/admin/api/system'),
  });
}

/** Runs every probe at once (database, HTTP, Redis, the broker's host): a question, nothing changes. */
export function useDiagnosticsMutation() {
  return useMutation({
    mutationFn: () =>
      api<Answer<'/admin/api/system/diagnostics', 'post'>>('POST', '/admin/api/system/diagnostics'),
  });
}
