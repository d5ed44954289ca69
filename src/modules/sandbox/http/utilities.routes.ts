/**
 * `/api/v1` utilities that read the sandbox: `pnl/symbols` (today's P&L of each sandbox position,
 * analyzer mode only, as OpenAlgo's) and `optionsymbol` (an option strike resolved from the
 * underlying's price, which comes from the sandbox's price source: the broker's quotes, or in
 * analyzer mode the simulated or scripted prices too).
 */
import type { ApiKeyGuard } from '../../auth/api-key.guard.js';
import { badRequest } from '../../../platform/errors.js';
import { ErrorBody } from '../../../platform/http/error-body.js';
import type { RateLimitHook } from '../../../platform/http/rate-limit.js';
import type { App } from '../../../platform/http/types.js';
import type { ContractsService } from '../../market/contracts.service.js';
import { ApiKeyOnlyBody, OptionSymbolBody, OptionSymbolResponse } from '../../market/market-api.schema.js';
import { moneyToRupees } from '../core/money.js';
import { unrealisedPnl } from '../core/positions.js';
import type { PriceSource } from '../prices/price-source.js';
import type { SandboxBooks } from '../service/books.js';
import { optionSymbolResolver } from '../service/option-symbols.js';
import { PnlSymbolsResponse } from './utilities.schema.js';

export interface SandboxUtilityDeps {
  sandbox: {
    books: Pick<SandboxBooks, 'positions'>;
    mode: { readonly analyze: boolean };
    prices(): PriceSource;
  };
  contracts: Pick<ContractsService, 'get' | 'expiries' | 'searchFno'>;
  freezeQty(exchange: string, underlying: string): number | null;
  apiKeyGuard: ApiKeyGuard;
  rateLimit: RateLimitHook;
}

const errors = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

/** Rupees rounded to the paisa for a P&L figure. */
const rupees = (m: number): number => Math.round(moneyToRupees(m) * 100) / 100;

export function sandboxUtilityRoutes(app: App, deps: SandboxUtilityDeps): void {
  const { sandbox } = deps;
  app.post(
    '/api/v1/pnl/symbols',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.apiKeyGuard,
      schema: {
        summary: "Today's P&L of each sandbox position (analyzer mode)",
        tags: ['openalgo-api'],
        body: ApiKeyOnlyBody,
        response: { 200: PnlSymbolsResponse, ...errors },
      },
    },
    async (req) => {
      if (!sandbox.mode.analyze)
        throw badRequest(
          'P&L by symbol is available in analyzer mode only (the sandbox positions); switch analyzer mode on',
        );
      const positions = await sandbox.books.positions(req.apiPrincipal!.userId);
      const data = positions
        .filter((p) => p.quantity !== 0 || p.realisedPnl !== 0)
        .map((p) => {
          const unrealised = p.quantity !== 0 && p.ltp !== undefined ? unrealisedPnl(p, p.ltp) : 0;
          const total = unrealised + p.realisedPnl;
          return {
            symbol: p.symbol,
            exchange: p.exchange,
            product: p.product,
            quantity: p.quantity,
            pnl: rupees(total),
            unrealized_pnl: rupees(unrealised),
            today_realized_pnl: rupees(p.realisedPnl),
            total_pnl_today: rupees(total),
            raw: { unrealised, realised: p.realisedPnl },
          };
        });
      const sum = (f: (r: (typeof data)[number]) => number) => data.reduce((s, r) => s + f(r), 0);
      const unrealised = sum((r) => r.raw.unrealised);
      const realised = sum((r) => r.raw.realised);
      return {
        status: 'success' as const,
        data: data.map(({ raw: _raw, ...r }) => r),
        total_pnl: rupees(unrealised + realised),
        total_unrealized_pnl: rupees(unrealised),
        total_today_realized_pnl: rupees(realised),
        total_pnl_today: rupees(unrealised + realised),
        mode: 'analyze' as const,
      };
    },
  );

  const resolveOption = optionSymbolResolver(deps);
  app.post(
    '/api/v1/optionsymbol',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.apiKeyGuard,
      schema: {
        summary:
          "The option symbol an offset from the at-the-money strike names, from the underlying's price",
        tags: ['openalgo-api'],
        body: OptionSymbolBody,
        response: { 200: OptionSymbolResponse, ...errors },
      },
    },
    (req) => resolveOption(req.body as OptionSymbolBody),
  );
}
