import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  abandonReads,
  api,
  ApiError,
  fieldError,
  forgetCsrfToken,
  onlyFieldErrors,
  onSessionExpired,
  safeReturnPath,
} from '../../web/src/api/client.js';

/** A fake server: answers by "METHOD path", records what the console sent. */
function serve(routes: Record<string, Array<{ status: number; body: unknown }>>) {
  const sent: Array<{ method: string; path: string; headers: Record<string, string>; body?: string }> = [];
  vi.stubGlobal('fetch', async (path: string, init: RequestInit) => {
    const method = init.method ?? 'GET';
    sent.push({ method, path, headers: init.headers as Record<string, string>, body: init.body as string });
    const next = routes[`${method} ${path}`]?.shift() ?? {
      status: 404,
      body: { status: 'error', code: 'not_found' },
    };
    const text = typeof next.body === 'string' ? next.body : JSON.stringify(next.body);
    return new Response(text, { status: next.status });
  });
  return sent;
}

afterEach(() => {
  vi.unstubAllGlobals();
  forgetCsrfToken();
  onSessionExpired(() => undefined);
});

describe('docs/rules/web.md#csrf: the token is fetched when needed, kept in memory, sent, renewed once', () => {
  it('fetches the token before the first state-changing request and sends it as X-CSRF-Token', async () => {
    const sent = serve({
      'GET /auth/csrf-token': [{ status: 200, body: { csrf_token: 't1' } }],
      'POST /security/ban': [
        { status: 200, body: { status: 'success' } },
        { status: 200, body: { status: 'success' } },
      ],
    });
    await api('POST', '/security/ban', { ip: '203.0.113.1' });
    await api('POST', '/security/ban', { ip: '203.0.113.2' });
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /auth/csrf-token',
      'POST /security/ban',
      'POST /security/ban',
    ]);
    expect(sent[1]!.headers['x-csrf-token']).toBe('t1');
    expect(sent[1]!.headers['content-type']).toBe('application/json');
    expect(sent[0]!.headers['x-csrf-token']).toBeUndefined();
  });

  it('sends a file upload (FormData) as is, with the token and without a JSON content type', async () => {
    const sent = serve({
      'GET /auth/csrf-token': [{ status: 200, body: { csrf_token: 't1' } }],
      'POST /admin/api/freeze/upload': [{ status: 200, body: { status: 'success' } }],
    });
    const form = new FormData();
    form.append('exchange', 'NFO');
    form.append('file', new Blob(['SYMBOL,QTY\n']), 'qtyfreeze.csv');
    await api('POST', '/admin/api/freeze/upload', form);
    const upload = sent[1]!;
    expect(upload.headers['x-csrf-token']).toBe('t1');
    // The browser sets multipart/form-data with its boundary.
    expect(upload.headers['content-type']).toBeUndefined();
    expect(upload.body as unknown).toBe(form);
  });

  it('fetches a new token and retries once when the server refuses the one sent', async () => {
    const sent = serve({
      'GET /auth/csrf-token': [
        { status: 200, body: { csrf_token: 'old' } },
        { status: 200, body: { csrf_token: 'new' } },
      ],
      'POST /security/unban': [
        {
          status: 403,
          body: { status: 'error', code: 'csrf_failed', message: 'Missing or invalid CSRF token' },
        },
        { status: 200, body: { status: 'success' } },
      ],
    });
    await expect(api('POST', '/security/unban', { ip: '203.0.113.1' })).resolves.toEqual({
      status: 'success',
    });
    expect(sent.filter((s) => s.method === 'POST').map((s) => s.headers['x-csrf-token'])).toEqual([
      'old',
      'new',
    ]);
  });

  it('asks for no token to sign in, set up or reset a password (there is no session yet)', async () => {
    const ok = { status: 200, body: { status: 'success' } };
    const sent = serve({
      'POST /auth/login': [ok],
      'POST /auth/login/totp': [ok],
      'POST /auth/setup': [ok],
      'POST /auth/reset-password': [ok],
    });
    for (const path of ['/auth/login', '/auth/login/totp', '/auth/setup', '/auth/reset-password'])
      await api('POST', path, {});
    expect(sent.map((s) => s.path)).toEqual([
      '/auth/login',
      '/auth/login/totp',
      '/auth/setup',
      '/auth/reset-password',
    ]);
  });

  it('does not report an expired session when the token fetch itself is refused', async () => {
    const expired = vi.fn();
    onSessionExpired(expired);
    serve({
      'GET /auth/csrf-token': [
        { status: 401, body: { status: 'error', code: 'session_required', message: 'x' } },
      ],
      'POST /auth/logout': [
        { status: 401, body: { status: 'error', code: 'session_required', message: 'x' } },
      ],
    });
    await expect(api('POST', '/auth/logout')).rejects.toMatchObject({ status: 401 });
    // Once, for the request itself.
    expect(expired).toHaveBeenCalledOnce();
  });
});

