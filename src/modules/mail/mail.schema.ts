/**
 * Schemas of the mail routes (docs/rules/mail.md#smtp-settings-form,
 * docs/rules/mail.md#password-never-shown).
 *
 * `POST /auth/smtp-config` takes JSON or an HTML form (`application/x-www-form-urlencoded`,
 * parsed by platform/http/body.plugin.ts into string fields). Form fields are text, and JSON
 * bodies are validated without coercion, so the port and the TLS flag accept their JSON type or
 * a string; the service parses and range-checks them and answers 400 with messages by field.
 * Field names follow OpenAlgo's profile form (`smtp_*`); `smtp_password` is a redacted log key.
 */
import { Type, type Static } from 'typebox';

const Text = (maxLength: number) => Type.String({ maxLength });

export const SmtpConfigBody = Type.Object(
  {
    /** Host name or IP address of the SMTP server. */
    smtp_server: Text(255),
    /** 1–65535; 587 when omitted or blank. 465 = implicit TLS, any other port = STARTTLS or plain. */
    smtp_port: Type.Optional(Type.Union([Type.Integer(), Text(16)])),
    /** Login name; blank = no authentication. */
    smtp_username: Type.Optional(Text(255)),
    /** Plain password, sealed with SecretBox before it is stored; blank or omitted keeps the stored one. */
    smtp_password: Type.Optional(Text(1024)),
    /** STARTTLS on ports other than 465 (required when true); default true. Form: true/false, on/off, 1/0. */
    smtp_use_tls: Type.Optional(Type.Union([Type.Boolean(), Text(8)])),
    /** Sender address (`From:` and the envelope sender). */
    smtp_from_email: Text(254),
    /** EHLO/HELO name; blank = the server name. */
    smtp_helo_hostname: Type.Optional(Text(255)),
  },
  { additionalProperties: false },
);
export type SmtpConfigBody = Static<typeof SmtpConfigBody>;

/** What any response may show of the mail settings: never the password or its ciphertext. */
export const MailSettingsView = Type.Object({
  smtp_server: Type.Union([Type.String(), Type.Null()]),
  smtp_port: Type.Integer(),
  smtp_username: Type.Union([Type.String(), Type.Null()]),
  smtp_use_tls: Type.Boolean(),
  smtp_from_email: Type.Union([Type.String(), Type.Null()]),
  smtp_helo_hostname: Type.Union([Type.String(), Type.Null()]),
  /** Whether a password is stored: the only thing said about it (docs/rules/mail.md#password-never-shown). */
  smtp_password_set: Type.Boolean(),
  /** Server and sender are set: mail can be sent. */
  smtp_configured: Type.Boolean(),
});
export type MailSettingsView = Static<typeof MailSettingsView>;

export const SmtpConfigResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  smtp: MailSettingsView,
});

export const ProfileDataResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({
    username: Type.String(),
    is_admin: Type.Boolean(),
    /** The mail settings, for administrators; null for other users. */
    smtp: Type.Union([MailSettingsView, Type.Null()]),
  }),
});

export const TestSmtpBody = Type.Object(
  {
    /** One e-mail address: where the test message goes. */
    recipient: Text(254),
  },
  { additionalProperties: false },
);
export type TestSmtpBody = Static<typeof TestSmtpBody>;

export const TestSmtpResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
});

export const DiagnosticStage = Type.Object({
  stage: Type.Union([
    Type.Literal('resolve'),
    Type.Literal('connect'),
    Type.Literal('tls'),
    Type.Literal('greeting'),
    Type.Literal('ehlo'),
    Type.Literal('auth'),
  ]),
  result: Type.Union([Type.Literal('ok'), Type.Literal('failed'), Type.Literal('skipped')]),
  /** Wall time of the stage in milliseconds (0 when skipped). */
  ms: Type.Number(),
  /** What happened, sanitised: never a credential. */
  detail: Type.String(),
});
export type DiagnosticStage = Static<typeof DiagnosticStage>;

export const DebugSmtpResponse = Type.Object({
  status: Type.Literal('success'),
  /** Every stage that ran passed. */
  ok: Type.Boolean(),
  server: Type.String(),
  port: Type.Integer(),
  /** `implicit_tls` (port 465), `starttls` (other ports, smtp_use_tls) or `plain`. */
  security: Type.Union([Type.Literal('implicit_tls'), Type.Literal('starttls'), Type.Literal('plain')]),
  stages: Type.Array(DiagnosticStage),
  total_ms: Type.Number(),
});
export type DebugSmtpResponse = Static<typeof DebugSmtpResponse>;
