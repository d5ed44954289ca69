/**
 * The two small pages of the mailed reset link, so the link works in any browser without a web
 * front end: a form that posts `step=password` with the token to `/auth/reset-password`, and the
 * result of that post. No script, no external resource; see {@link RESET_PAGE_HEADERS}.
 */
import { escapeHtml } from './password-reset.service.js';

/**
 * Not cached, not framed, and no Referer: the page's URL carries the token, so it must not leak
 * to another origin through a header.
 */
export const RESET_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

const page = (title: string, body: string) =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  `<title>${escapeHtml(title)}</title>` +
  '<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem}' +
  'label,input,button{display:block;width:100%;margin:.4rem 0}input,button{padding:.5rem}</style>' +
  `</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;

/** The form behind a valid link. */
export function resetFormPage(token: string, minPasswordLength: number): string {
  return page(
    'Choose a new password',
    '<form method="post" action="/auth/reset-password">' +
      '<input type="hidden" name="step" value="password">' +
      `<input type="hidden" name="token" value="${escapeHtml(token)}">` +
      `<label for="p">New password (at least ${minPasswordLength} characters)</label>` +
      `<input id="p" type="password" name="password" minlength="${minPasswordLength}" maxlength="1024" required autocomplete="new-password">` +
      '<label for="c">Repeat it</label>' +
      `<input id="c" type="password" name="confirm_password" minlength="${minPasswordLength}" maxlength="1024" required autocomplete="new-password">` +
      '<button type="submit">Set the new password</button></form>' +
      '<p>The link works once and for 15 minutes. Every signed-in browser will be signed out.</p>',
  );
}

/** The outcome of a post of that form, or of opening a bad link. */
export function resetResultPage(ok: boolean, message: string): string {
  return page(ok ? 'Password reset' : 'Password not reset', `<p>${escapeHtml(message)}</p>`);
}
