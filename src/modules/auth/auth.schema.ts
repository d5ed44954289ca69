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
  /** Disabled by an administrator: cannot sign in. */
  disabled: Type.Boolean(),
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

/** `/admin/api/users` and `/auth/password` (docs/rules/auth.md#account-management). */
export const UserIdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
export const UsersList = Type.Object({ status: Type.Literal('success'), data: Type.Array(PublicUserSchema) });
export const UserAnswer = Type.Object({ status: Type.Literal('success'), data: PublicUserSchema });
export const NewUserBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()])),
    admin: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const AdminFlagBody = Type.Object({ admin: Type.Boolean() }, { additionalProperties: false });
export const DisabledFlagBody = Type.Object({ disabled: Type.Boolean() }, { additionalProperties: false });
export const SetPasswordBody = Type.Object(
  { password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);
export const ChangePasswordBody = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 1024 }),
    new_password: Type.String({ minLength: 1, maxLength: 1024 }),
    /** Required while two-factor is on. */
    totp_code: Type.Optional(Type.String({ maxLength: 16 })),
  },
  { additionalProperties: false },
);
export const ChangePasswordAnswer = Type.Object({
  status: Type.Literal('success'),
  /** The user's other sessions that were ended. */
  sessions_revoked: Type.Integer(),
  message: Type.String(),
});
