/**
 * The trader's desk calls (docs/rules/web.md#desk-calls): `POST /desk/api/<call>` answers what
 * `/api/v1/<call>` answers for the signed-in user, so its answer type is the API's. The call names
 * are the server's own list (src/modules/desk/desk-calls.ts, a leaf file both sides read).
 */
import { useQuery } from '@tanstack/react-query';
import { type DeskCall, deskPath } from '../../../src/modules/desk/desk-calls';
import { DESK_KEY, deskKeys } from '../features/desk/api/keys';
import { useMode } from './auth';
import { api, type Answer } from './client';
import type { paths } from './openapi';

type ApiPath<C extends DeskCall> = `/api/v1/${C}` & keyof paths;

/** The `/api/v1` answer of a desk call. */
export type DeskAnswer<C extends DeskCall> = Answer<ApiPath<C>, 'post'>;

/** The body of a desk call: the `/api/v1` body without `apikey`. */
export type DeskBody<C extends DeskCall> = paths[ApiPath<C>] extends {
  post: { requestBody?: { content: { 'application/json': infer B } } };
}
  ? Omit<B, 'apikey'>
  : Record<string, unknown>;

/** Makes a desk call as the signed-in user (session + CSRF token). */
export function desk<C extends DeskCall>(call: C, body: DeskBody<C> | Record<string, never> = {}) {
  return api<DeskAnswer<C>>('POST', deskPath(call), body);
}

/** Every desk query's key starts with this: a live order event refreshes them all. */
export { DESK_KEY };

/** The signed-in user's broker session (`GET /broker/session`; null when none or expired). */
export const BROKER_SESSION_KEY = deskKeys.brokerSession();
export function useBrokerSession() {
  return useQuery({
    queryKey: BROKER_SESSION_KEY,
    queryFn: () => api<Answer<'/broker/session'>>('GET', '/broker/session'),
    staleTime: 30_000,
  });
}

/**
 * Whether the books can be read (docs/rules/web.md#desk-calls): always in analyzer mode (the
 * sandbox); in live mode only with a broker session — without one the desk says so and links to
 * /broker instead of asking the broker for nothing.
 */
export function useDeskReady(): {
  ready: boolean;
  pending: boolean;
  noBroker: boolean;
  mode?: 'analyze' | 'live';
} {
  const mode = useMode(true);
  const session = useBrokerSession();
  if (mode.isPending || (mode.data?.analyze_mode === false && session.isPending))
    return { ready: false, pending: true, noBroker: false };
  if (mode.data?.analyze_mode) return { ready: true, pending: false, noBroker: false, mode: 'analyze' };
  const connected = session.data?.data != null;
  return { ready: connected, pending: false, noBroker: !connected, mode: 'live' };
}

/**
 * A book (or funds) as a query, refreshed by the live socket (web/src/api/live.ts); not asked
 * while the books cannot be read (`useDeskReady`).
 */
export function useDeskQuery<C extends 'orderbook' | 'tradebook' | 'positionbook' | 'holdings' | 'funds'>(
  call: C,
  opts: { refetchInterval?: number | false } = {},
) {
  const { ready, mode } = useDeskReady();
  return useQuery({
    // By mode: the sandbox's books and the broker's are never shown for one another.
    queryKey: deskKeys.book(call, mode),
    queryFn: () => desk(call, {}),
    refetchInterval: opts.refetchInterval ?? false,
    enabled: ready,
  });
}
