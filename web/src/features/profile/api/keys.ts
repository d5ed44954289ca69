/**
 * The query keys of /profile's settings: the administrator's mail settings (inside the profile's
 * data, docs/rules/mail.md#smtp-settings-form) and the user's order alerts
 * (docs/rules/alerts.md#alert-credentials).
 */
export const profileKeys = {
  data: () => ['profile-data'] as const,
  alerts: () => ['settings', 'alerts'] as const,
};
