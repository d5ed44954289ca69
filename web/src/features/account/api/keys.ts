/**
 * The query keys of the account pages (docs/rules/web.md#account-pages): the broker connection,
 * the instrument master, and the analyzer's log and sandbox account — both under
 * `['analyzer-log']`, which every live order event refreshes (web/src/api/live.ts).
 */
const analyzer = ['analyzer-log'] as const;

export const accountKeys = {
  brokerStatus: () => ['broker-status'] as const,
  masterContract: () => ['master-contract'] as const,
  /** The upload's mutation key: the page tells from it that a file is on its way. */
  masterContractUpload: () => ['master-contract', 'upload'] as const,
  analyzer: () => analyzer,
  analyzerLog: () => [...analyzer, 'entries'] as const,
  sandboxAccount: () => [...analyzer, 'account'] as const,
};
