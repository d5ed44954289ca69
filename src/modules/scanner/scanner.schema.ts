/**
 * The scanner configuration's request bodies and views (docs/rules/scanner.md#scanner-configuration).
 * Cross-field rules (quantity xor capital, window order, square-off time) are the service's.
 */
import { Type, type Static } from 'typebox';
import { literalUnion } from '../../platform/http/literal-union.js';
import { ACTIONS, PRODUCTS } from '../../domain/orders.js';
import { CASH_EXCHANGES } from '../../domain/exchanges.js';

/** What a scanner does with an alert: an order side, or the word found in the scan's name. */
export const SCANNER_ACTIONS = [...ACTIONS, 'SHORT', 'COVER', 'FROM_SCAN_NAME'] as const;
export type ScannerAction = (typeof SCANNER_ACTIONS)[number];
/** The actions an alert resolves to. */
export type AlertAction = Exclude<ScannerAction, 'FROM_SCAN_NAME'>;
export const SCANNER_EXCHANGES = [...CASH_EXCHANGES] as readonly string[];
/** Chartink scans cash equities: delivery or intraday. */
export const SCANNER_PRODUCTS = PRODUCTS.filter((p) => p !== 'NRML');
export const SCANNER_MODES = ['analyze', 'live'] as const;
export type ScannerMode = (typeof SCANNER_MODES)[number];

/** A symbol as scans name it. */
export const SYMBOL_PATTERN = '^[A-Z0-9&._-]{1,64}$';
const HHMM = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, IST' });
const Overrides = Type.Record(
  Type.String({ pattern: SYMBOL_PATTERN }),
  Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  {
    maxProperties: 200,
    description: 'Shares per symbol, replacing the sizing for those symbols',
  },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  action: literalUnion(SCANNER_ACTIONS),
  exchange: literalUnion(SCANNER_EXCHANGES),
  product: literalUnion(SCANNER_PRODUCTS),
  quantity: Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()]),
  capital: Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 1e11 }), Type.Null()]),
  overrides: Overrides,
  window_start: HHMM,
  window_end: HHMM,
  squareoff_time: Type.Union([HHMM, Type.Null()]),
  max_symbols: Type.Integer({ minimum: 1, maximum: 50 }),
  mode: literalUnion(SCANNER_MODES),
  enabled: Type.Boolean(),
};

export const CreateScannerBody = Type.Object(
  {
    name: fields.name,
    action: fields.action,
    exchange: fields.exchange,
    product: fields.product,
    quantity: Type.Optional(fields.quantity),
    capital: Type.Optional(fields.capital),
    overrides: Type.Optional(fields.overrides),
    window_start: Type.Optional(fields.window_start),
    window_end: Type.Optional(fields.window_end),
    squareoff_time: Type.Optional(fields.squareoff_time),
    max_symbols: Type.Optional(fields.max_symbols),
    mode: Type.Optional(fields.mode),
    enabled: Type.Optional(fields.enabled),
  },
  { additionalProperties: false },
);
export type CreateScannerBody = Static<typeof CreateScannerBody>;

export const UpdateScannerBody = Type.Partial(CreateScannerBody, { additionalProperties: false });
export type UpdateScannerBody = Static<typeof UpdateScannerBody>;

export const ScannerView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  action: literalUnion(SCANNER_ACTIONS),
  exchange: Type.String(),
  product: Type.String(),
  quantity: Type.Union([Type.Integer(), Type.Null()]),
  capital: Type.Union([Type.Number(), Type.Null()]),
  overrides: Type.Record(Type.String(), Type.Integer()),
  window_start: Type.String(),
  window_end: Type.String(),
  squareoff_time: Type.Union([Type.String(), Type.Null()]),
  max_symbols: Type.Integer(),
  mode: literalUnion(SCANNER_MODES),
  enabled: Type.Boolean(),
  live_enabled: Type.Boolean(),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});
export type ScannerView = Static<typeof ScannerView>;

/** One symbol's outcome in an alert's answer and its audit row. */
export const SymbolResult = Type.Object({
  symbol: Type.String(),
  status: literalUnion(['success', 'error', 'skipped'] as const),
  orderid: Type.Optional(Type.String()),
  quantity: Type.Optional(Type.Integer()),
  message: Type.Optional(Type.String()),
});
export type SymbolResult = Static<typeof SymbolResult>;

export const DeliveryView = Type.Object({
  id: Type.Integer(),
  ts: Type.Integer(),
  ip: Type.String(),
  result: Type.String(),
  http_status: Type.Integer(),
  action: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
  payload: Type.Unknown(),
  results: Type.Union([Type.Array(SymbolResult), Type.Null()]),
  duration_ms: Type.Number(),
});