describe('docs/rules/web.md#session-expiry', () => {
  it('reports a 401 session_required, unless the call says a 401 is its answer', async () => {
    const expired = vi.fn();
    onSessionExpired(expired);
    serve({
      'GET /security/stats': [
        { status: 401, body: { status: 'error', code: 'session_required', message: 'x' } },
      ],
      'GET /auth/session': [
        { status: 401, body: { status: 'error', code: 'session_required', message: 'x' } },
      ],
    });
    await expect(api('GET', '/auth/session', undefined, { quiet401: true })).rejects.toBeInstanceOf(ApiError);
    expect(expired).not.toHaveBeenCalled();
    await expect(api('GET', '/security/stats')).rejects.toMatchObject({ status: 401 });
    expect(expired).toHaveBeenCalledOnce();
  });

  it.each([
    ['/logs/security', '/logs/security'],
    ['/logs/security?x=1', '/logs/security?x=1'],
    ['//evil.example/', undefined],
    ['/\\evil.example', undefined],
    ['https://evil.example/', undefined],
    ['/login?next=/x', undefined],
    ['/setup', undefined],
    ['', undefined],
    [null, undefined],
  ])('follows next=%s only to a path on this site', (raw, want) => {
    expect(safeReturnPath(raw)).toBe(want);
  });
});

describe('docs/rules/web.md#sign-out', () => {
  it('abandons the reads on their way, not the state-changing requests, and reports no expiry', async () => {
    const expired = vi.fn();
    onSessionExpired(expired);
    // A server that has not answered yet: each call waits until it is let through or aborted.
    const waiting: Array<{ path: string; signal: AbortSignal | undefined; answer: () => void }> = [];
    vi.stubGlobal(
      'fetch',
      (path: string, init: RequestInit) =>
        new Promise<Response>((resolve, reject) => {
          const signal = init.signal ?? undefined;
          signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
          waiting.push({
            path,
            signal,
            answer: () =>
              resolve(
                new Response(JSON.stringify({ status: 'error', code: 'session_required' }), { status: 401 }),
              ),
          });
        }),
    );
    const stats = api('GET', '/security/stats');
    const mode = api('GET', '/settings/analyze-mode');
    const signIn = api('POST', '/auth/login', { username: 'a', password: 'b' });
    await vi.waitFor(() => expect(waiting).toHaveLength(3));
    abandonReads();
    await expect(stats).rejects.toMatchObject({ name: 'AbortError' });
    await expect(mode).rejects.toMatchObject({ name: 'AbortError' });
    expect(waiting.filter((w) => w.signal?.aborted).map((w) => w.path)).toEqual([
      '/security/stats',
      '/settings/analyze-mode',
    ]);
    expect(expired).not.toHaveBeenCalled();
    // The state-changing request goes on and is answered.
    waiting[2]!.answer();
    await expect(signIn).rejects.toMatchObject({ status: 401 });
    // Once abandoned, a read is forgotten: abandoning again touches nothing new, and later reads go.
    abandonReads();
    const later = api('GET', '/security/stats');
    await vi.waitFor(() => expect(waiting).toHaveLength(4));
    expect(waiting[3]!.signal?.aborted).toBe(false);
    waiting[3]!.answer();
    await expect(later).rejects.toMatchObject({ status: 401 });
  });
});

describe("docs/rules/web.md#field-messages: the server's messages by field", () => {
  it('reads `errors` by field, an /api/v1 message object, and a plain-text refusal', async () => {
    serve({
      'POST /auth/setup': [
        {
          status: 400,
          body: {
            status: 'error',
            code: 'validation_failed',
            message: 'password must be at least 8 characters',
            errors: { password: ['must be at least 8 characters'] },
          },
        },
      ],
      'GET /health': [{ status: 403, body: 'Access Denied: Your IP has been banned' }],
    });
    const err = await api('POST', '/auth/setup', {}).catch((e: unknown) => e);
    expect(fieldError(err, 'password')).toBe('must be at least 8 characters');
    expect(fieldError(err, 'username')).toBeUndefined();
    expect(onlyFieldErrors(err, ['username', 'password'])).toBe(true);
    expect(onlyFieldErrors(err, ['username'])).toBe(false);
    const banned = await api('GET', '/health').catch((e: unknown) => e);
    expect(banned).toMatchObject({ status: 403, message: 'Access Denied: Your IP has been banned' });
  });
});
