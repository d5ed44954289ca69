import { Type, type Static } from 'typebox';

/** A six-digit authenticator code (spec, Limits: "TOTP code length at login — 6 digits"). Never logged. */
export const TotpCode = Type.String({ pattern: '^[0-9]{6}$', description: 'Six-digit authenticator code' });

export const TotpLoginBody = Type.Object({ totp_code: TotpCode });
export type TotpLoginBody = Static<typeof TotpLoginBody>;

export const TotpConfigureBody = Type.Object(
  {
    /**
     * A valid current code: required for every change, also to disable
     * (docs/rules/auth.md#totp-change-needs-a-code).
     */
    totp_code: TotpCode,
    /** Master switch; false clears every purpose flag in the same write. */
    enabled: Type.Boolean(),
    required_for_login: Type.Boolean(),
    required_for_mcp: Type.Boolean(),
    required_for_password_reset: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type TotpConfigureBody = Static<typeof TotpConfigureBody>;

export const TotpStatusResponse = Type.Object({
  status: Type.Literal('success'),
  totp_enabled: Type.Boolean(),
  /** Effective flags: false whenever the master switch is off. */
  totp_required_for_login: Type.Boolean(),
  totp_required_for_mcp: Type.Boolean(),
  totp_required_for_password_reset: Type.Boolean(),
  /** This session's `totp_verified_at` marker, ISO-8601 UTC, or null. */
  last_totp_verified_at: Type.Union([Type.String(), Type.Null()]),
});

/** Shown once, `Cache-Control: no-store`, never logged. */
export const TotpSetupResponse = Type.Object({
  status: Type.Literal('success'),
  /** `otpauth://totp/…` provisioning URI (carries the secret). */
  otpauth_uri: Type.String(),
  /** `data:image/svg+xml;base64,…` QR code of the URI. */
  qr_code: Type.String(),
  /** Base32 secret for manual entry. */
  secret: Type.String(),
});

export const LoginResponse = Type.Union([
  Type.Object({ status: Type.Literal('success') }),
  /** Password correct; `POST /auth/login/totp` within 5 minutes completes the login. */
  Type.Object({ status: Type.Literal('pending_totp') }),
]);
