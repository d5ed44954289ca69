/**
 * A loopback WhatsApp Business Cloud API (node:http on 127.0.0.1, port 0), written from Meta's
 * documentation of "Send messages" and of Graph API errors, not from algodesk's client:
 * - `POST /<version>/<phone-number-id>/messages`, `Authorization: Bearer <access token>`, JSON
 *   `{messaging_product: "whatsapp", recipient_type?: "individual", to, type: "text",
 *   text: {body, preview_url?}}`;
 * - 200 `{messaging_product: "whatsapp", contacts: [{input, wa_id}], messages: [{id: "wamid.…"}]}`;
 * - errors as `{error: {message, type, code, error_data?: {messaging_product, details},
 *   error_subcode?, fbtrace_id}}`: a missing or wrong token is 401 OAuthException 190, an unknown
 *   phone-number id 400 code 100 subcode 33, a malformed request 400 code 100, and (in a test
 *   app's development mode) a recipient outside the allowed list 400 code 131030.
 */
import { randomBytes } from 'node:crypto';
import { ScriptedStub, type StubAnswer, type StubRequest } from '../helpers/scripted-stub.js';

/** The Graph API version the stub serves under (any `vNN.N` is accepted). */
export const GRAPH_VERSION = 'v24.0';

/** A request the stub received, and a scripted answer (test/helpers/scripted-stub.ts). */
export type CloudRequest = StubRequest;
export type CloudAnswer = StubAnswer;

/** A Graph API error body as Meta documents it. */
export function graphError(
  code: number,
  message: string,
  extra: { type?: string; details?: string; error_subcode?: number } = {},
) {
  return {
    error: {
      message,
      type: extra.type ?? 'OAuthException',
      code,
      ...(extra.details === undefined
        ? {}
        : { error_data: { messaging_product: 'whatsapp', details: extra.details } }),
      ...(extra.error_subcode === undefined ? {} : { error_subcode: extra.error_subcode }),
      fbtrace_id: randomBytes(8).toString('base64url'),
    },
  };
}

const MESSAGES_PATH = /^\/(v\d+\.\d+)\/([^/]+)\/messages$/;

export class WhatsAppCloudStub extends ScriptedStub {
  constructor(
    /** The business phone number's id the token may send from. */
    readonly phoneNumberId = '106540352242922',
    /** The access token Meta issued for it. */
    readonly accessToken = `EAAG${randomBytes(48).toString('base64url')}`,
    /** Development mode: only these recipients may be messaged; undefined allows any. */
    readonly allowedRecipients?: readonly string[],
  ) {
    super();
  }

  /** The base URL a client is configured with (origin and version). */
  get baseUrl(): string {
    return `${this.url}/${GRAPH_VERSION}`;
  }

  /** Bodies of the messages posted to `/…/<phone-number-id>/messages`. */
  messages(): Record<string, unknown>[] {
    return this.requests.filter((r) => MESSAGES_PATH.test(r.path)).map((r) => r.json ?? {});
  }

  /** What Meta answers this request. */
  protected answer({ method, path, headers, json }: StubRequest): CloudAnswer {
    const route = MESSAGES_PATH.exec(path);
    if (method !== 'POST' || !route)
      return {
        status: 400,
        body: graphError(100, 'Unsupported request - method type: ' + method.toLowerCase()),
      };
    const auth = headers.authorization ?? '';
    if (auth !== `Bearer ${this.accessToken}`)
      return {
        status: 401,
        body: graphError(190, 'Invalid OAuth access token - Cannot parse access token'),
      };
    if (route[2] !== this.phoneNumberId)
      return {
        status: 400,
        body: graphError(
          100,
          `Unsupported post request. Object with ID '${route[2]}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
          { type: 'GraphMethodException', error_subcode: 33 },
        ),
      };
    if (!json) return { status: 400, body: graphError(100, '(#100) Invalid parameter') };
    if (json.messaging_product !== 'whatsapp')
      return { status: 400, body: graphError(100, '(#100) The parameter messaging_product is required.') };
    if (json.recipient_type !== undefined && json.recipient_type !== 'individual')
      return {
        status: 400,
        body: graphError(100, '(#100) Param recipient_type must be one of {individual, group}'),
      };
    const to = json.to;
    if (typeof to !== 'string' || !/^\+?\d{6,15}$/.test(to))
      return {
        status: 400,
        body: graphError(100, '(#100) Invalid parameter', { details: 'Parameter to is invalid' }),
      };
    const text = json.text as { body?: unknown } | undefined;
    if (json.type !== 'text' || typeof text?.body !== 'string' || text.body.length === 0)
      return { status: 400, body: graphError(100, "(#100) The parameter text['body'] is required.") };
    if (text.body.length > 4096)
      return {
        status: 400,
        body: graphError(100, "(#100) Param text['body'] must be at most 4096 characters long."),
      };
    const waId = to.replace(/^\+/, '');
    if (this.allowedRecipients && !this.allowedRecipients.includes(waId))
      return {
        status: 400,
        body: graphError(131030, '(#131030) Recipient phone number not in allowed list', {
          details:
            'Recipient phone number not in allowed list: Add recipient phone number to recipient list and try again.',
          error_subcode: 2655007,
        }),
      };
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: to, wa_id: waId }],
        messages: [{ id: `wamid.${randomBytes(24).toString('base64')}` }],
      },
    };
  }
}
