/**
 * How a connection to the SMTP server is made (docs/rules/mail.md#implicit-tls-port,
 * docs/rules/mail.md#ehlo-name), shared by sending and by the diagnostics so both behave alike:
 * - port 465: TLS from the first byte (`secure: true`);
 * - any other port: plain, then STARTTLS when `smtp_use_tls` — required (`requireTLS`), so a
 *   server or a man in the middle that hides STARTTLS cannot downgrade the login to plain text;
 *   with `smtp_use_tls` false STARTTLS is never attempted (`ignoreTLS`);
 * - EHLO name: `smtp_helo_hostname`, else `smtp_server` (IP addresses as address literals);
 * - certificates are always verified (`rejectUnauthorized: true`, TLS 1.2 or later); a test passes
 *   its CA through {@link MailConnectOptions.ca}, which adds to the system roots;
 * - connect, greeting and socket timeouts are bounded, and nodemailer's own logger stays off (it
 *   would print the SMTP conversation, AUTH included).
 */
import { rootCertificates, type ConnectionOptions } from 'node:tls';
import { isIP } from 'node:net';
import type { SMTPTransportOptions } from 'nodemailer/lib/smtp-transport';
import { ehloName, IMPLICIT_TLS_PORT, type MailSettings } from './mail-settings.service.js';

/** Connection options injected by the app (or a test); none are read from the settings row. */
export interface MailConnectOptions {
  /** Extra trusted CA certificates (PEM), in addition to the system roots. Tests pass their CA. */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /** TCP connect (DNS included) bound, ms. Default 10 s. */
  connectionTimeoutMs?: number;
  /** Wait for the server's 220 greeting (and a STARTTLS upgrade), ms. Default 10 s. */
  greetingTimeoutMs?: number;
  /** Inactivity bound once connected, ms. Default 30 s. */
  socketTimeoutMs?: number;
  /**
   * Where to actually connect for the configured host and port — a port forward. Tests use it to
   * reach a loopback listener standing in for port 465; the configured values still decide the
   * security mode, the certificate name and the EHLO name. Unset in production.
   */
  redirect?: (host: string, port: number) => { host: string; port: number };
}

export const DEFAULT_TIMEOUTS = {
  connectionTimeoutMs: 10_000,
  greetingTimeoutMs: 10_000,
  socketTimeoutMs: 30_000,
} as const;

export type SecurityMode = 'implicit_tls' | 'starttls' | 'plain';

export function securityMode(s: Pick<MailSettings, 'port' | 'useTls'>): SecurityMode {
  if (s.port === IMPLICIT_TLS_PORT) return 'implicit_tls';
  return s.useTls ? 'starttls' : 'plain';
}

/** Node TLS options for a connection to `server` (the configured host name). */
export function tlsOptions(server: string, opts: MailConnectOptions): ConnectionOptions {
  const extra = opts.ca === undefined ? [] : Array.isArray(opts.ca) ? opts.ca : [opts.ca];
  return {
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
    // SNI and the certificate name check use the configured name, whatever address is dialled.
    ...(isIP(server) === 0 ? { servername: server } : {}),
    ...(extra.length > 0 ? { ca: [...rootCertificates, ...(extra as Array<string | Buffer>)] } : {}),
  };
}

/** The address actually dialled for the settings (after a test's redirect). */
export function dialTarget(s: MailSettings, opts: MailConnectOptions): { host: string; port: number } {
  return opts.redirect ? opts.redirect(s.server, s.port) : { host: s.server, port: s.port };
}

/** nodemailer SMTP transport options for the settings. */
export function smtpTransportOptions(s: MailSettings, opts: MailConnectOptions): SMTPTransportOptions {
  const mode = securityMode(s);
  const target = dialTarget(s, opts);
  const tls = tlsOptions(s.server, opts);
  return {
    host: target.host,
    port: target.port,
    secure: mode === 'implicit_tls',
    requireTLS: mode === 'starttls',
    ignoreTLS: mode === 'plain',
    name: ehloName(s.heloName, s.server),
    // When the dialled address differs from the configured name, certificates are still checked
    // against the configured name.
    ...(tls.servername ? { servername: tls.servername } : {}),
    tls,
    ...(s.username ? { auth: { user: s.username, pass: s.password ?? '' } } : {}),
    connectionTimeout: opts.connectionTimeoutMs ?? DEFAULT_TIMEOUTS.connectionTimeoutMs,
    greetingTimeout: opts.greetingTimeoutMs ?? DEFAULT_TIMEOUTS.greetingTimeoutMs,
    socketTimeout: opts.socketTimeoutMs ?? DEFAULT_TIMEOUTS.socketTimeoutMs,
    dnsTimeout: opts.connectionTimeoutMs ?? DEFAULT_TIMEOUTS.connectionTimeoutMs,
    logger: false,
    debug: false,
    transactionLog: false,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}
