/**
 * The live socket (`GET /ws`, docs/rules/orders.md#live-socket) for the trader's desk: one socket
 * per tab, opened while a desk page is shown; each order event refreshes the desk's queries (the
 * books, funds, the Action Center) and each change of the Action Center's queue refreshes its
 * lists, instead of a polling loop. While the socket is down the pages
 * say "Reconnecting…" and fall back to refreshing every 5 s; it reconnects with a growing delay
 * (1 s doubling up to 15 s). A close for an ended session (4401) is the session's end: back to
 * /login, as on a 401 (docs/rules/web.md#session-expiry).
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import { accountKeys } from '../features/account/api/keys';
import { actionCenterKeys, deskKeys } from '../features/desk/api/keys';
import { api, ApiError, sessionEnded } from './client';

export type LiveState = 'connecting' | 'open' | 'reconnecting';

/** The Action Center's queries (web/src/features/desk/api/action-center.ts). */
const ACTION_CENTER_KEY = actionCenterKeys.all();
/** Query keys a live order event refreshes: the books, the Action Center, the analyzer's log. */
export const LIVE_KEYS = [deskKeys.all(), ACTION_CENTER_KEY, accountKeys.analyzer()] as const;
/** The close code of a socket whose session ended (docs/rules/orders.md#live-socket). */
const SESSION_ENDED = 4401;
/** How often the desk refreshes while the socket is down. */
export const FALLBACK_REFRESH_MS = 5_000;

export interface OrderEventMessage {
  type: 'order_event';
  event: string;
  mode: 'live' | 'analyze';
  data: { orderid: string | null; symbol: string | null; action: string | null; status_code: number };
}

/** The Action Center's queue changed (an order queued, approved, rejected or deleted). */
export interface ActionCenterMessage {
  type: 'action_center';
  event: 'queued' | 'approved' | 'rejected' | 'deleted';
  id: number;
}

let state: LiveState = 'connecting';
let socket: WebSocket | undefined;
let users = 0;
let delay = 1_000;
let retry: ReturnType<typeof setTimeout> | undefined;
/** Closing after the last page left, unless another desk page opens first. */
let linger: ReturnType<typeof setTimeout> | undefined;
/** A session probe and then a connection are on their way. */
let starting = false;
/** Bumped at sign-out: a probe answered for the session that ended opens nothing. */
let epoch = 0;
/**
 * Between the click on "Sign out" and the end of the sign-out: no socket opens, not even for a
 * desk page shown meanwhile (one mounted just before the click starts its probe after it).
 */
let signingOut = false;
let client: QueryClient | undefined;
const watchers = new Set<() => void>();
const eventListeners = new Set<(m: OrderEventMessage) => void>();
/** The live feed's listeners (live-ticks.ts): every other message, and each (re)open. */
const feedListeners = new Set<(m: { type?: string }) => void>();
const openListeners = new Set<() => void>();

/** Hears the feed's messages on this socket (market_data, feed_status, acks) and each (re)open. */
export function onFeed(message: (m: { type?: string }) => void, opened: () => void): () => void {
  feedListeners.add(message);
  openListeners.add(opened);
  return () => {
    feedListeners.delete(message);
    openListeners.delete(opened);
  };
}

/** Sends a feed command on the socket when it is open (false when it is not: it is sent on open). */
export function sendFeed(command: Record<string, unknown>): boolean {
  if (socket?.readyState !== WebSocket.OPEN) return false;
  socket.send(JSON.stringify(command));
  return true;
}

function setState(next: LiveState) {
  if (state === next) return;
  state = next;
  for (const w of watchers) w();
}

function refresh() {
  for (const key of LIVE_KEYS) void client?.invalidateQueries({ queryKey: key });
}

/**
 * Opens the socket once the session is known to be alive: a handshake with an ended session is
 * refused (and the browser reports it), so the quiet session probe goes first and an ended session
 * goes back to /login instead.
 */
function start() {
  retry = undefined;
  if (starting || signingOut) return;
  starting = true;
  const mine = epoch;
  api('GET', '/auth/session', undefined, { quiet401: true }).then(
    () => {
      starting = false;
      if (mine === epoch && !signingOut && users > 0 && socket === undefined) connect();
    },
    (err: unknown) => {
      starting = false;
      if (mine !== epoch || signingOut || users === 0) return;
      if (err instanceof ApiError && err.status === 401) {
        sessionEnded();
        return;
      }
      // The server is unreachable: try again later.
      setState('reconnecting');
      retry = setTimeout(start, delay);
      delay = Math.min(delay * 2, 15_000);
    },
  );
}

