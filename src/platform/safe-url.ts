/**
 * A URL as it may be shown to a user or put in a snapshot (ARCHITECTURE.md "Secrets never
 * leave"): scheme, host and port (and, unless told otherwise, the path), never the user,
 * password, query or fragment, where credentials travel in a configured URL.
 */
export function safeUrl(raw: string | undefined, keepPath = true): string | null {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    const path = keepPath && u.pathname !== '/' ? u.pathname : '';
    return `${u.protocol}//${u.host}${path}`;
  } catch {
    return null;
  }
}
