/**
 * Slack-compatible incoming-webhook sender: POST JSON `{text}` to the user's webhook URL. Slack
 * answers 200 `ok`, or a 4xx/5xx with a short reason (`invalid_token`, `no_service`,
 * `channel_not_found`…); any 2xx counts as delivered (Mattermost and others answer likewise).
 * The URL's path is the credential: only its host is ever logged or reported. `&`, `<` and `>`
 * are escaped as Slack requires, so text from an order can never become a link or an
 * `<!channel>` mention.
 */
import { scrub, type AlertHttp, type ChannelResult } from './alert-http.js';

/** Where a user's Slack alerts go. */
export interface SlackTarget {
  webhookUrl: string;
}

/** Slack's three control characters as entities (Slack "Escaping text"). */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The host of a webhook URL, or `invalid-url` (the URL itself never leaves). */
export function webhookHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid-url';
  }
}

export class SlackSender {
  constructor(private readonly http: AlertHttp) {}

  /** Sends `text`; resolves with the outcome, never rejects. */
  async send(target: SlackTarget, text: string): Promise<ChannelResult> {
    const host = webhookHost(target.webhookUrl);
    const base = { channel: 'slack' as const, host };
    if (host === 'invalid-url')
      return { ...base, ok: false, status: null, error: 'webhook URL is not valid', attempts: 0 };
    const out = await this.http.postJson(target.webhookUrl, { text: escapeSlack(text) });
    if (out.kind === 'failure')
      return { ...base, ok: false, status: null, error: out.detail, attempts: out.attempts };
    if (out.status >= 200 && out.status < 300)
      return { ...base, ok: true, status: out.status, attempts: out.attempts };
    const { pathname, search } = new URL(target.webhookUrl);
    return {
      ...base,
      ok: false,
      status: out.status,
      error: scrub(`${out.status} ${out.text || 'no reason given'}`, [
        target.webhookUrl,
        pathname + search,
        ...pathname.split('/').filter((part) => part.length >= 8),
      ]),
      attempts: out.attempts,
    };
  }
}
