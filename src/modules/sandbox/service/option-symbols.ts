/**
 * optionsymbol's strike resolution priced by the sandbox's price source: the broker's quotes, or
 * in analyzer mode the simulated or scripted prices too. The `/api/v1/optionsymbol` route
 * (http/utilities.routes.ts) and the orders module's optionsorder and optionsmultiorder use it.
 */
import type { ContractsService } from '../../market/contracts.service.js';
import {
  resolveOptionSymbol,
  type OptionSymbolAnswer,
  type OptionSymbolRequest,
} from '../../market/option-symbol.js';
import type { PriceSource } from '../prices/price-source.js';

/** What the resolution reads: the sandbox's mode and prices, the contracts, the freeze quantities. */
export interface OptionSymbolDeps {
  sandbox: { mode: { readonly analyze: boolean }; prices(): PriceSource };
  contracts: Pick<ContractsService, 'get' | 'expiries' | 'searchFno'>;
  freezeQty(exchange: string, underlying: string): number | null;
}

/**
 * optionsymbol's resolution priced by the sandbox's price source (optionsorder and
 * optionsmultiorder name their options with it too).
 */
export function optionSymbolResolver(
  deps: OptionSymbolDeps,
): (req: OptionSymbolRequest) => Promise<OptionSymbolAnswer> {
  const { sandbox } = deps;
  return (req) =>
    resolveOptionSymbol(req, {
      contracts: deps.contracts,
      freezeQty: deps.freezeQty,
      async ltp(inst) {
        const source = sandbox.prices();
        // Simulated prices are demo prices: in live mode they never pick a strike (as for the
        // strategies' live legs, docs/rules/strategies.md#batch-leg-resolution).
        if (!sandbox.mode.analyze && source.demo) return undefined;
        const q = await source.quote(inst);
        return q && q.ltp > 0 ? q.ltp : undefined;
      },
    });
}
