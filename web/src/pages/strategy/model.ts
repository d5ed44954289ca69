/**
 * What the strategy pages share (docs/rules/web.md#strategy-pages): the hand-off of a webhook
 * token from the wizard to the strategy page (memory only), the TradingView alert bodies of each
 * action, and the words of kinds, directions, expiries and legs. The shapes the strategy routes
 * answer, their queries and keys are in features/strategies/api.
 */
import {
  BATCH_ACTIONS,
  SIGNAL_ACTIONS,
  type Direction,
  type StrategyKind,
} from '../../../../src/modules/strategies/strategy.types';
import type { Issued, Leg, Strategy } from '../../features/strategies/api/types';

/**
 * The token the wizard just received, handed to the strategy page in this tab's memory only
 * (never storage, a URL or the history's state: a reload shows it no more). The page takes it
 * once; rotating is the only way to see a token again.
 */
let handoff: { id: number; issued: Issued } | undefined;

export function handOffIssued(id: number, issued: Issued): void {
  handoff = { id, issued: { webhook_token: issued.webhook_token, webhook_url: issued.webhook_url } };
}

/** The token handed off for strategy `id` (left in place: the page forgets it with {@link dropIssued}). */
export function peekIssued(id: number): Issued | undefined {
  return handoff?.id === id ? handoff.issued : undefined;
}

export function dropIssued(): void {
  handoff = undefined;
}

/** The actions a strategy's webhook accepts (docs/rules/strategies.md#webhook-vocabulary-per-kind). */
export function actionsOf(s: Pick<Strategy, 'kind' | 'direction'>): string[] {
  if (s.kind === 'batch') return [...BATCH_ACTIONS];
  return SIGNAL_ACTIONS.filter((a) =>
    s.direction === 'long_only'
      ? a.startsWith('long')
      : s.direction === 'short_only'
        ? a.startsWith('short')
        : true,
  );
}

/**
 * Ready-to-paste TradingView alert messages: one JSON body per action (and per leg when the
 * strategy has several, named by symbol and exchange: docs/rules/strategies.md#signal-leg-selection).
 * A batch start names its mode (#batch-start-mode): sandbox, and live once live start is enabled.
 */
export function alertMessages(s: Strategy): Array<{ label: string; body: string }> {
  const out: Array<{ label: string; body: string }> = [];
  const json = (o: Record<string, unknown>) => JSON.stringify(o);
  if (s.kind === 'batch') {
    out.push({ label: 'start (sandbox)', body: json({ action: 'start', mode: 'sandbox' }) });
    if (s.live_enabled) out.push({ label: 'start (live)', body: json({ action: 'start', mode: 'live' }) });
    out.push({ label: 'stop', body: json({ action: 'stop' }) });
    return out;
  }
  for (const action of actionsOf(s)) {
    if (s.legs.length <= 1) {
      out.push({ label: action, body: json({ action }) });
      continue;
    }
    for (const leg of s.legs)
      out.push({
        label: `${action} ${leg.symbol ?? leg.id}`,
        body: json({ action, symbol: leg.symbol, exchange: leg.exchange }),
      });
  }
  return out;
}

export const KIND_LABEL: Record<StrategyKind, string> = { batch: 'Batch', signal: 'Signal' };
export const DIRECTION_LABEL: Record<Direction, string> = {
  both: 'Long and short',
  long_only: 'Long only',
  short_only: 'Short only',
};
const EXPIRY_WORD = ['current', 'next', 'far'];
export const expiryLabel = (rank: number) => `${EXPIRY_WORD[rank] ?? `rank ${rank}`} expiry`;
const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/** A leg in words: "BUY 2 lots NIFTY CE, next expiry, ATM +1 (NFO)". */
export function legText(l: Leg): string {
  const side = l.side ? `${l.side} ` : '';
  const qty = `${l.quantity} ${l.quantity_unit === 'lots' ? (l.quantity === 1 ? 'lot' : 'lots') : l.quantity === 1 ? 'unit' : 'units'}`;
  if (l.leg_type === 'derivative') {
    const strike =
      l.option_type === 'FUT' ? '' : `, ${l.strike_offset ? `ATM ${signed(l.strike_offset)}` : 'ATM'}`;
    return `${side}${qty} ${l.underlying} ${l.option_type}, ${expiryLabel(l.expiry_rank ?? 0)}${strike} (${l.exchange})`;
  }
  return `${side}${qty} ${l.symbol} (${l.exchange})`;
}

/** An ISO time in IST, the clock of the market and of the server's messages. */
export { istTime } from '../../ist-time';
