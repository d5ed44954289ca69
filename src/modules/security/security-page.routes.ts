/**
 * `GET /security/`: the shield's summary as a server-rendered page (docs/rules/web.md#security-summary-page)
 * — totals, the active bans, the top offenders of both trackers — readable without JavaScript,
 * linking to the console's `/logs/security`. Administrator only: without a session the browser is
 * sent to sign in and back, another user gets a plain "not allowed" page.
 */
import { Type } from 'typebox';
import { fromDbBool } from '../../platform/db/database.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { readSessionCookie } from '../auth/session.guard.js';
import type { SessionsService } from '../auth/sessions.service.js';
import type { UsersService } from '../auth/users.service.js';
import type { BanService } from './ban.service.js';
import type { BanRow } from './bans.repository.js';
import type { TrackersService } from './trackers.service.js';

export const SECURITY_PAGE_PATH = '/security/';
/** How many offenders of each tracker the page lists. */
const TOP = 10;
/** The page loads nothing and runs nothing: inline styles only. */
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
/** Text as HTML: every value on the page passes here (ban reasons and paths come from clients). */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
const iso = (t: number | null) =>
  t === null ? 'permanent' : new Date(t).toISOString().replace('.000Z', 'Z');

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · algodesk</title>
<style>
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:16px;color:#212529}
table{border-collapse:collapse;width:100%;margin-bottom:24px}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #dee2e6}
code{font-family:ui-monospace,monospace}.figures{display:flex;gap:12px;flex-wrap:wrap;margin-bottom:24px}
.figure{border:1px solid #dee2e6;border-radius:6px;padding:12px 16px;min-width:140px}.figure b{display:block;font-size:1.6em}
</style></head><body>
${body}
</body></html>`;
}

function rows(cells: string[][]): string {
  return cells.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n');
}

export function securityPageRoute(
  app: App,
  deps: {
    bans: BanService;
    trackers: TrackersService;
    sessions: SessionsService;
    users: Pick<UsersService, 'findById'>;
    rateLimit: RateLimitHook;
  },
): void {
  const { bans, trackers } = deps;
  app.get(
    SECURITY_PAGE_PATH,
    {
      onRequest: deps.rateLimit,
      schema: {
        summary:
          'The security summary as a server-rendered HTML page (administrator; works without JavaScript)',
        tags: ['security'],
        response: {
          200: Type.String({ description: 'HTML' }),
          403: Type.String({ description: 'HTML' }),
          429: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store').header('content-security-policy', PAGE_CSP);
      const session = await deps.sessions.resolve(readSessionCookie(req));
      const user = session && (await deps.users.findById(session.user_id));
      if (!user) return reply.redirect(`/login?next=${encodeURIComponent(SECURITY_PAGE_PATH)}`, 303);
      reply.type('text/html; charset=utf-8');
      if (!fromDbBool(user.is_admin))
        return reply
          .code(403)
          .send(page('Not allowed', '<h1>Not allowed</h1><p>This page is for the administrator.</p>'));
      const [counts, active, t404, tKeys] = await Promise.all([
        bans.countActive(),
        bans.listActive(200),
        trackers.list('404', TOP),
        trackers.list('apikey', TOP),
      ]);
      const figure = (label: string, n: number) =>
        `<div class="figure">${escapeHtml(label)}<b>${n}</b></div>`;
      const banRow = (b: BanRow) => [
        `<code>${escapeHtml(b.ip)}</code>`,
        escapeHtml(b.reason),
        String(b.ban_count),
        escapeHtml(b.created_by),
        escapeHtml(iso(b.expires_at)),
      ];
      const body = `<h1>Security summary</h1>
<p>Signed in as ${escapeHtml(user.username)}. Manage bans and settings in the console: <a href="/logs/security">/logs/security</a>.</p>
<div class="figures">${figure('Active bans', counts.total)}${figure('Permanent', counts.permanent)}${figure('Temporary', counts.total - counts.permanent)}${figure('Tracked addresses', new Set([...t404, ...tKeys].map((t) => t.ip)).size)}</div>
<h2>Active bans</h2>
${active.length === 0 ? '<p>No address is banned.</p>' : `<table><thead><tr><th>Address</th><th>Reason</th><th>Bans</th><th>By</th><th>Expires</th></tr></thead><tbody>\n${rows(active.map(banRow))}\n</tbody></table>`}
<h2>Top offenders: not-found answers</h2>
${t404.length === 0 ? '<p>Nothing tracked.</p>' : `<table><thead><tr><th>Address</th><th>404s</th><th>Paths</th></tr></thead><tbody>\n${rows(t404.map((t) => [`<code>${escapeHtml(t.ip)}</code>`, String(t.count), escapeHtml(t.items.slice(0, 5).join(', '))]))}\n</tbody></table>`}
<h2>Top offenders: invalid API keys</h2>
${tKeys.length === 0 ? '<p>Nothing tracked.</p>' : `<table><thead><tr><th>Address</th><th>Refused keys</th><th>Distinct keys</th></tr></thead><tbody>\n${rows(tKeys.map((t) => [`<code>${escapeHtml(t.ip)}</code>`, String(t.count), String(t.items.length)]))}\n</tbody></table>`}`;
      return reply.send(page('Security summary', body));
    },
  );
}
