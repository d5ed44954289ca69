/**
 * A flow's definition (docs/rules/flow.md#flow-definition): an ordered graph of nodes — conditions
 * that may jump forward, order actions, notifications and bounded waits — whose text fields may hold
 * templates (docs/rules/flow.md#flow-templates). Checked on save as a whole, every fault naming the
 * node and the field; rendered at run time without evaluating code.
 */
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { literalUnion } from '../../platform/http/literal-union.js';
import { ORDER_EXCHANGES } from '../../domain/exchanges.js';
import { ACTIONS, PRICE_TYPES, PRODUCTS } from '../../domain/orders.js';

/** A text field: a literal or a template, at most 1,000 characters. */
const Text = Type.String({ minLength: 1, maxLength: 1000 });
const NodeId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,40}$' });
const HHMM = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' });
const Instrument = { symbol: Type.Optional(Text), exchange: Type.Optional(literalUnion(ORDER_EXCHANGES)) };

export const COMPARE_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const;
export const POSITION_STATES = ['flat', 'long', 'short'] as const;

/** Each condition by its `kind` (checked one by one on save, so a fault names its own fields). */
const CONDITIONS = {
  time_window: Type.Object(
    { kind: Type.Literal('time_window'), start: HHMM, end: HHMM },
    { additionalProperties: false },
  ),
  market_open: Type.Object(
    { kind: Type.Literal('market_open'), exchange: Type.Optional(literalUnion(ORDER_EXCHANGES)) },
    { additionalProperties: false },
  ),
  compare: Type.Object(
    {
      kind: Type.Literal('compare'),
      left: Text,
      op: literalUnion(COMPARE_OPS),
      right: Type.Union([Text, Type.Number()]),
    },
    { additionalProperties: false },
  ),
  position: Type.Object(
    {
      kind: Type.Literal('position'),
      state: literalUnion(POSITION_STATES),
      ...Instrument,
      product: Type.Optional(literalUnion(PRODUCTS)),
    },
    { additionalProperties: false },
  ),
};
const Condition = Type.Union([
  CONDITIONS.time_window,
  CONDITIONS.market_open,
  CONDITIONS.compare,
  CONDITIONS.position,
]);

const base = { id: NodeId };
const conditionNode = { ...base, type: Type.Literal('condition'), else: Type.Optional(NodeId) };
/** Each node by its `type`. */
const NODES = {
  condition: Type.Object({ ...conditionNode, when: Condition }, { additionalProperties: false }),
  place_order: Type.Object(
    {
      ...base,
      type: Type.Literal('place_order'),
      ...Instrument,
      action: Text,
      quantity: Type.Union([Text, Type.Integer({ minimum: 1 })]),
      product: Type.Optional(literalUnion(PRODUCTS)),
      pricetype: Type.Optional(literalUnion(PRICE_TYPES)),
      price: Type.Optional(Type.Union([Text, Type.Number({ minimum: 0 })])),
      trigger_price: Type.Optional(Type.Union([Text, Type.Number({ minimum: 0 })])),
    },
    { additionalProperties: false },
  ),
  smart_order: Type.Object(
    {
      ...base,
      type: Type.Literal('smart_order'),
      ...Instrument,
      action: Text,
      quantity: Type.Union([Text, Type.Integer({ minimum: 0 })]),
      position_size: Type.Union([Text, Type.Integer()]),
      product: Type.Optional(literalUnion(PRODUCTS)),
    },
    { additionalProperties: false },
  ),
  close_position: Type.Object(
    {
      ...base,
      type: Type.Literal('close_position'),
      ...Instrument,
      product: Type.Optional(literalUnion(PRODUCTS)),
    },
    { additionalProperties: false },
  ),
  cancel_all: Type.Object({ ...base, type: Type.Literal('cancel_all') }, { additionalProperties: false }),
  notify: Type.Object(
    { ...base, type: Type.Literal('notify'), message: Text },
    { additionalProperties: false },
  ),
  wait: Type.Object(
    { ...base, type: Type.Literal('wait'), seconds: Type.Number({ exclusiveMinimum: 0, maximum: 5 }) },
    { additionalProperties: false },
  ),
};
const FlowNode = Type.Union([
  NODES.condition,
  NODES.place_order,
  NODES.smart_order,
  NODES.close_position,
  NODES.cancel_all,
  NODES.notify,
  NODES.wait,
]);
export type FlowNode = Static<typeof FlowNode>;
export type FlowCondition = Static<typeof Condition>;

export const FlowDefinition = Type.Object(
  {
    /** The exchange of nodes and quotes that name none (default NSE). */
    exchange: Type.Optional(literalUnion(ORDER_EXCHANGES)),
    /** The symbol of nodes that name none, when the webhook URL gives none. */
    symbol: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9&._-]{1,64}$' })),
    nodes: Type.Array(FlowNode, { minItems: 1, maxItems: 50 }),
  },
  { additionalProperties: false },
);
export type FlowDefinition = Static<typeof FlowDefinition>;
const checkDefinition = Compile(FlowDefinition);

