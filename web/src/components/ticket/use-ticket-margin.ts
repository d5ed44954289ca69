/**
 * The margin the ticket's order needs as typed (docs/rules/web.md#order-ticket): the desk's
 * `margin` call (`/api/v1/margin`: the broker's calculator in live mode, the sandbox's margin rule
 * in analyzer mode), asked once the typing has paused for {@link MARGIN_DEBOUNCE_MS} and only for
 * an order the call can price — a known contract, a whole quantity of whole lots, the prices its
 * type needs on the tick, and for a MARKET order a price in the feed. Nothing is placed.
 */
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import {
  hasLimitPrice,
  hasTriggerPrice,
  type Action,
  type PriceType,
  type Product,
} from '../../../../src/domain/orders';
import { desk, useDeskReady, type DeskBody } from '../../api/desk';
import { deskKeys } from '../../features/desk/api/keys';
import { lotSizeProblem, num } from './ticket-fields';

/** How long the typing pauses before the margin is asked. */
export const MARGIN_DEBOUNCE_MS = 400;

export interface MarginOrder {
  symbol: string | undefined;
  /** The contract's lot and tick: an order off them is the pipeline's refusal, not a margin to ask. */
  lotsize: number | undefined;
  tick: number | undefined;
  /**
   * The contract's LTP from the feed: a MARKET order is priced at the market's price, which the
   * calculator (the sandbox's, the broker's) has only when the feed does; without one it is not asked.
   */
  ltp: number | undefined;
  exchange: string;
  action: Action;
  quantity: number | string;
  product: Product;
  pricetype: PriceType;
  price: number | string;
  trigger: number | string;
}

/** A price above 0 on the contract's tick grid (checked in paise: 0.05 steps are not exact in binary). */
const onTick = (p: number | undefined, tick: number | undefined): boolean => {
  if (p === undefined || !(p > 0)) return false;
  const step = tick && tick > 0 ? Math.round(tick * 100) : 0;
  return step === 0 || Math.round(p * 100) % step === 0;
};

type Position = DeskBody<'margin'>['positions'][number];

/** The margin call's position for the order, or undefined while it cannot be priced. */
function positionOf(o: MarginOrder): Position | undefined {
  const quantity = num(o.quantity);
  if (!o.symbol || quantity === undefined || !Number.isInteger(quantity) || quantity <= 0) return undefined;
  if (lotSizeProblem(o.exchange, quantity, o.lotsize)) return undefined;
  const price = num(o.price);
  const trigger = num(o.trigger);
  if (hasLimitPrice(o.pricetype) && !onTick(price, o.tick)) return undefined;
  if (hasTriggerPrice(o.pricetype) && !onTick(trigger, o.tick)) return undefined;
  if (!hasLimitPrice(o.pricetype) && o.ltp === undefined) return undefined;
  return {
    symbol: o.symbol,
    exchange: o.exchange as Position['exchange'],
    action: o.action,
    quantity,
    product: o.product,
    pricetype: o.pricetype,
    ...(hasLimitPrice(o.pricetype) ? { price } : {}),
    ...(hasTriggerPrice(o.pricetype) ? { trigger_price: trigger } : {}),
  } as Position;
}

export function useTicketMargin(order: MarginOrder, enabled: boolean) {
  const { ready, mode } = useDeskReady();
  const position = positionOf(order);
  const [settled] = useDebouncedValue(position ? JSON.stringify(position) : '', MARGIN_DEBOUNCE_MS);
  const current = position ? JSON.stringify(position) : '';
  const q = useQuery({
    queryKey: deskKeys.margin(settled, mode),
    queryFn: () => desk('margin', { positions: [JSON.parse(settled) as Position] }),
    enabled: enabled && ready && settled !== '' && settled === current,
    staleTime: 15_000,
    retry: false,
  });
  return { ...q, waiting: current !== '' && (settled !== current || q.isPending), priced: current !== '' };
}
