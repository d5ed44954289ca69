/**
 * The query keys of the shield's pages (`/logs/security` and the dashboard's figures), in one
 * place. Every key starts with `['security']`: a ban, an unban or a cleared tracker refreshes all
 * of them.
 */
const all = ['security'] as const;

export const securityKeys = {
  all: () => all,
  data: () => [...all, 'data'] as const,
  stats: () => [...all, 'stats'] as const,
  loginActivity: () => [...all, 'login-activity'] as const,
  sessions: () => [...all, 'sessions'] as const,
};
