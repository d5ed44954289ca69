/**
 * The scanner routes (docs/rules/scanner.md) as queries and mutations: the list, a scanner's
 * deliveries, saving (create or edit), the administrator's live switch, rotation and deletion.
 * Each change refreshes the list, as the pages always did.
 */
import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { AUDIT_REFRESH_MS, integrationKeys } from './keys';
import { useRefreshing, useSaveSource } from './mutation';
import type { Named, ScannerInput, ScannerIssued } from './types';

export const scannerQueries = {
  list: () =>
    queryOptions({
      queryKey: integrationKeys.scanners(),
      queryFn: () => api<Answer<'/scanner/api/scanners'>>('GET', '/scanner/api/scanners'),
    }),
  /** The last 100 alerts a scanner received, each with every symbol's outcome (#scanner-audit). */
  deliveries: (id: number) =>
    queryOptions({
      queryKey: integrationKeys.scannerDeliveries(id),
      queryFn: () =>
        api<Answer<'/scanner/api/scanners/{id}/deliveries'>>(
          'GET',
          `/scanner/api/scanners/${id}/deliveries?limit=100`,
        ),
      refetchInterval: AUDIT_REFRESH_MS,
    }),
};

export const useScanners = () => useQuery(scannerQueries.list());
export const useScannerDeliveries = (id: number) => useQuery(scannerQueries.deliveries(id));

/** Saves a scanner: `PUT` an edit, or `POST` a new scanner, whose webhook URL is answered once. */
export const useSaveScanner = (id?: number) =>
  useSaveSource(
    id,
    integrationKeys.scanners(),
    (id, body: ScannerInput) =>
      api<Answer<'/scanner/api/scanners/{id}', 'put'>>('PUT', `/scanner/api/scanners/${id}`, body),
    async (body: ScannerInput): Promise<Named<ScannerIssued>> => {
      const made = await api<Answer<'/scanner/api/scanners', 'post'>>('POST', '/scanner/api/scanners', body);
      return { name: made.data.name, webhook_id: made.webhook_id, webhook_url: made.webhook_url };
    },
  );

/** The administrator allows or forbids live orders for a scanner; refreshed even when refused. */
export const useScannerLive = (id: number) =>
  useRefreshing(
    (enabled: boolean) =>
      api<Answer<'/scanner/api/scanners/{id}/live', 'post'>>('POST', `/scanner/api/scanners/${id}/live`, {
        enabled,
      }),
    integrationKeys.scanners(),
    'settled',
  );

export const useDeleteScanner = () =>
  useRefreshing(
    (id: number) =>
      api<Answer<'/scanner/api/scanners/{id}', 'delete'>>('DELETE', `/scanner/api/scanners/${id}`),
    integrationKeys.scanners(),
  );

/** A new webhook id (the old URL dies at once); the list shows nothing of it, so nothing refreshes. */
export const useRotateScanner = () =>
  useMutation({
    mutationFn: (id: number) =>
      api<Answer<'/scanner/api/scanners/{id}/rotate', 'post'>>('POST', `/scanner/api/scanners/${id}/rotate`),
  });
