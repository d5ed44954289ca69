/**
 * The consent page of remote agents' authorization (docs/rules/mcp.md#mcp-consent), rendered by the
 * server: no script, every value escaped, never framed.
 */
import type { McpScope } from './mcp-tools.js';
import type { AuthorizeRequest } from './oauth.types.js';

const SCOPE_TEXT: Record<McpScope, string> = {
  'read:market': 'Read market data: search, quotes, depth, candles, option chains, holidays and timings',
  'read:account': 'Read your account: funds, orders, trades, positions, holdings, strategies',
  'write:orders':
    'Trade for you: place, modify and cancel orders, close positions, start and stop strategies',
};

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The authorization parameters carried from the request into the consent form. */
export const AUTH_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;

export function consentPage(o: {
  r: AuthorizeRequest;
  username: string;
  params: Record<string, string | undefined>;
  csrf: string;
  needsTotp: boolean;
  error?: string;
}): string {
  const hidden = AUTH_PARAMS.filter((k) => o.params[k] !== undefined)
    .map((k) => `<input type="hidden" name="${k}" value="${esc(o.params[k]!)}">`)
    .join('');
  const scopes = o.r.scopes
    .map((s) => `<li><strong>${esc(s)}</strong> — ${esc(SCOPE_TEXT[s])}</li>`)
    .join('');
  const host = new URL(o.r.redirectUri).host;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow ${esc(o.r.client.name)}? — algodesk</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#222}
.card{border:1px solid #ddd;border-radius:8px;padding:1.25rem}.err{background:#fde8e8;padding:.6rem;border-radius:6px}
button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.6rem;border-radius:6px;border:1px solid #888;cursor:pointer}
.approve{background:#1864ab;color:#fff;border-color:#1864ab}label{display:block;margin:.8rem 0 .3rem}input[type=text]{font-size:1rem;padding:.4rem}</style></head>
<body><main class="card"><h1>Allow ${esc(o.r.client.name)}?</h1>
<p>An AI agent application asks to act on your algodesk account <strong>${esc(o.username)}</strong>. It will send you back to <strong>${esc(host)}</strong>.</p>
<p>It asks to:</p><ul>${scopes}</ul>
${o.error ? `<p class="err" role="alert">${esc(o.error)}</p>` : ''}
<form method="post" action="/oauth/authorize">${hidden}<input type="hidden" name="csrf_token" value="${esc(o.csrf)}">
${o.needsTotp ? '<label for="totp_code">Authenticator code</label><input id="totp_code" name="totp_code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}">' : ''}
<p><button class="approve" type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny">Deny</button></p>
</form></main></body></html>`;
}

export function errorPage(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization refused — algodesk</title></head><body style="font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto"><h1>Authorization refused</h1><p>${esc(message)}</p></body></html>`;
}

export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
};
