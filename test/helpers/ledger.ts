/**
 * Tests that trade end with the ledger check (docs/rules/sandbox.md#ledger-check): every sandbox
 * account's positions, realised P&L, funds and fills recomputed from its trade book must agree with
 * what is stored, whatever the case did to it.
 */
import type { Services } from '../../src/app.js';

/** Throws, naming every difference, unless every account's books agree with its trade book. */
export async function expectBooksAgree(services: Services): Promise<void> {
  await services.sandbox.engine.whenIdle();
  const report = await services.sandbox.verify.run();
  if (report.differences.length > 0)
    throw new Error(
      `sandbox ledger check: ${report.drifted} of ${report.accounts} accounts differ from their trade book:\n` +
        report.differences.map((d) => `  user ${d.user_id} ${d.check} ${d.subject}: ${d.detail}`).join('\n'),
    );
}
