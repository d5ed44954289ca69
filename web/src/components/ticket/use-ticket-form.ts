/**
 * The order ticket's state (docs/rules/web.md#order-ticket): its fields, prefilled from the opener,
 * the contract's facts, the checks made before sending and the placement through the desk
 * (docs/rules/web.md#desk-calls), with the confirmation a live order waits for.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import type { OrderExchange } from '../../../../src/domain/exchanges';
import {
  hasLimitPrice,
  hasTriggerPrice,
  type Action,
  type PriceType,
  type Product,
} from '../../../../src/domain/orders';
import { useMode } from '../../api/auth';
import type { DeskAnswer } from '../../api/desk';
import { holdLive } from '../../api/live';
import { tickKey, useLiveTicks } from '../../api/live-ticks';
import { usePlaceOrderMutation } from '../../features/desk/api/orders';
import type { SearchItem } from './Suggestions';
import type { TicketPrefill } from './ticket-context';
import {
  isOrderExchange,
  lots,
  lotSizeProblem,
  num,
  productsFor,
  serverError,
  type Field,
} from './ticket-fields';
import { circuitWarning, farLimitWarning, freezeLine, roundToTick } from './ticket-prices';
import { useCircuitBand } from './use-circuit-band';
import { useFacts, type Facts } from './use-facts';
import { useTicketMargin } from './use-ticket-margin';

export type Placed = DeskAnswer<'placeorder'>;

export function useTicketForm(opened: boolean, prefill: TicketPrefill) {
  const mode = useMode(opened);
  const live = mode.data?.mode === 'live';
  const initialExchange: OrderExchange = isOrderExchange(prefill.exchange) ? prefill.exchange : 'NSE';
  const [symbol, setSymbol] = useState(prefill.symbol ?? '');
  const [exchange, setExchange] = useState<OrderExchange>(initialExchange);
  const [action, setAction] = useState<Action>(prefill.action ?? 'BUY');
  const [quantity, setQuantity] = useState<number | string>(prefill.quantity ?? prefill.lotsize ?? '');
  const [pricetype, setPricetype] = useState<PriceType>(prefill.pricetype ?? 'MARKET');
  const [price, setPrice] = useState<number | string>(prefill.price ?? '');
  const [trigger, setTrigger] = useState<number | string>('');
  const [product, setProduct] = useState<Product>(
    prefill.product && productsFor(initialExchange).includes(prefill.product)
      ? prefill.product
      : productsFor(initialExchange)[0]!,
  );
  const [strategy, setStrategy] = useState('Order ticket');
  const [known, setKnown] = useState<Facts | undefined>(
    prefill.symbol && prefill.lotsize !== undefined
      ? {
          symbol: prefill.symbol,
          exchange: initialExchange,
          lotsize: prefill.lotsize,
          tick_size: prefill.tick_size ?? 0,
          freeze_qty: prefill.freeze_qty ?? null,
        }
      : undefined,
  );
  const [suggest, setSuggest] = useState(false);
  const [checked, setChecked] = useState<Partial<Record<Field, string>>>({});
  const [confirming, setConfirming] = useState(false);
  const formId = useId();
  const { facts, ...lookup } = useFacts(symbol, exchange, known);

  // The contract's prices, live while the ticket shows it (docs/rules/web.md#live-prices): one
  // Depth subscription for the quote line, the depth and the LIMIT prefill. The open ticket holds
  // the live socket itself, since any page may open it (it stays mounted while closed).
  const qc = useQueryClient();
  useEffect(() => (opened ? holdLive(qc) : undefined), [opened, qc]);
  // Only while open: the ticket stays mounted between openings.
  const refs = useMemo(
    () => (opened && facts ? [{ symbol: facts.symbol, exchange: facts.exchange }] : []),
    [opened, facts],
  );
  const ticks = useLiveTicks(refs, 'Depth');
  const quote = facts ? ticks.quotes.get(tickKey(facts)) : undefined;
  const ltp = quote?.ltp;

  // A LIMIT (or SL) without a price starts at the LTP on the contract's tick, once per price type
  // chosen: a price the trader cleared stays cleared.
  const prefilled = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!hasLimitPrice(pricetype) || ltp === undefined || !facts) return;
    const key = `${facts.exchange}:${facts.symbol}:${pricetype}`;
    if (prefilled.current === key) return;
    prefilled.current = key;
    setPrice((p) => (num(p) === undefined ? roundToTick(ltp, facts.tick_size) : p));
  }, [pricetype, ltp, facts]);

  // Asked once the feed prices the contract: a contract without a price has no quote to read.
  const band = useCircuitBand(facts, opened && ltp !== undefined);
  const margin = useTicketMargin(
    {
      symbol: facts?.symbol,
      lotsize: facts?.lotsize,
      tick: facts?.tick_size,
      ltp,
      exchange,
      action,
      quantity,
      product,
      pricetype,
      price,
      trigger,
    },
    opened && facts !== undefined,
  );

  const place = usePlaceOrderMutation(
    () => ({
      strategy: strategy.trim(),
      symbol: symbol.trim().toUpperCase(),
      exchange,
      action,
      quantity: num(quantity) ?? String(quantity),
      pricetype,
      product,
      ...(hasLimitPrice(pricetype) ? { price: num(price) ?? 0 } : {}),
      ...(hasTriggerPrice(pricetype) ? { trigger_price: num(trigger) ?? 0 } : {}),
    }),
    () => setConfirming(false),
  );
  const err = place.error;

  const changeExchange = (e: OrderExchange) => {
    setExchange(e);
    if (!productsFor(e).includes(product)) setProduct(productsFor(e)[0]!);
  };
  const pick = (item: SearchItem) => {
    setSymbol(item.symbol);
    if (isOrderExchange(item.exchange)) changeExchange(item.exchange);
    setKnown({ ...item });
    if (num(quantity) === undefined && item.lotsize > 1) setQuantity(item.lotsize);
    setSuggest(false);
  };

  /** The checks the ticket can make itself; the server checks everything again. */
  const check = (): boolean => {
    const problems: Partial<Record<Field, string>> = {};
    if (!symbol.trim()) problems.symbol = 'Give the symbol to trade.';
    const q = num(quantity);
    if (q === undefined || !Number.isInteger(q) || q <= 0)
      problems.quantity = 'Quantity must be a whole number above 0.';
    else {
      const lot = lotSizeProblem(exchange, q, facts?.lotsize);
      if (lot) problems.quantity = lot;
    }
    setChecked(problems);
    return Object.keys(problems).length === 0;
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    place.reset();
    if (!check()) return;
    if (live) setConfirming(true);
    else place.mutate();
  };

  const error = (f: Field) => checked[f] ?? serverError(err, f);
  const q = num(quantity);
  const lotLine =
    facts && facts.lotsize > 1
      ? `Lot size ${facts.lotsize}${q && q > 0 && q % facts.lotsize === 0 ? `: ${lots(q, facts.lotsize)}` : ''}`
      : facts
        ? `Lot size ${facts.lotsize}`
        : undefined;
  const tickLine = facts && facts.tick_size > 0 ? `Tick size ${facts.tick_size}` : undefined;
  const freeze = freezeLine(q, facts?.freeze_qty);
  const limit = num(price) ?? 0;
  const priceWarning = hasLimitPrice(pricetype)
    ? (circuitWarning(limit, band) ?? farLimitWarning(action, limit, ltp))
    : undefined;
  const placed: Placed | undefined = place.data;

  return {
    mode,
    live,
    formId,
    symbol,
    setSymbol,
    exchange,
    changeExchange,
    action,
    setAction,
    quantity,
    setQuantity,
    pricetype,
    setPricetype,
    price,
    setPrice,
    trigger,
    setTrigger,
    product,
    setProduct,
    strategy,
    setStrategy,
    suggest,
    setSuggest,
    setChecked,
    confirming,
    setConfirming,
    facts,
    lookup,
    place,
    err,
    pick,
    submit,
    error,
    lotLine,
    tickLine,
    freeze,
    priceWarning,
    quote,
    pricesStale: ticks.stale,
    margin,
    placed,
  };
}

/** The ticket's state and handlers, as `useTicketForm` gives them. */
export type TicketForm = ReturnType<typeof useTicketForm>;
