import { Type } from 'typebox';
import { SECURITY_RANGES } from './security-settings.service.js';

const Ip = Type.String({ minLength: 1, maxLength: 64, description: 'IPv4 or IPv6 address' });

export const BanBody = Type.Object({
  ip: Ip,
  reason: Type.Optional(Type.String({ maxLength: 255 })),
  /** Hours until the ban ends; 0 means permanent. Ignored when `permanent` is true. */
  duration_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 8760 })),
  permanent: Type.Optional(Type.Boolean()),
  /** Required to ban a private, link-local or unique-local address. */
  force: Type.Optional(Type.Boolean()),
});

export const IpBody = Type.Object({ ip: Ip });
export const HostBody = Type.Object({ host: Type.String({ minLength: 1, maxLength: 255 }) });
export const SessionIdBody = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const range = (key: keyof typeof SECURITY_RANGES) =>
  Type.Optional(Type.Integer({ minimum: SECURITY_RANGES[key][0], maximum: SECURITY_RANGES[key][1] }));

/** Every field optional; every range of "Automatic-ban settings" enforced; unknown fields refused. */
export const SettingsBody = Type.Object(
  {
    security_auto_ban_enabled: Type.Optional(Type.Boolean()),
    security_404_threshold: range('security_404_threshold'),
    security_404_ban_duration: range('security_404_ban_duration'),
    security_api_threshold: range('security_api_threshold'),
    security_api_ban_duration: range('security_api_ban_duration'),
    security_repeat_offender_limit: range('security_repeat_offender_limit'),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const LimitQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) });

// ---- Responses: serialised through these schemas, so no undeclared field can leave. ----

const Iso = Type.String({ description: 'ISO-8601 UTC' });
const NullableIso = Type.Union([Iso, Type.Null()]);
const Success = Type.Literal('success');

export const BanView = Type.Object({
  ip: Type.String(),
  reason: Type.String(),
  ban_count: Type.Integer(),
  created_by: Type.String(),
  created_at: NullableIso,
  expires_at: NullableIso,
  permanent: Type.Boolean(),
});

export const BanResponse = Type.Object({ status: Success, message: Type.String(), ban: BanView });
export const MessageResponse = Type.Object({ status: Success, message: Type.String() });
export const BanHostResponse = Type.Object({
  status: Success,
  host: Type.String(),
  banned: Type.Array(Type.String()),
  skipped: Type.Array(Type.Object({ ip: Type.String(), reason: Type.String() })),
});
export const ClearedResponse = Type.Object({
  status: Success,
  cleared: Type.Union([Type.Boolean(), Type.Integer()]),
});
export const OkResponse = Type.Object({ status: Success });

export const SettingsView = Type.Object({
  security_auto_ban_enabled: Type.Boolean(),
  security_404_threshold: Type.Integer(),
  security_404_ban_duration: Type.Integer(),
  security_api_threshold: Type.Integer(),
  security_api_ban_duration: Type.Integer(),
  security_repeat_offender_limit: Type.Integer(),
});
export const SettingsResponse = Type.Object({ status: Success, settings: SettingsView });

const TrackerView = (items: 'paths' | 'key_digests') =>
  Type.Object({
    ip: Type.String(),
    count: Type.Integer(),
    [items]: Type.Array(Type.String()),
    first_seen: NullableIso,
    last_seen: NullableIso,
  });

export const DataResponse = Type.Object({
  status: Success,
  bans: Type.Array(BanView),
  error_404_tracker: Type.Array(TrackerView('paths')),
  invalid_api_key_tracker: Type.Array(TrackerView('key_digests')),
  settings: SettingsView,
});

export const StatsResponse = Type.Object({
  status: Success,
  total_bans: Type.Integer(),
  permanent_bans: Type.Integer(),
  temporary_bans: Type.Integer(),
  suspicious_ips: Type.Integer(),
  near_threshold_ips: Type.Integer(),
});

export const LoginActivityResponse = Type.Object({
  status: Success,
  data: Type.Array(
    Type.Object({
      ts: NullableIso,
      ip: Type.String(),
      username: Type.String(),
      success: Type.Boolean(),
      user_agent: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

export const SessionsResponse = Type.Object({
  status: Success,
  data: Type.Array(
    Type.Object({
      /** The stored id (a digest of the cookie value): enough to revoke, useless as a cookie. */
      id: Type.String(),
      user: Type.String(),
      ip: Type.Union([Type.String(), Type.Null()]),
      user_agent: Type.Union([Type.String(), Type.Null()]),
      created_at: NullableIso,
      last_seen_at: NullableIso,
      current: Type.Boolean(),
    }),
  ),
});
