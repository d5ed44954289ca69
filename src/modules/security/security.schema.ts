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
