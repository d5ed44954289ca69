/**
 * Market watch lists (docs/rules/watchlists.md): a user's named lists of instruments, each in the
 * order the user gave it. Every change that checks a limit, a position or a set of ids does so in
 * the transaction that writes, after locking what it checks (watchlists.repository.ts).
 */
import type { Clock } from '../../platform/clock.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import { badRequest, conflict, notFound } from '../../platform/errors.js';
import type { ItemRow, ListRow, WatchlistsRepository } from './watchlists.repository.js';
import {
  MAX_ITEMS_PER_LIST,
  MAX_LISTS_PER_USER,
  MAX_NAME_LENGTH,
  type ItemView,
  type ListView,
} from './watchlists.schema.js';

/** How the service finds an instrument in the live master contract (the market module's lookup). */
export type InstrumentLookup = (
  symbol: string,
  exchange: string,
) => Promise<{ symbol: string; exchange: string } | undefined>;

/**
 * Not printable: control and format characters (bidirectional overrides, zero-width marks), lone
 * surrogates, private-use and unassigned code points, line and paragraph separators.
 */
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

const noSuchList = () => notFound('No such watch list');
const noSuchItem = () => notFound('No such item in this watch list');
const nameTaken = (name: string) => conflict(`You already have a watch list named "${name}"`);

const itemView = (r: ItemRow): ItemView => ({ id: r.id, symbol: r.symbol, exchange: r.exchange });
const listView = (r: ListRow, items: ItemRow[]): ListView => ({
  id: r.id,
  name: r.name,
  items: items.map(itemView),
});

/**
 * A list's name as stored (docs/rules/watchlists.md#watchlist-names): trimmed, NFC, 1-40
 * characters, printable; a 400 naming the field otherwise.
 */
export function listName(raw: string): string {
  const name = raw.normalize('NFC').trim();
  const refuse = (why: string) => badRequest(`Invalid watch list name: ${why}`, { name: [why] });
  if (name === '') throw refuse('must not be blank');
  if ([...name].length > MAX_NAME_LENGTH) throw refuse(`must be at most ${MAX_NAME_LENGTH} characters`);
  if (UNPRINTABLE.test(name)) throw refuse('must contain only printable characters');
  return name;
}

export class WatchlistsService {
  constructor(
    private readonly repo: WatchlistsRepository,
    private readonly instrument: InstrumentLookup,
    private readonly clock: Clock,
  ) {}

  /** The user's lists, each with its items, all in their stored order. */
  async list(userId: number): Promise<ListView[]> {
    const [lists, items] = await Promise.all([this.repo.lists(userId), this.repo.itemsOfUser(userId)]);
    const byList = new Map<number, ItemRow[]>();
    for (const i of items) {
      const of = byList.get(i.watchlist_id);
      if (of) of.push(i);
      else byList.set(i.watchlist_id, [i]);
    }
    return lists.map((l) => listView(l, byList.get(l.id) ?? []));
  }

