import { useQuery } from '@tanstack/react-query';
import { authKeys } from '../features/auth/api/keys';
import { api, ApiError, type Answer } from './client';

/** The signed-in user as `GET /auth/session` answers it (the server's schema). */
export type User = Answer<'/auth/session'>['user'];

/** The keys every page shares (web/src/features/auth/api/keys.ts). */
export const SESSION_KEY = authKeys.session();
export const SETUP_KEY = authKeys.setup();
export const MODE_KEY = authKeys.mode();

/** Whether the install still needs its administrator (`GET /auth/setup`). */
export function useSetupStatus() {
  return useQuery({
    queryKey: SETUP_KEY,
    queryFn: () => api<Answer<'/auth/setup'>>('GET', '/auth/setup'),
    staleTime: 60_000,
  });
}

/** The signed-in user, or null when there is no live session (a 401 is an answer here). */
export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async (): Promise<User | null> => {
      try {
        return (await api<Answer<'/auth/session'>>('GET', '/auth/session', undefined, { quiet401: true }))
          .user;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: 30_000,
  });
}

/** Live or analyzer mode (`GET /settings/analyze-mode`), refreshed every 15 s. */
export function useMode(enabled: boolean) {
  return useQuery({
    queryKey: MODE_KEY,
    queryFn: () => api<Answer<'/settings/analyze-mode'>>('GET', '/settings/analyze-mode'),
    enabled,
    refetchInterval: 15_000,
  });
}
