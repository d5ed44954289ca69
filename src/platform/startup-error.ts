/**
 * A start-up failure the operator can act on: its message is one line naming the variable to
 * change and the reason (`port 5000 is in use (PORT)`). The CLI prints it as is, with no stack.
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** A connection URL without its user name, password and query: safe to print. */
export function printableUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}

/** An error's reason in a few words: its code when it has one, else its first line. */
export function reasonOf(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown[] };
  // A connection to a name with several addresses fails with an AggregateError of each attempt.
  if (Array.isArray(e?.errors) && e.errors.length > 0) return reasonOf(e.errors[0]);
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0]! : String(err);
  return typeof e?.code === 'string' && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}
