import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { abandonReads } from '../../web/src/api/client';
import { closeLive, holdLive, liveSignedOut } from '../../web/src/api/live';

/** A browser WebSocket as far as the console's live client uses it; opened by the test. */
class FakeSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 3;
  static made: FakeSocket[] = [];
  readyState = FakeSocket.CONNECTING;
  /** The close code the client asked for, if it closed the socket. */
  closedWith: number | undefined;
  onopen: (() => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  private readonly listeners: Array<{ type: string; fn: () => void; once: boolean }> = [];
  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }
  addEventListener(type: string, fn: () => void, opts?: { once?: boolean }) {
    this.listeners.push({ type, fn, once: opts?.once ?? false });
  }
  private emit(type: 'open' | 'close', code = 1000) {
    if (type === 'open') this.onopen?.();
    else this.onclose?.({ code });
    for (const l of [...this.listeners]) {
      if (l.type !== type) continue;
      if (l.once) this.listeners.splice(this.listeners.indexOf(l), 1);
      l.fn();
    }
  }
  /** The server accepted the handshake. */
  accept() {
    this.readyState = FakeSocket.OPEN;
    this.emit('open');
  }
  close(code: number) {
    // The browser reports a close of a socket still connecting as an error: the client never does.
    if (this.readyState === FakeSocket.CONNECTING) throw new Error('closed while connecting');
    this.closedWith = code;
    this.readyState = FakeSocket.CLOSED;
    this.emit('close', code);
  }
}

/** The session probes the client sent, each answered when the test says. */
let probes: Array<{ answer: (status: number) => void }> = [];

beforeEach(() => {
  FakeSocket.made = [];
  probes = [];
  vi.useFakeTimers();
  vi.stubGlobal('location', { protocol: 'http:', host: 'desk.test' });
  vi.stubGlobal('WebSocket', FakeSocket);
  vi.stubGlobal('fetch', (path: string, init: RequestInit) => {
    expect(path).toBe('/auth/session');
    return new Promise<Response>((resolve, reject) => {
      init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      probes.push({
        answer: (status) =>
          resolve(new Response(JSON.stringify(status === 200 ? { status: 'success' } : {}), { status })),
      });
    });
  });
});

afterEach(() => {
  liveSignedOut();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** Lets the client's promise callbacks run. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('docs/rules/web.md#sign-out: no live socket outlives the session or opens during its end', () => {
  it('a desk page probes the session, then opens the socket; sign-out closes it before the logout', async () => {
    const release = holdLive(new QueryClient());
    await settle();
    expect(probes).toHaveLength(1);
    probes[0]!.answer(200);
    await settle();
    expect(FakeSocket.made.map((s) => s.url)).toEqual(['ws://desk.test/ws']);
    FakeSocket.made[0]!.accept();
    await closeLive();
    expect(FakeSocket.made[0]!.closedWith).toBe(1000);
    release();
  });

  it('a desk page shown after the click on "Sign out" opens no socket until the sign-out is over', async () => {
    // The page a user just went to mounts after the click: its probe would be answered before
    // the logout, its handshake refused after it.
    await closeLive();
    const release = holdLive(new QueryClient());
    await vi.advanceTimersByTimeAsync(20_000);
    expect(probes).toHaveLength(0);
    expect(FakeSocket.made).toHaveLength(0);
    release();
    liveSignedOut();
    // Signed in again: the next desk page opens one.
    const again = holdLive(new QueryClient());
    await settle();
    expect(probes).toHaveLength(1);
    probes[0]!.answer(200);
    await settle();
    expect(FakeSocket.made).toHaveLength(1);
    // Left before its handshake was answered: let open, then closed.
    again();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(FakeSocket.made[0]!.closedWith).toBeUndefined();
    FakeSocket.made[0]!.accept();
    expect(FakeSocket.made[0]!.closedWith).toBe(1000);
  });

  it('a probe answered after the sign-out began opens nothing', async () => {
    const release = holdLive(new QueryClient());
    await settle();
    const closing = closeLive();
    probes[0]!.answer(200);
    await closing;
    await vi.advanceTimersByTimeAsync(20_000);
    expect(FakeSocket.made).toHaveLength(0);
    expect(probes).toHaveLength(1);
    release();
  });

  it('a probe the sign-out abandons is not retried, however long the logout takes', async () => {
    const release = holdLive(new QueryClient());
    await settle();
    await closeLive();
    // The sign-out abandons the reads on their way (docs/rules/web.md#sign-out), this probe too.
    abandonReads();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(probes).toHaveLength(1);
    expect(FakeSocket.made).toHaveLength(0);
    release();
  });

  it('a socket still connecting at the click is let open, then closed, before the logout goes', async () => {
    const release = holdLive(new QueryClient());
    await settle();
    probes[0]!.answer(200);
    await settle();
    const socket = FakeSocket.made[0]!;
    let closed = false;
    const closing = closeLive().then(() => (closed = true));
    await settle();
    expect(closed).toBe(false);
    socket.accept();
    await closing;
    expect(socket.closedWith).toBe(1000);
    release();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(FakeSocket.made).toHaveLength(1);
  });
});
