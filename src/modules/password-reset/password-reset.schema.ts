import { Type, type Static } from 'typebox';
import { RESET_STEPS } from './password-reset.service.js';

/**
 * `POST /auth/reset-password`, JSON or form. Which fields a step needs is checked by the service
 * (with per-field messages); the schema bounds types and sizes. Other fields (a form's CSRF
 * field, say) are ignored. Codes, tokens and passwords are never logged.
 */
export const ResetPasswordBody = Type.Object({
  step: Type.Union(RESET_STEPS.map((s) => Type.Literal(s))),
  email: Type.Optional(Type.String({ maxLength: 320 })),
  totp_code: Type.Optional(Type.String({ maxLength: 16 })),
  token: Type.Optional(Type.String({ maxLength: 128 })),
  password: Type.Optional(Type.String({ maxLength: 4096 })),
  confirm_password: Type.Optional(Type.String({ maxLength: 4096 })),
});
export type ResetPasswordBody = Static<typeof ResetPasswordBody>;

export const ResetPasswordResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  method: Type.Optional(Type.Union([Type.Literal('totp'), Type.Literal('email')])),
  /** Only after a correct `totp` step: the token the `password` step sends back. */
  token: Type.Optional(Type.String()),
});

export const ResetLinkParams = Type.Object({ token: Type.String({ maxLength: 128 }) });

export const ResetLinkResponse = Type.Object({
  status: Type.Literal('success'),
  /** The token is unspent and unexpired: `POST /auth/reset-password` step `password` may use it. */
  valid: Type.Literal(true),
  expires_at: Type.String(),
});
