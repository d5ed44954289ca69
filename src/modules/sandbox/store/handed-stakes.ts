/**
 * What a placement on PostgreSQL hands to the next placement of the same user in its transaction
 * (platform/db/group-commit.ts, `MemberContext.handedOn`): the account and, per instrument and
 * product, the stake as its writes left them, so that the next one reads none of it again. On
 * PostgreSQL each read is a round trip, and a user's placements in a group run one after another:
 * a fill at once that needs no read is one round trip where it was two.
 *
 * True while the transaction holds the account's lock: every change to an account's rows takes
 * that lock first (docs/rules/sandbox.md#lock-then-read), so only this transaction's placements
 * change them, and a placement that hands nothing on (any but a fill at once) leaves the next one
 * to read. Used by sandbox.repository.ts only.
 */
import type { MemberContext } from '../../../platform/db/group-commit.js';
import type { AccountStake, FillRows } from './pg-statements.js';
import type { AccountRow } from './rows.js';

interface HandedStakes {
  account: AccountRow;
  stakes: Map<string, Omit<AccountStake, 'account'>>;
}

/** The key of a stake (exchange and product never hold a colon). */
export const stakeKey = (symbol: string, exchange: string, product: string): string =>
  `${exchange}:${symbol}:${product}`;

/** The stake under `key` an earlier placement of this transaction handed on, if any. */
export function handedStake(member: MemberContext | undefined, key: string): AccountStake | undefined {
  if (!member || member.earlierWithKey === 0) return undefined;
  const handed = member.handedOn as HandedStakes | undefined;
  const known = handed?.stakes.get(key);
  return known && handed ? { account: handed.account, ...known } : undefined;
}

/**
 * After a fill at once against `read` (the stake the placement read or was handed), hands on the
 * stake as the fill left it: the account and the position as written, the holding and the working
 * orders as read (a fill at once touches neither), and the other instruments' as they were handed.
 * Only as the placement's last write to the user's sandbox rows (service/place.ts writes nothing of
 * them after it).
 */
export function handOnFill(
  member: MemberContext | undefined,
  read: { key: string; stake: AccountStake } | undefined,
  fill: FillRows,
): void {
  const p = fill.position;
  if (!member || !read || read.key !== stakeKey(p.symbol, p.exchange, p.product)) return;
  const stakes = new Map((member.handedOn as HandedStakes | undefined)?.stakes);
  const { holding, resting } = read.stake;
  stakes.set(read.key, { position: p, ...(holding ? { holding } : {}), resting });
  member.handOn({ account: fill.account, stakes } satisfies HandedStakes);
}
