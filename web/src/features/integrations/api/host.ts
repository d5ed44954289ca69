/**
 * The install's public address (`GET /api/config/host`): what webhook URLs are built on, and
 * whether it is this machine's own (which TradingView or Chartink cannot reach).
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { integrationKeys } from './keys';

export const hostQuery = () =>
  queryOptions({
    queryKey: integrationKeys.host(),
    queryFn: () => api<Answer<'/api/config/host'>>('GET', '/api/config/host'),
    staleTime: 60_000,
  });

export const useHost = () => useQuery(hostQuery());