/** The quote fields a template may read. */
export const QUOTE_FIELDS = ['ltp', 'bid', 'ask', 'high', 'low'] as const;
const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Names that reach an object's machinery, never a value: refused anywhere in a path. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype', '__defineGetter__', '__lookupGetter__']);

/** Why a template's variable is not one a flow may read, or undefined when it is. */
export function variableProblem(expr: string): string | undefined {
  const parts = expr.split('.');
  if (parts.some((p) => FORBIDDEN.has(p))) return `{{${expr}}} reaches an object's internals`;
  if (!parts.every((p) => SEGMENT.test(p))) return `{{${expr}}} is not a variable name`;
  const [root, ...rest] = parts;
  if (root === 'symbol' && rest.length === 0) return undefined;
  if (root === 'webhook' && rest.length >= 1 && rest.length <= 4) return undefined;
  if (root === 'quote' && rest.length === 1 && (QUOTE_FIELDS as readonly string[]).includes(rest[0]!))
    return undefined;
  return `{{${expr}}} is not a variable (use {{webhook.<field>}}, {{symbol}} or {{quote.${QUOTE_FIELDS.join('|')}}})`;
}

/** Every template variable of a text. */
export const variablesOf = (text: string): string[] => [...text.matchAll(TEMPLATE)].map((m) => m[1]!);

/**
 * The definition's faults, each `node <id> (<n>): <field> …`; empty when it may be saved. The
 * schema's faults come first, then templates, ids and jumps.
 */
export function definitionProblems(def: unknown): string[] {
  if (!checkDefinition.Check(def)) return shapeProblems(def);
  const problems: string[] = [];
  const ids = new Map<string, number>();
  def.nodes.forEach((n, i) => {
    if (ids.has(n.id)) problems.push(`node ${n.id} (${i + 1}): id is used twice`);
    ids.set(n.id, i);
  });
  def.nodes.forEach((n, i) => {
    const at = `node ${n.id} (${i + 1})`;
    for (const [field, value] of textFields(n))
      for (const v of variablesOf(value)) {
        const p = variableProblem(v);
        if (p) problems.push(`${at}: ${field} ${p}`);
      }
    if (n.type === 'condition' && n.else !== undefined) {
      const to = ids.get(n.else);
      if (to === undefined) problems.push(`${at}: else names no node (${n.else})`);
      else if (to <= i) problems.push(`${at}: else must jump forward (to a later node)`);
    }
    if (n.type === 'condition' && n.when.kind === 'time_window' && n.when.start >= n.when.end)
      problems.push(`${at}: when.end must be after when.start`);
  });
  return problems;
}

type SchemaError = {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
};
const NODE_TYPES = Object.keys(NODES) as (keyof typeof NODES)[];
const CONDITION_KINDS = Object.keys(CONDITIONS) as (keyof typeof CONDITIONS)[];
const checkTop = Compile(
  Type.Object(
    {
      exchange: FlowDefinition.properties.exchange,
      symbol: FlowDefinition.properties.symbol,
      nodes: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 50 }),
    },
    { additionalProperties: false },
  ),
);
type Checker = { Check(v: unknown): boolean; Errors(v: unknown): Iterable<unknown> };
/** Each node type's check; a condition's own fields only (its `when` is checked by its kind). */
const checkNode: Record<keyof typeof NODES, Checker> = {
  condition: Compile(
    Type.Object({ ...conditionNode, when: Type.Unknown() }, { additionalProperties: false }),
  ),
  place_order: Compile(NODES.place_order),
  smart_order: Compile(NODES.smart_order),
  close_position: Compile(NODES.close_position),
  cancel_all: Compile(NODES.cancel_all),
  notify: Compile(NODES.notify),
  wait: Compile(NODES.wait),
};
const checkCondition: Record<keyof typeof CONDITIONS, Checker> = {
  time_window: Compile(CONDITIONS.time_window),
  market_open: Compile(CONDITIONS.market_open),
  compare: Compile(CONDITIONS.compare),
  position: Compile(CONDITIONS.position),
};
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A schema's errors as `<at>: field <name> <what>`: one line per field, the branches of a union
 * joined (`must be one of …` for a list of values, else `… or …`), the `additionalProperties`
 * echo of each extra field dropped.
 */
