/**
 * Telegram Bot API sender: `POST {base}/bot<token>/sendMessage` with JSON `{chat_id, text}`.
 * Plain text (no `parse_mode`), so nothing in an order message can turn into markup. Telegram
 * answers `{"ok":true,"result":…}` or `{"ok":false,"error_code":…,"description":…}`; only the
 * former is a success, whatever the HTTP status says. The token travels in the URL path, so the
 * URL is never logged or reported: only the base host is.
 */
import { scrub, type AlertHttp, type ChannelResult } from './alert-http.js';

/** The Bot API's public origin. */
export const TELEGRAM_API_BASE_URL = 'https://api.telegram.org';

/** Where a user's Telegram alerts go. */
export interface TelegramTarget {
  /** `<bot id>:<secret>` from BotFather. */
  botToken: string;
  /** Numeric chat id or `@channelusername`. */
  chatId: string;
}

interface TelegramAnswer {
  ok?: unknown;
  error_code?: unknown;
  description?: unknown;
  parameters?: { retry_after?: unknown };
}

function parse(text: string): TelegramAnswer | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' ? (v as TelegramAnswer) : undefined;
  } catch {
    return undefined;
  }
}

/** Telegram's flood-control wait (`parameters.retry_after`, seconds) in ms. */
function retryAfterFromBody(text: string): number | undefined {
  const s = parse(text)?.parameters?.retry_after;
  return typeof s === 'number' && s >= 0 ? s * 1000 : undefined;
}

export class TelegramSender {
  private readonly base: string;
  /** Host of the Bot API base URL, for logs. */
  readonly host: string;

  constructor(
    private readonly http: AlertHttp,
    /** `baseUrl`: the Bot API origin (tests and proxies; `TELEGRAM_API_BASE_URL` later). */
    opts: { baseUrl?: string } = {},
  ) {
    this.base = (opts.baseUrl ?? TELEGRAM_API_BASE_URL).replace(/\/+$/, '');
    this.host = new URL(this.base).host;
  }

  /** Sends `text`; resolves with the outcome, never rejects. */
  async send(target: TelegramTarget, text: string): Promise<ChannelResult> {
    const base = { channel: 'telegram' as const, host: this.host };
    const out = await this.http.postJson(
      `${this.base}/bot${target.botToken}/sendMessage`,
      { chat_id: target.chatId, text },
      { retryAfterMs: retryAfterFromBody },
    );
    if (out.kind === 'failure')
      return { ...base, ok: false, status: null, error: out.detail, attempts: out.attempts };
    const answer = parse(out.text);
    if (out.status === 200 && answer?.ok === true)
      return { ...base, ok: true, status: 200, attempts: out.attempts };
    const code = typeof answer?.error_code === 'number' ? answer.error_code : out.status;
    const description =
      typeof answer?.description === 'string'
        ? answer.description
        : out.status === 200
          ? 'answer without "ok": true'
          : out.text || 'no description';
    return {
      ...base,
      ok: false,
      status: out.status,
      error: scrub(`${code} ${description}`, [target.botToken]),
      attempts: out.attempts,
    };
  }
}
