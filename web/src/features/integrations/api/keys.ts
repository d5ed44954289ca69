/**
 * The query keys of the integrations area, in one place: the scanners and their deliveries
 * (docs/rules/scanner.md#scanner-audit), the flows and their runs (docs/rules/flow.md#flow-runs),
 * and the install's public address that webhook URLs are built on. A source's audit sits under
 * its list's key, so refreshing the list refreshes the audit too.
 */
export const integrationKeys = {
  scanners: () => ['scanners'] as const,
  scannerDeliveries: (id: number) => [...integrationKeys.scanners(), id, 'deliveries'] as const,
  flows: () => ['flows'] as const,
  flowRuns: (id: number) => [...integrationKeys.flows(), id, 'runs'] as const,
  host: () => ['config-host'] as const,
};

/** How often an open audit (a scanner's deliveries, a flow's runs) asks again. */
export const AUDIT_REFRESH_MS = 10_000;
