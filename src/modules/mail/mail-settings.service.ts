/**
 * The mail settings of the settings row (spec "Settings row" smtp_*;
 * docs/rules/mail.md#smtp-settings-form). Input is validated here (host name syntax, port
 * 1–65535, e-mail syntax) so that JSON and form bodies get the same 400 with messages by field.
 * The password is sealed with SecretBox (purpose `smtp-password`) before it is written and opened
 * only in memory for a connection; a blank password keeps the stored one. Nothing read from here
 * for a response carries the password or its ciphertext: {@link MailSettingsService.view} says
 * only whether one is set (docs/rules/mail.md#password-never-shown).
 */
import { isIP, isIPv4 } from 'node:net';
import type { Clock } from '../../platform/clock.js';
import { SecretBox } from '../../platform/crypto.js';
import { fromDbBool } from '../../platform/db/database.js';
import { mailPasswordUnreadable, validationFailed } from '../../platform/errors.js';
import type { MailSettingsRepository, MailSettingsRow } from './mail-settings.repository.js';
import type { MailSettingsView, SmtpConfigBody } from './mail.schema.js';

/** SecretBox purpose of the stored SMTP password. */
export const SMTP_PASSWORD_PURPOSE = 'smtp-password';
/** Spec "Limits": the port when the form omits it. */
export const DEFAULT_SMTP_PORT = 587;
/** The port that opens with TLS from the start (docs/rules/mail.md#implicit-tls-port). */
export const IMPLICIT_TLS_PORT = 465;

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`);
/** The same address syntax as user e-mail addresses (auth/users.service.ts). */
const EMAIL =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
const TRUE_WORDS = new Set(['true', 'on', '1', 'yes']);
const FALSE_WORDS = new Set(['false', 'off', '0', 'no']);

/** A host name (RFC 1123 labels, not all-numeric at the end), an IPv4 or an IPv6 address. */
export function isHostName(value: string): boolean {
  if (value.length === 0 || value.length > 253) return false;
  if (isIP(value) !== 0) return true;
  if (!HOST_NAME.test(value)) return false;
  const last = value.replace(/\.$/, '').split('.').pop() ?? '';
  return !/^\d+$/.test(last); // "1.2.3" is neither an address nor a name
}

/** One e-mail address (no display name, no list): safe as a header value and an envelope address. */
export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

/**
 * The EHLO name as sent: `smtp_helo_hostname`, else `smtp_server` (docs/rules/mail.md#ehlo-name).
 * An IP address is sent as an address literal (`[192.0.2.1]`, `[IPv6:…]`, RFC 5321 §4.1.3).
 */
export function ehloName(helo: string | null, server: string): string {
  const name = helo ?? server;
  if (isIPv4(name)) return `[${name}]`;
  if (isIP(name) === 6) return `[IPv6:${name}]`;
  return name;
}

/** Decrypted settings for one connection: in memory only, never logged or returned. */
export interface MailSettings {
  server: string;
  port: number;
  username: string | null;
  password: string | null;
  useTls: boolean;
  fromEmail: string;
  heloName: string | null;
}

const invalid = (fields: Record<string, string[]>) =>
  validationFailed(
    `Invalid request: ${Object.entries(fields)
      .map(([f, m]) => `${f}: ${m.join(' ')}`)
      .join('; ')}`,
    fields,
  );

/** Text field: trimmed, blank = null, control characters refused. */
function text(value: string | undefined, field: string, problems: Record<string, string[]>): string | null {
  const v = (value ?? '').trim();
  if (CONTROL.test(v)) (problems[field] ??= []).push('Must not contain control characters.');
  return v === '' ? null : v;
}

function parsePort(value: number | string | undefined, problems: Record<string, string[]>): number {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) return DEFAULT_SMTP_PORT;
  const n = typeof value === 'number' ? value : /^\s*\d{1,5}\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    problems.smtp_port = ['Must be a whole number from 1 to 65535.'];
    return DEFAULT_SMTP_PORT;
  }
  return n;
}

function parseUseTls(value: boolean | string | undefined, problems: Record<string, string[]>): boolean {
  if (typeof value === 'boolean') return value;
  const v = (value ?? '').trim().toLowerCase();
  if (v === '') return true; // spec: default true
  if (TRUE_WORDS.has(v)) return true;
  if (FALSE_WORDS.has(v)) return false;
  problems.smtp_use_tls = ['Must be true or false.'];
  return true;
}

export function toView(row: MailSettingsRow): MailSettingsView {
  return {
    smtp_server: row.smtp_server,
    smtp_port: row.smtp_port,
    smtp_username: row.smtp_username,
    smtp_use_tls: fromDbBool(row.smtp_use_tls),
    smtp_from_email: row.smtp_from_email,
    smtp_helo_hostname: row.smtp_helo_hostname,
    smtp_password_set: row.smtp_password_encrypted !== null && row.smtp_password_encrypted !== '',
    smtp_configured: Boolean(row.smtp_server && row.smtp_from_email),
  };
}

export class MailSettingsService {
  private readonly box: SecretBox;

  constructor(
    private readonly repo: MailSettingsRepository,
    appKey: string,
    private readonly clock: Clock,
  ) {
    this.box = new SecretBox(appKey, SMTP_PASSWORD_PURPOSE);
  }

  /** The non-secret settings and whether a password is stored. */
  async view(): Promise<MailSettingsView> {
    return toView(await this.repo.get());
  }

  /**
   * Validates and saves the whole form (omitted fields take their defaults, except the password:
   * blank or omitted keeps the stored one). 400 with messages by field; nothing is written then.
   */
  async update(body: SmtpConfigBody): Promise<MailSettingsView> {
    const problems: Record<string, string[]> = {};
    const server = text(body.smtp_server, 'smtp_server', problems);
    if (server === null) problems.smtp_server = ['Missing data for required field.'];
    else if (!problems.smtp_server && !isHostName(server)) {
      problems.smtp_server = ['Must be a host name or an IP address.'];
    }
    const port = parsePort(body.smtp_port, problems);
    const username = text(body.smtp_username, 'smtp_username', problems);
    const useTls = parseUseTls(body.smtp_use_tls, problems);
    const from = text(body.smtp_from_email, 'smtp_from_email', problems);
    if (from === null) problems.smtp_from_email = ['Missing data for required field.'];
    else if (!problems.smtp_from_email && !isEmailAddress(from)) {
      problems.smtp_from_email = ['Must be an e-mail address (name@example.com).'];
    }
    const helo = text(body.smtp_helo_hostname, 'smtp_helo_hostname', problems);
    if (helo !== null && !problems.smtp_helo_hostname && !isHostName(helo)) {
      problems.smtp_helo_hostname = ['Must be a host name or an IP address.'];
    }
    // The password is taken as typed (spaces may be part of it); blank keeps the stored one.
    const password = body.smtp_password ?? '';
    const current = await this.repo.get();
    if (username !== null && password === '' && !current.smtp_password_encrypted) {
      problems.smtp_password = ['Required when a username is set (no password is stored).'];
    }
    if (Object.keys(problems).length > 0) throw invalid(problems);
    await this.repo.save(
      {
        smtp_server: server!,
        smtp_port: port,
        smtp_username: username,
        smtp_use_tls: useTls,
        smtp_from_email: from!,
        smtp_helo_hostname: helo,
        ...(password === '' ? {} : { smtp_password_encrypted: this.box.seal(password) }),
      },
      this.clock.now(),
    );
    return this.view();
  }

  /**
   * The settings for a connection, password opened; undefined when mail is not configured.
   * A ciphertext sealed under another APP_KEY is a 409 asking for the password again.
   */
  async load(): Promise<MailSettings | undefined> {
    const row = await this.repo.get();
    if (!row.smtp_server || !row.smtp_from_email) return undefined;
    let password: string | null = null;
    if (row.smtp_password_encrypted) {
      try {
        password = this.box.open(row.smtp_password_encrypted);
      } catch {
        throw mailPasswordUnreadable(
          'The stored SMTP password cannot be decrypted (was APP_KEY changed?); enter it again',
        );
      }
    }
    return {
      server: row.smtp_server,
      port: row.smtp_port,
      username: row.smtp_username,
      password,
      useTls: fromDbBool(row.smtp_use_tls),
      fromEmail: row.smtp_from_email,
      heloName: row.smtp_helo_hostname,
    };
  }
}
