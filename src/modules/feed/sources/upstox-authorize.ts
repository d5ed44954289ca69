/**
 * Upstox's authorize step, one for both of its streams (Market Data Feed V3, upstox-feed.ts, and
 * the Portfolio Stream Feed, upstox-orders.ts): `GET <path>` with the session's bearer token
 * answers `{status, data: {authorized_redirect_uri}}`, a `wss://` URL whose query holds a
 * single-use code. Each connection is authorized afresh. The token, the URL and its query values
 * are secrets: `secrets` receives them, and {@link scrub} takes them out of any text logged.
 */
import type { UpstoxFeedOptions } from './upstox-options.js';

/** Thrown by the authorize step; `status` is the HTTP status when Upstox answered. */
export class AuthorizeError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

export const UPSTOX_API_BASE_URL = 'https://api.upstox.com';

/** The stream URL `path` (with its query) authorizes; `secrets` is told what must never be logged. */
export async function authorizeUpstoxStream(
  opts: Pick<UpstoxFeedOptions, 'accessToken' | 'apiBaseUrl' | 'fetch' | 'timeoutMs'>,
  path: string,
  secrets: (values: string[]) => void,
): Promise<string> {
  const apiBaseUrl = (opts.apiBaseUrl ?? UPSTOX_API_BASE_URL).replace(/\/+$/, '');
  const given = opts.accessToken;
  const token = typeof given === 'function' ? await given() : given;
  if (!token) throw new AuthorizeError('no Upstox access token (no broker session)', null);
  secrets([token]);
  const fetchFn = opts.fetch ?? fetch;
  let res: Response;
  try {
    res = await fetchFn(`${apiBaseUrl}${path}`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
  } catch (err) {
    throw new AuthorizeError(`authorize request failed: ${(err as Error).message}`, null);
  }
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const first = (body as { errors?: { errorCode?: unknown; message?: unknown }[] } | undefined)
      ?.errors?.[0];
    const detail = first ? `${String(first.errorCode)}: ${String(first.message)}` : 'no Upstox error body';
    throw new AuthorizeError(`authorize answered ${res.status} (${detail})`, res.status);
  }
  const uri = (body as { data?: { authorized_redirect_uri?: unknown } } | undefined)?.data
    ?.authorized_redirect_uri;
  if (typeof uri !== 'string')
    throw new AuthorizeError('authorize answered without authorized_redirect_uri', res.status);
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    throw new AuthorizeError('authorize answered a malformed stream URL', res.status);
  }
  secrets([token, uri, parsed.search, ...parsed.searchParams.values()].filter((s) => s.length > 3));
  const plain = new URL(apiBaseUrl).protocol === 'http:';
  if (parsed.protocol !== 'wss:' && !(plain && parsed.protocol === 'ws:'))
    throw new AuthorizeError(`authorize answered a ${parsed.protocol} stream URL, not wss:`, res.status);
  return uri;
}

/** `text` without any of `secrets`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('[redacted]');
  return out;
}