function connect() {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  const ws = new WebSocket(url);
  socket = ws;
  ws.onopen = () => {
    // Opened after sign-out let it go: closeLive closes it.
    if (socket !== ws) return;
    delay = 1_000;
    setState('open');
    // Whatever happened while the socket was down.
    refresh();
    for (const l of openListeners) l();
  };
  ws.onmessage = (e) => {
    let m: OrderEventMessage | ActionCenterMessage;
    try {
      m = JSON.parse(String(e.data)) as OrderEventMessage | ActionCenterMessage;
    } catch {
      return;
    }
    if (m.type === 'action_center') {
      void client?.invalidateQueries({ queryKey: ACTION_CENTER_KEY });
      return;
    }
    if (m.type !== 'order_event') {
      for (const l of feedListeners) l(m);
      return;
    }
    refresh();
    for (const l of eventListeners) l(m);
  };
  ws.onclose = (e) => {
    if (socket !== ws) return;
    socket = undefined;
    if (users === 0) return;
    // Closed because the session ended (signed out, revoked, expired): no reconnecting, whose
    // handshake would be refused; the console goes back to /login as on any 401.
    if (e.code === SESSION_ENDED) {
      setState('reconnecting');
      sessionEnded();
      return;
    }
    setState('reconnecting');
    retry = setTimeout(start, delay);
    delay = Math.min(delay * 2, 15_000);
  };
}

/**
 * Holds the live socket for a page while it is shown (what {@link useLive} does); the function
 * returned lets it go.
 */
export function holdLive(qc: QueryClient): () => void {
  acquire(qc);
  return release;
}

function acquire(qc: QueryClient) {
  client = qc;
  users += 1;
  clearTimeout(linger);
  linger = undefined;
  if (users === 1 && socket === undefined && retry === undefined && !starting) {
    setState('connecting');
    start();
  }
}

/** How long the socket stays after the last desk page left (a move to another keeps it). */
const LINGER_MS = 5_000;

function release() {
  users -= 1;
  if (users > 0) return;
  clearTimeout(linger);
  linger = setTimeout(() => {
    linger = undefined;
    if (users > 0) return;
    clearTimeout(retry);
    retry = undefined;
    const ws = socket;
    socket = undefined;
    if (ws) void closeSocket(ws);
  }, LINGER_MS);
}

/** How long signing out waits for a socket still connecting before it goes on. */
const CLOSE_WAIT_MS = 2_000;

/**
 * Closes a socket the client let go; resolves once it is closed (or after {@link CLOSE_WAIT_MS}).
 * One still connecting is let open first: closing it while it connects is an error in the
 * browser's console.
 */
function closeSocket(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const bound = setTimeout(resolve, CLOSE_WAIT_MS);
    ws.addEventListener('close', () => {
      clearTimeout(bound);
      resolve();
    });
    if (ws.readyState === WebSocket.CONNECTING)
      ws.addEventListener('open', () => ws.close(1000), { once: true });
    else ws.close(1000);
  });
}

/**
 * Signing out, before the logout (docs/rules/web.md#sign-out): closes the socket, which belongs to
 * the session that ends, and opens none until {@link liveSignedOut}. Resolves once the socket is
 * closed; one still connecting is let open first, so its handshake is answered before the logout
 * (after it, the handshake would be refused: an error in the browser's console).
 */
export function closeLive(): Promise<void> {
  signingOut = true;
  epoch += 1;
  clearTimeout(linger);
  clearTimeout(retry);
  linger = retry = undefined;
  const ws = socket;
  socket = undefined;
  return ws ? closeSocket(ws) : Promise.resolve();
}

/** The sign-out is over (its pages are gone): the next desk page shown opens a socket again. */
export function liveSignedOut(): void {
  signingOut = false;
}

/**
 * Keeps the live socket open while the calling page is shown; its state, and the refresh interval
 * the page's queries should use (none while the socket is up).
 */
export function useLive(onEvent?: (m: OrderEventMessage) => void): {
  state: LiveState;
  refetchInterval: number | false;
} {
  const qc = useQueryClient();
  useEffect(() => holdLive(qc), [qc]);
  useEffect(() => {
    if (!onEvent) return;
    eventListeners.add(onEvent);
    return () => void eventListeners.delete(onEvent);
  }, [onEvent]);
  const current = useSyncExternalStore(
    (cb) => {
      watchers.add(cb);
      return () => void watchers.delete(cb);
    },
    () => state,
  );
  return { state: current, refetchInterval: current === 'open' ? false : FALLBACK_REFRESH_MS };
}
