/**
 * The error log (docs/rules/web.md#client-errors: the browser's reports land here too): its
 * stats, the groups by fingerprint and the entries with level, origin and text filters.
 */
import { useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { adminKeys } from './keys';

export type ErrorStats = Answer<'/admin/api/errors/stats'>['data'];
export type ErrorGroup = Answer<'/admin/api/errors/groups'>['data']['groups'][number];
export type ErrorEntry = Answer<'/admin/api/errors'>['data']['entries'][number];

export function useErrorStats() {
  return useQuery({
    queryKey: adminKeys.errorStats(),
    queryFn: () => api<Answer<'/admin/api/errors/stats'>>('GET', '/admin/api/errors/stats'),
  });
}

/** The groups, of one level and above when one is chosen. */
export function useErrorGroups(level: string) {
  return useQuery({
    queryKey: adminKeys.errorGroups(level),
    queryFn: () =>
      api<Answer<'/admin/api/errors/groups'>>(
        'GET',
        `/admin/api/errors/groups${level ? `?level=${level}` : ''}`,
      ),
  });
}

/** The newest 500 entries matching the filters (an empty filter is none); the last list stays while the next loads. */
export function useErrorEntries(level: string, origin: string, q: string) {
  const params = new URLSearchParams({ limit: '500' });
  if (level) params.set('level', level);
  if (origin) params.set('origin', origin);
  if (q) params.set('q', q);
  return useQuery({
    queryKey: adminKeys.errorList(level, origin, q),
    queryFn: () => api<Answer<'/admin/api/errors'>>('GET', `/admin/api/errors?${params.toString()}`),
    placeholderData: (prev) => prev,
  });
}
