/**
 * GTT orders in live mode (docs/rules/orders.md#gtt-orders): the request mapped to the broker's
 * instrument through the master contract, its triggers checked against the broker's last price
 * (fetched now, as the broker's GTT API wants it: a trigger on the wrong side is a 400 before any
 * call), then the adapter's GTT call (Kite's `/gtt/triggers`, Upstox's `/v3/order/gtt`). The book
 * lists the broker's active GTTs with algodesk's symbols.
 */
import type {
  BrokerAdapter,
  BrokerGtt,
  BrokerGttRow,
  BrokerSession,
  BookResult,
} from '../brokers/broker-adapter.js';
import type { Instrument } from '../market/instrument.js';
import { wrongSide } from '../sandbox/core/gtt.js';
import { rupeesToMoney } from '../../domain/money.js';
import type { GttRequest } from '../sandbox/service/gtt.js';
import { brokerLabel } from './live-margin.js';
import type { LiveCallAnswer, RefusedBody } from './order-pipeline.types.js';
import type { GttRowJson } from './gtt.schema.js';

export interface LiveGttDeps {
  broker(
    userId: number,
  ): Promise<{ adapter: BrokerAdapter; session: BrokerSession } | { status: number; body: RefusedBody }>;
  /** The instrument by symbol: of `broker`'s instrument file when given and not the live contract's. */
  instrument(symbol: string, exchange: string, broker?: string): Promise<Instrument | undefined>;
  instrumentsByToken?: (token: string, exchange?: string, broker?: string) => Promise<Instrument[]>;
}

const refused = (status: number, message: string): LiveCallAnswer => ({
  status,
  body: { status: 'error', message },
});

const noGtt = (adapter: BrokerAdapter) =>
  refused(400, `${brokerLabel(adapter.name)} does not offer GTT orders through algodesk's broker adapter`);

async function call<T>(adapter: BrokerAdapter, p: Promise<BookResult<T>>): Promise<BookResult<T>> {
  return p.catch((): BookResult<T> => ({
    ok: false,
    httpStatus: 500,
    message: `${brokerLabel(adapter.name)}: the broker call failed`,
    roundTripMs: 0,
  }));
}

/** The broker's last price of the instrument (rupees), or undefined. */
async function lastPrice(adapter: BrokerAdapter, session: BrokerSession, inst: Instrument) {
  const client = adapter.quoteClient(() => session);
  try {
    const quotes = await client.quotes([inst]);
    const q = quotes.get(`${inst.exchange}:${inst.symbol}`);
    return q && q.ltp > 0 ? q.ltp : undefined;
  } catch {
    return undefined;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Places (or, with `triggerId`, modifies) a GTT at the user's broker. */
export async function liveGtt(
  deps: LiveGttDeps,
  userId: number,
  req: GttRequest,
  triggerId?: string,
): Promise<LiveCallAnswer> {
  const b = await deps.broker(userId);
  if ('status' in b) return b;
  const { adapter, session } = b;
  if (!adapter.placeGtt || !adapter.modifyGtt) return noGtt(adapter);
  const inst = await deps.instrument(req.symbol, req.exchange);
  if (!inst)
    return refused(400, `symbol: ${req.symbol} is not on exchange ${req.exchange} in the master contract`);
  const ltp = await lastPrice(adapter, session, inst);
  if (ltp === undefined)
    return refused(
      502,
      `Failed to fetch the last price of ${req.exchange}:${req.symbol} from ${brokerLabel(adapter.name)}`,
    );
  const side = wrongSide(
    {
      trigger_sl: req.sl ? rupeesToMoney(req.sl.trigger) : null,
      trigger_tg: req.tg ? rupeesToMoney(req.tg.trigger) : null,
    },
    rupeesToMoney(ltp),
  );
  if (side) return refused(400, side);
  const legs = [req.sl, req.tg].filter((l): l is { trigger: number; price: number } => l !== undefined);
  const gtt: BrokerGtt = {
    type: req.type === 'oco' ? 'two-leg' : 'single',
    symbol: inst.symbol,
    exchange: inst.exchange,
    brsymbol: inst.brsymbol,
    brexchange: inst.brexchange,
    token: inst.token,
    tickSize: inst.tickSize,
    action: req.side,
    product: req.product,
    quantity: req.quantity,
    priceType: req.priceType,
    triggers: legs.map((l) => l.trigger),
    prices: legs.map((l) => (req.priceType === 'MARKET' ? 0 : l.price)),
    lastPrice: ltp,
  };
  const r = await call(
    adapter,
    triggerId === undefined ? adapter.placeGtt(gtt, session) : adapter.modifyGtt(triggerId, gtt, session),
  );
  if (!r.ok) return refused(r.httpStatus >= 400 ? r.httpStatus : 500, r.message);
  return { status: 200, body: { status: 'success', trigger_id: String(r.data.triggerId) } };
}

/** Cancels a GTT at the user's broker. */
export async function liveCancelGtt(
  deps: LiveGttDeps,
  userId: number,
  triggerId: string,
): Promise<LiveCallAnswer> {
  const b = await deps.broker(userId);
  if ('status' in b) return b;
  if (!b.adapter.cancelGtt) return noGtt(b.adapter);
  const r = await call(b.adapter, b.adapter.cancelGtt(triggerId, b.session));
  if (!r.ok) return refused(r.httpStatus >= 400 ? r.httpStatus : 500, r.message);
  return { status: 200, body: { status: 'success', trigger_id: String(r.data.triggerId) } };
}

/** The broker's active GTTs in OpenAlgo's `gttorderbook` rows, with algodesk's symbols. */
export async function liveGttBook(deps: LiveGttDeps, userId: number): Promise<LiveCallAnswer> {
  const b = await deps.broker(userId);
  if ('status' in b) return b;
  if (!b.adapter.gttBook) return noGtt(b.adapter);
  const r = await call(b.adapter, b.adapter.gttBook(b.session));
  if (!r.ok) return refused(r.httpStatus >= 400 ? r.httpStatus : 500, r.message);
  const data: GttRowJson[] = [];
  for (const row of r.data) data.push(await liveRow(deps, row));
  return { status: 200, body: { status: 'success', data } };
}

async function liveRow(deps: LiveGttDeps, row: BrokerGttRow): Promise<GttRowJson> {
  let inst: Instrument | undefined;
  if (row.token && deps.instrumentsByToken) {
    const found = await deps.instrumentsByToken(row.token);
    inst = found.find((i) => i.brexchange === row.brexchange) ?? found[0];
  }
  if (!inst) {
    const [exchange] = row.brexchange.split('_');
    inst = await deps.instrument(row.brsymbol, exchange ?? row.brexchange);
  }
  return {
    trigger_id: row.triggerId,
    trigger_type: row.type,
    status: row.status,
    symbol: inst?.symbol ?? row.brsymbol,
    exchange: inst?.exchange ?? row.brexchange,
    trigger_prices: row.triggers,
    last_price: row.lastPrice,
    legs: row.legs.map((l) => ({
      action: l.action,
      quantity: l.quantity,
      price: l.price,
      pricetype: l.priceType,
      product: l.product,
    })),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    expires_at: row.expiresAt,
  };
}
