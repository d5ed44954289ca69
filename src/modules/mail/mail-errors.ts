/**
 * Mail failures as clients and logs may see them (spec "Errors → Other": mail error messages and
 * logs never contain credentials). nodemailer's errors carry the failed command (`err.command`,
 * which for AUTH is the base64 of the user name and password) and the server's reply, and a
 * server may echo what it was sent. So a raw nodemailer error is never logged or returned: it is
 * rebuilt here from its code, reply code and message, with every form of the password the
 * client could have sent (plain, base64, the SASL PLAIN token, URL-encoded) cut out.
 */
import { AppError, ERRORS } from '../../platform/errors.js';

/** Longest server/library text kept in a message. */
const MAX_DETAIL = 300;

const SUMMARY: Record<string, string> = {
  EDNS: "Could not resolve the SMTP server's host name",
  ECONNECTION: 'Could not connect to the SMTP server',
  ESOCKET: 'The connection to the SMTP server failed',
  ETIMEDOUT: 'The SMTP server did not answer in time',
  ETLS: 'TLS with the SMTP server failed',
  EPROTOCOL: 'The SMTP server answered something unexpected',
  EAUTH: 'The SMTP server refused the login',
  ENOAUTH: 'The SMTP server requires a login; set a username and password',
  EENVELOPE: 'The SMTP server refused the sender or a recipient',
  EMESSAGE: 'The SMTP server refused the message',
};

/** Socket errors that mean the TCP connection itself could not be made. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** Certificate and TLS failures (`DEPTH_ZERO_SELF_SIGNED_CERT`, `ERR_TLS_CERT_ALTNAME_INVALID`, …). */
const TLS_CODE = /CERT|SELF_SIGNED|^ERR_TLS|^ERR_SSL|^UNABLE_TO/;

/** A mail failure: 502 (the upstream server failed us), a safe message, the SMTP codes. */
export class MailError extends AppError {
  constructor(
    message: string,
    /** nodemailer's error code (`EAUTH`, `ETLS`, …) when known. */
    readonly mailCode?: string,
    /** The server's numeric reply code, when it answered. */
    readonly responseCode?: number,
  ) {
    super(ERRORS.mailFailed.status, ERRORS.mailFailed.code, message);
    this.name = 'MailError';
  }

  /** What a log line may carry about the failure. */
  toLog(): { code: string | undefined; responseCode: number | undefined; message: string } {
    return { code: this.mailCode, responseCode: this.responseCode, message: this.message };
  }
}

/** Every form in which a client may have put the credentials on the wire. */
export function secretForms(username: string | null, password: string | null): string[] {
  if (!password) return [];
  const user = username ?? '';
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  const forms = [
    password,
    b64(password),
    b64(`\u0000${user}\u0000${password}`), // AUTH PLAIN
    b64(`${user}\u0000${user}\u0000${password}`), // AUTH PLAIN with an authorisation identity
    encodeURIComponent(password),
    JSON.stringify(password).slice(1, -1),
  ];
  // Longest first, so a longer form is cut out before a shorter one inside it.
  return [...new Set(forms.filter((f) => f.length > 0))].sort((a, b) => b.length - a.length);
}

/** `text` with every secret form replaced, control characters flattened, length bounded. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('[redacted]');
  // eslint-disable-next-line no-control-regex -- flattening control characters is the point
  out = out.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  // Cut after redaction, so a truncated secret can never remain.
  return out.length > MAX_DETAIL ? `${out.slice(0, MAX_DETAIL)}…` : out;
}

/**
 * A safe {@link MailError} from anything nodemailer, node:net/tls or dns threw. Only the message
 * (redacted) and the codes survive; `command`, `response` objects and stacks are dropped.
 */
export function sanitizeMailError(err: unknown, secrets: readonly string[]): MailError {
  if (err instanceof MailError) return err;
  if (err instanceof AppError) return new MailError(redact(err.message, secrets));
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    code?: unknown;
    originalCode?: unknown;
    responseCode?: unknown;
    message?: unknown;
  };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const systemCode = typeof e.originalCode === 'string' ? e.originalCode : undefined;
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const summary =
    (systemCode && CONNECT_CODES.has(systemCode)
      ? SUMMARY.ECONNECTION
      : systemCode && TLS_CODE.test(systemCode)
        ? SUMMARY.ETLS
        : code && SUMMARY[code]) ?? 'Sending mail failed';
  const raw = typeof e.message === 'string' ? e.message : String(err);
  const detail = redact(raw, secrets);
  const tag = systemCode ? ` (${systemCode})` : '';
  return new MailError(detail ? `${summary}${tag}: ${detail}` : `${summary}${tag}`, code, responseCode);
}
