import { Type, type Static } from 'typebox';

export const LoginBody = Type.Object({
  /** Case-insensitive user name. */
  username: Type.String({ minLength: 1, maxLength: 64 }),
  /** Plain password; never logged (redacted) or stored. */
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
export type LoginBody = Static<typeof LoginBody>;

export const StatusSuccess = Type.Object({ status: Type.Literal('success') });

export const PublicUserSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  is_admin: Type.Boolean(),
  order_mode: Type.Union([Type.Literal('auto'), Type.Literal('semi_auto')]),
  totp_enabled: Type.Boolean(),
  created_at: Type.String(),
});

export const SessionResponse = Type.Object({ status: Type.Literal('success'), user: PublicUserSchema });
export const CsrfResponse = Type.Object({ csrf_token: Type.String() });

export const ApiKeyStatus = Type.Object({
  status: Type.Literal('success'),
  has_api_key: Type.Boolean(),
  created_at: Type.Union([Type.String(), Type.Null()]),
  order_mode: Type.Union([Type.Literal('auto'), Type.Literal('semi_auto')]),
});
export const ApiKeyCreated = Type.Object({
  status: Type.Literal('success'),
  /** Shown once; only its HMAC is stored. */
  apikey: Type.String(),
  created_at: Type.String(),
  message: Type.String(),
});
export const OrderModeBody = Type.Object({ mode: Type.String({ maxLength: 32 }) });
export const OrderModeResponse = Type.Object({
  status: Type.Literal('success'),
  order_mode: Type.Union([Type.Literal('auto'), Type.Literal('semi_auto')]),
});
