/**
 * WhatsApp Business Cloud API sender (Meta Graph API, "Send messages"):
 * `POST {base}/<phone-number-id>/messages` with `authorization: Bearer <access token>` and JSON
 * `{messaging_product: "whatsapp", recipient_type: "individual", to, type: "text", text: {body}}`.
 * Meta answers 200 `{messaging_product, contacts: [{input, wa_id}], messages: [{id: "wamid…"}]}`
 * when it accepts the message, or a Graph API error `{error: {message, type, code, error_data:
 * {details}, error_subcode, fbtrace_id}}`; only an answer naming the message id is a success.
 * The token travels in a header and is scrubbed from anything Meta answers
 * (docs/rules/alerts.md#alert-credentials); only the base host is logged or reported.
 */
import { scrub, type AlertHttp, type ChannelResult } from './alert-http.js';

/**
 * The Graph API origin and version the messages go to (`WHATSAPP_API_BASE_URL` overrides it, the
 * version included, so a move to a newer Graph API version needs no release).
 */
export const WHATSAPP_API_BASE_URL = 'https://graph.facebook.com/v24.0';

/** Longest text body the Cloud API takes (Meta's "text.body": at most 4,096 characters). */
export const WHATSAPP_TEXT_MAX = 4096;

/** A phone-number id as Meta shows it in the app's WhatsApp "API setup": digits only. */
export const WHATSAPP_PHONE_NUMBER_ID_PATTERN = /^\d{5,20}$/;

/**
 * An access token (temporary, or a system user's permanent one): printable ASCII without
 * spaces, so it can never break out of the `authorization` header.
 */
export const WHATSAPP_TOKEN_PATTERN = /^[\x21-\x7e]{20,1024}$/;

/** Separators people write inside phone numbers; dropped before the digits are checked. */
const NUMBER_SEPARATORS = /[\s\-().]/g;
/** E.164 without the `+`: a country code (never 0) and the subscriber number, 8-15 digits in all. */
const E164_DIGITS = /^[1-9]\d{7,14}$/;

/**
 * `raw` as the digits the Cloud API's `to` takes (`+91 98765-43210` → `919876543210`), or
 * undefined when it is not an international number with its country code.
 */
export function whatsAppNumber(raw: string): string | undefined {
  const digits = raw.replace(NUMBER_SEPARATORS, '').replace(/^\+/, '');
  return E164_DIGITS.test(digits) ? digits : undefined;
}

/** The sending side: the business phone number and the token allowed to send from it. */
export interface WhatsAppTarget {
  accessToken: string;
  phoneNumberId: string;
}

/** One recipient's outcome: the channel result, who it was for and Meta's message id. */
export type WhatsAppResult = ChannelResult<'whatsapp'> & {
  /** The recipient, as sent in `to`. */
  to: string;
  /** Meta's `wamid…` id of an accepted message. */
  messageId?: string;
};

interface GraphAnswer {
  messages?: Array<{ id?: unknown }>;
  error?: {
    message?: unknown;
    code?: unknown;
    error_data?: { details?: unknown };
  };
}

function parse(text: string): GraphAnswer | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' ? (v as GraphAnswer) : undefined;
  } catch {
    return undefined;
  }
}

/** `131030 Recipient phone number not in allowed list (…details)` from a Graph API error. */
function graphError(status: number, text: string, answer: GraphAnswer | undefined): string {
  const e = answer?.error;
  if (!e || typeof e !== 'object') return `${status} ${text || 'no description'}`;
  const code = typeof e.code === 'number' || typeof e.code === 'string' ? e.code : status;
  const message = typeof e.message === 'string' ? e.message : 'no message';
  const details = typeof e.error_data?.details === 'string' ? ` (${e.error_data.details})` : '';
  return `${code} ${message}${details}`;
}

export class WhatsAppSender {
  private readonly base: string;
  /** Host of the Graph API base URL, for logs. */
  readonly host: string;

  constructor(
    private readonly http: AlertHttp,
    /** `baseUrl`: the Graph API origin and version (config `WHATSAPP_API_BASE_URL`; tests). */
    opts: { baseUrl?: string } = {},
  ) {
    this.base = (opts.baseUrl ?? WHATSAPP_API_BASE_URL).replace(/\/+$/, '');
    this.host = new URL(this.base).host;
  }

  /** Sends `text` to `to` (E.164 digits); resolves with the outcome, never rejects. */
  async send(target: WhatsAppTarget, to: string, text: string): Promise<WhatsAppResult> {
    const base = { channel: 'whatsapp' as const, host: this.host, to };
    if (!WHATSAPP_PHONE_NUMBER_ID_PATTERN.test(target.phoneNumberId))
      return { ...base, ok: false, status: null, error: 'phone-number id is not valid', attempts: 0 };
    const out = await this.http.postJson(
      `${this.base}/${target.phoneNumberId}/messages`,
      { messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'text', text: { body: text } },
      { headers: { authorization: `Bearer ${target.accessToken}` } },
    );
    if (out.kind === 'failure')
      return { ...base, ok: false, status: null, error: out.detail, attempts: out.attempts };
    const answer = parse(out.text);
    const id = answer?.messages?.[0]?.id;
    if (out.status >= 200 && out.status < 300 && typeof id === 'string' && id !== '')
      return { ...base, ok: true, status: out.status, attempts: out.attempts, messageId: id };
    const error =
      out.status >= 200 && out.status < 300
        ? 'answer without a message id'
        : graphError(out.status, out.text, answer);
    return {
      ...base,
      ok: false,
      status: out.status,
      error: scrub(error, [target.accessToken]),
      attempts: out.attempts,
    };
  }
}