  /** A new, empty list at the end of the user's lists (docs/rules/watchlists.md#watchlist-limits). */
  async create(userId: number, rawName: string): Promise<ListView> {
    const name = listName(rawName);
    const row = await this.repo
      .transaction(async (repo) => {
        await repo.lockUser(userId);
        const { count, next } = await repo.listTally(userId);
        if (count >= MAX_LISTS_PER_USER)
          throw conflict(
            `You have ${count} watch lists, the most allowed is ${MAX_LISTS_PER_USER}: delete one first`,
          );
        return repo.insertList({ user_id: userId, name, position: next, created_at: this.clock.now() });
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) throw nameTaken(name);
        throw err;
      });
    return listView(row, []);
  }

  async rename(userId: number, id: number, rawName: string): Promise<ListView> {
    const name = listName(rawName);
    const row = await this.repo.renameList(userId, id, name).catch((err: unknown) => {
      if (isUniqueViolation(err)) throw nameTaken(name);
      throw err;
    });
    if (!row) throw noSuchList();
    return listView(row, await this.repo.items(id));
  }

  async remove(userId: number, id: number): Promise<void> {
    if (!(await this.repo.deleteList(userId, id))) throw noSuchList();
  }

  /**
   * Appends an instrument of the live master contract to the list
   * (docs/rules/watchlists.md#watchlist-items), under its canonical symbol.
   */
  async addItem(
    userId: number,
    listId: number,
    body: { symbol: string; exchange: string },
  ): Promise<ItemView> {
    const symbol = body.symbol.trim().toUpperCase();
    if (symbol === '')
      throw badRequest('Invalid item: symbol must not be blank', { symbol: ['must not be blank'] });
    // Ownership first: another user's list is a 404 whatever the instrument.
    if (!(await this.repo.findList(userId, listId))) throw noSuchList();
    const inst = await this.instrument(symbol, body.exchange);
    if (!inst) throw notFound(`${symbol} is not in the ${body.exchange} master contract`);
    const inList = () => conflict(`${inst.symbol} (${inst.exchange}) is already in this watch list`);
    const row = await this.repo
      .transaction(async (repo) => {
        if (!(await repo.lockList(userId, listId))) throw noSuchList();
        const { count, next } = await repo.itemTally(listId);
        if (count >= MAX_ITEMS_PER_LIST)
          throw conflict(
            `This watch list holds ${count} instruments, the most allowed is ${MAX_ITEMS_PER_LIST}: remove one first`,
          );
        return repo.insertItem({
          watchlist_id: listId,
          symbol: inst.symbol,
          exchange: inst.exchange,
          position: next,
          created_at: this.clock.now(),
        });
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) throw inList();
        throw err;
      });
    return itemView(row);
  }

  async removeItem(userId: number, listId: number, itemId: number): Promise<void> {
    await this.repo.transaction(async (repo) => {
      if (!(await repo.lockList(userId, listId))) throw noSuchList();
      if (!(await repo.deleteItem(listId, itemId))) throw noSuchItem();
    });
  }

  /**
   * Puts the list's items in the order of `itemIds`, which must name each of them exactly once
   * (docs/rules/watchlists.md#watchlist-order); one transaction, so a refused order writes nothing.
   */
  async reorder(userId: number, listId: number, itemIds: readonly number[]): Promise<ListView> {
    return this.repo.transaction(async (repo) => {
      const list = await repo.lockList(userId, listId);
      if (!list) throw noSuchList();
      const items = await repo.items(listId);
      const fault = permutationFault(
        items.map((i) => i.id),
        itemIds,
      );
      if (fault) throw badRequest(`Invalid order: ${fault}`, { item_ids: [fault] });
      await repo.setPositions(listId, itemIds);
      return listView(list, await repo.items(listId));
    });
  }
}

/**
 * Why `given` is not an ordering of `ids` (each exactly once), or undefined when it is. Names at
 * most a few of the offending ids.
 */
export function permutationFault(ids: readonly number[], given: readonly number[]): string | undefined {
  const known = new Set(ids);
  const seen = new Set<number>();
  const repeated = new Set<number>();
  const unknown: number[] = [];
  for (const id of given) {
    if (!known.has(id)) unknown.push(id);
    else if (seen.has(id)) repeated.add(id);
    seen.add(id);
  }
  const missing = ids.filter((id) => !seen.has(id));
  if (unknown.length === 0 && repeated.size === 0 && missing.length === 0) return undefined;
  const few = (xs: Iterable<number>) => {
    const all = [...xs];
    return all.slice(0, 5).join(', ') + (all.length > 5 ? `, … (${all.length})` : '');
  };
  const parts = [
    ...(missing.length ? [`missing ${few(missing)}`] : []),
    ...(unknown.length ? [`not in this list ${few(unknown)}`] : []),
    ...(repeated.size ? [`repeated ${few(repeated)}`] : []),
  ];
  return `item_ids must name each of the list's ${ids.length} items exactly once (${parts.join('; ')})`;
}
