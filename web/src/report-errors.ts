/**
 * Browser errors reported to the server's error log (docs/rules/web.md#client-errors), through
 * `POST /admin/api/errors/client` (the administrator's route): uncaught errors, unhandled
 * rejections and pages that failed to render. Reports go only while an administrator is signed
 * in (others would be refused), at most {@link MAX_REPORTS} per page load and each message once;
 * the URL is the path only (a query string may hold what the error log should not keep).
 */
import { api } from './api/client';

const MAX_REPORTS = 10;
let enabled = false;
let sent = 0;
const seen = new Set<string>();

/** Turned on by the layout for an administrator, off otherwise. */
export function reportErrorsAs(admin: boolean): void {
  enabled = admin;
}

export function reportClientError(error: unknown, componentStack?: string): void {
  if (!enabled || sent >= MAX_REPORTS) return;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (!message.trim() || seen.has(message)) return;
  seen.add(message);
  sent++;
  void api('POST', '/admin/api/errors/client', {
    level: 'error',
    message: message.slice(0, 2000),
    stack: error instanceof Error && error.stack ? error.stack.slice(0, 8000) : null,
    url: window.location.pathname,
    component_stack: componentStack ? componentStack.slice(0, 8000) : null,
    user_agent: navigator.userAgent,
  }).catch(() => undefined);
}

/** Listens for what no page caught. */
export function installErrorReporting(): void {
  window.addEventListener('error', (e) => reportClientError(e.error ?? e.message));
  window.addEventListener('unhandledrejection', (e) => reportClientError(e.reason));
}
