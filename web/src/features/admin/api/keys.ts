/**
 * The query keys of the administration pages, in one place. Every key starts with `['admin']`:
 * a change to the market calendar (freeze quantities, holidays, timings) refreshes all of them,
 * so the administration home's counts follow (docs/rules/web.md#field-messages: the pages say what
 * they hold, never a stale count).
 */
const all = ['admin'] as const;

export const adminKeys = {
  all: () => all,
  stats: () => [...all, 'stats'] as const,
  users: () => [...all, 'users'] as const,
  /** The install's broker apps (docs/rules/brokers.md#broker-apps). */
  brokerApps: () => [...all, 'broker-apps'] as const,
  freeze: () => [...all, 'freeze'] as const,
  /** One year's holidays; the server's current year when none is chosen. */
  holidays: (year?: number) => [...all, 'holidays', year ?? 'current'] as const,
  timings: () => [...all, 'timings'] as const,
  errorStats: () => [...all, 'errors', 'stats'] as const,
  errorGroups: (level: string) => [...all, 'errors', 'groups', level] as const,
  errorList: (level: string, origin: string, q: string) =>
    [...all, 'errors', 'list', level, origin, q] as const,
  system: () => [...all, 'system'] as const,
  /** Every query of the agents page (docs/rules/mcp.md#mcp-settings). */
  agents: () => [...all, 'mcp'] as const,
  agentSettings: () => [...all, 'mcp', 'settings'] as const,
  agentClients: () => [...all, 'mcp', 'clients'] as const,
  agentAudit: (query: string) => [...all, 'mcp', 'audit', query] as const,
};