function fieldFaults(at: string, prefix: string, errors: Iterable<unknown>): string[] {
  const out: string[] = [];
  const field = (path: string) => `${prefix}${path.slice(1).replace(/\//g, '.')}`;
  const byField = new Map<string, SchemaError[]>();
  for (const e of [...errors] as SchemaError[]) {
    if (e.keyword === 'boolean' || e.keyword === 'anyOf') continue;
    if (e.keyword === 'required')
      for (const f of (e.params.requiredProperties as string[] | undefined) ?? [])
        out.push(`${at}: field ${field(`${e.instancePath}/${f}`)} is required`);
    else if (e.keyword === 'additionalProperties')
      for (const f of (e.params.additionalProperties as string[] | undefined) ?? [])
        out.push(`${at}: field ${field(`${e.instancePath}/${f}`)} is not allowed`);
    else byField.set(e.instancePath, [...(byField.get(e.instancePath) ?? []), e]);
  }
  for (const [path, errs] of byField) {
    const what = errs.every((e) => e.keyword === 'const')
      ? `must be one of ${errs.map((e) => String(e.params.allowedValue)).join(', ')}`
      : [...new Set(errs.map((e) => e.message))].join(' or ');
    out.push(`${at}: field ${field(path)} ${what}`);
  }
  return out;
}

/** The schema's faults of a definition that fails it: the definition's own fields, then each node's by its type. */
function shapeProblems(def: unknown): string[] {
  if (!isRecord(def)) return ['definition: must be an object {"exchange"?, "symbol"?, "nodes": [...]}'];
  const problems = checkTop.Check(def) ? [] : fieldFaults('definition', '', checkTop.Errors(def));
  if (!Array.isArray(def.nodes)) return problems;
  def.nodes.slice(0, 50).forEach((n: unknown, i) => {
    const id = isRecord(n) && typeof n.id === 'string' && n.id !== '' ? n.id.slice(0, 40) : undefined;
    const at = id === undefined ? `node ${i + 1}` : `node ${id} (${i + 1})`;
    if (!isRecord(n)) return problems.push(`${at}: must be an object with an id and a type`);
    const type = n.type as keyof typeof NODES;
    if (typeof n.type !== 'string' || !NODE_TYPES.includes(type))
      return problems.push(`${at}: field type must be one of ${NODE_TYPES.join(', ')}`);
    const check = checkNode[type];
    if (!check.Check(n)) problems.push(...fieldFaults(at, '', check.Errors(n)));
    if (type !== 'condition' || !('when' in n)) return;
    const w = n.when;
    const kind = isRecord(w) ? (w.kind as keyof typeof CONDITIONS) : undefined;
    if (kind === undefined || typeof kind !== 'string' || !CONDITION_KINDS.includes(kind))
      return problems.push(`${at}: field when.kind must be one of ${CONDITION_KINDS.join(', ')}`);
    if (!checkCondition[kind].Check(w))
      problems.push(...fieldFaults(at, 'when.', checkCondition[kind].Errors(w)));
  });
  return problems.length > 0 ? problems : ['definition: does not match the flow schema'];
}

/** The text fields of a node, by name (templates may stand in any of them). */
export function textFields(n: FlowNode): [string, string][] {
  const out: [string, string][] = [];
  const walk = (prefix: string, o: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(o)) {
      if (typeof v === 'string') out.push([`${prefix}${k}`, v]);
      else if (v !== null && typeof v === 'object') walk(`${prefix}${k}.`, v as Record<string, unknown>);
    }
  };
  walk('', n as unknown as Record<string, unknown>);
  return out;
}

/** What a run's templates read. */
export interface TemplateScope {
  webhook: Record<string, unknown>;
  symbol: string | undefined;
  /** The run's quote of its symbol, read once on first use. */
  quote(): Promise<Partial<Record<(typeof QUOTE_FIELDS)[number], number>> | undefined>;
}

/**
 * Renders a text's templates (docs/rules/flow.md#flow-templates): a webhook field by own
 * properties only, a number or string or boolean; anything else, or a missing value, is an error
 * naming the variable. The result is at most 1,000 characters.
 */
export async function render(text: string, scope: TemplateScope): Promise<string> {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(TEMPLATE)) {
    out += text.slice(last, m.index);
    last = m.index + m[0].length;
    out += await valueOf(m[1]!, scope);
  }
  out += text.slice(last);
  if (out.length > 1000) throw new Error('a rendered value is over 1,000 characters');
  return out;
}

async function valueOf(expr: string, scope: TemplateScope): Promise<string> {
  const problem = variableProblem(expr);
  if (problem) throw new Error(problem);
  const [root, ...path] = expr.split('.');
  if (root === 'symbol') {
    if (!scope.symbol) throw new Error('{{symbol}} has no value (no symbol in the URL or the flow)');
    return scope.symbol;
  }
  if (root === 'quote') {
    const q = await scope.quote();
    const v = q?.[path[0] as (typeof QUOTE_FIELDS)[number]];
    if (v === undefined || !Number.isFinite(v)) throw new Error(`{{${expr}}} has no value (no quote)`);
    return String(v);
  }
  let v: unknown = scope.webhook;
  for (const p of path) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, p))
      throw new Error(`{{${expr}}} is not in the webhook's body`);
    v = (v as Record<string, unknown>)[p];
  }
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new Error(`{{${expr}}} is not a text, number or boolean`);
}

/** Whether `action` (rendered) is an order side. */
export const isAction = (v: string): v is (typeof ACTIONS)[number] =>
  (ACTIONS as readonly string[]).includes(v);
