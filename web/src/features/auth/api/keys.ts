/**
 * The query keys of the session and of the account's own settings, in one place: the signed-in
 * user (`['session']`, dropped on a 401: docs/rules/web.md#session-expiry), whether setup is
 * needed, the trading mode every page's header shows (docs/rules/web.md#mode-always-visible),
 * two-factor's state and the API key's.
 */
export const authKeys = {
  session: () => ['session'] as const,
  setup: () => ['setup'] as const,
  mode: () => ['analyze-mode'] as const,
  twoFactor: () => ['2fa', 'status'] as const,
  apiKey: () => ['apikey'] as const,
};
