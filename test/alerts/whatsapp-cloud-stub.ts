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
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/** The Graph API version the stub serves under (any `vNN.N` is accepted). */
export const GRAPH_VERSION = 'v24.0';

/** A request the stub received. */
export interface CloudRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown> | undefined;
}

/** A scripted answer: an object body is sent as JSON, a string as text/plain. */
export interface CloudAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

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

export class WhatsAppCloudStub {
  readonly requests: CloudRequest[] = [];
  private readonly script: CloudAnswer[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private server: Server | undefined;
  url = '';

  constructor(
    /** The business phone number's id the token may send from. */
    readonly phoneNumberId = '106540352242922',
    /** The access token Meta issued for it. */
    readonly accessToken = `EAAG${randomBytes(48).toString('base64url')}`,
    /** Development mode: only these recipients may be messaged; undefined allows any. */
    readonly allowedRecipients?: readonly string[],
  ) {}

  /** The base URL a client is configured with (origin and version). */
  get baseUrl(): string {
    return `${this.url}/${GRAPH_VERSION}`;
  }

  /** The next answers, in order, whatever the request (after the request is recorded). */
  answerNext(...answers: CloudAnswer[]): void {
    this.script.push(...answers);
  }

  /** Bodies of the messages posted to `/…/<phone-number-id>/messages`. */
  messages(): Record<string, unknown>[] {
    return this.requests.filter((r) => MESSAGES_PATH.test(r.path)).map((r) => r.json ?? {});
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(body) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
        const path = new URL(req.url ?? '/', 'http://stub').pathname;
        this.requests.push({ method: req.method ?? '', path, headers: req.headers, body, json });
        const answer = this.script.shift() ?? this.answer(req.method ?? '', path, req.headers, json);
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (res.destroyed) return;
          const isJson = typeof answer.body !== 'string';
          res.writeHead(answer.status, {
            'content-type': isJson ? 'application/json' : 'text/plain',
            ...answer.headers,
          });
          res.end(isJson ? JSON.stringify(answer.body) : (answer.body as string));
        }, answer.delayMs ?? 0);
        this.timers.add(timer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  /** What Meta answers this request. */
  private answer(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    json: Record<string, unknown> | undefined,
  ): CloudAnswer {
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

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
