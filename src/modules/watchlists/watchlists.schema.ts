/**
 * The watch-list routes' bodies, parameters and views (docs/rules/watchlists.md). The schema checks
 * types and bounds; the rules a schema cannot state (a name trimmed and printable, the limits, the
 * master contract, a reorder being a permutation) are the service's.
 */
import { Type, type Static } from 'typebox';
import { EXCHANGES } from '../../domain/exchanges.js';

/** Most watch lists one user keeps (docs/rules/watchlists.md#watchlist-limits). */
export const MAX_LISTS_PER_USER = 20;
/** Most instruments one watch list holds (docs/rules/watchlists.md#watchlist-limits). */
export const MAX_ITEMS_PER_LIST = 100;
/** Longest name, in characters, once trimmed (docs/rules/watchlists.md#watchlist-names). */
export const MAX_NAME_LENGTH = 40;
/** Largest body a watch-list route reads (a full reorder is about 1.7 KB). */
export const WATCHLIST_BODY_LIMIT = 16 * 1024;

/** An id in a path: a positive integer that a JavaScript number holds exactly. */
const RowId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const ListParams = Type.Object({ id: RowId });
export type ListParams = Static<typeof ListParams>;

export const ItemParams = Type.Object({ id: RowId, itemId: RowId });
export type ItemParams = Static<typeof ItemParams>;

/**
 * A list's name as sent: the bound here is generous (surrounding spaces are trimmed first); the
 * service checks the trimmed name's length and that it is printable.
 */
export const NameBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, description: 'Trimmed; 1-40 printable characters' }) },
  { additionalProperties: false },
);
export type NameBody = Static<typeof NameBody>;

export const AddItemBody = Type.Object(
  {
    /** Trimmed and upper-cased, then looked up in the live master contract. */
    symbol: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      description: "The master contract's symbol (`SBIN`, `NIFTY`, `NIFTY18AUG2626000CE`)",
    }),
    /** An enum (not a union of constants), so a wrong exchange is refused with the list of valid ones. */
    exchange: Type.Enum([...EXCHANGES]),
  },
  { additionalProperties: false },
);
export type AddItemBody = Static<typeof AddItemBody>;

export const ReorderBody = Type.Object(
  {
    item_ids: Type.Array(RowId, {
      maxItems: MAX_ITEMS_PER_LIST,
      description: 'Every item id of the list exactly once, in the new order',
    }),
  },
  { additionalProperties: false },
);
export type ReorderBody = Static<typeof ReorderBody>;

export const ItemView = Type.Object({
  id: Type.Integer(),
  symbol: Type.String(),
  exchange: Type.String(),
});
export type ItemView = Static<typeof ItemView>;

export const ListView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  /** The list's instruments in their order. */
  items: Type.Array(ItemView),
});
export type ListView = Static<typeof ListView>;
