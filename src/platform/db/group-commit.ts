/**
 * Group commit for SQLite: transactions that arrive in the same turn of the event loop share one
 * BEGIN and one COMMIT, each in a SAVEPOINT of its own, and each is answered only after that
 * COMMIT.
 *
 * Why: on SQLite a COMMIT appends every page the transaction dirtied to the WAL (two writes per
 * page) and, every ~1,000 pages, checkpoints with two fsyncs, all on the event loop. For an
 * analyzer-mode order (about a dozen pages: the order, its events, the trade, their indexes, the
 * position, the account) that was ~150 µs of the ~600 µs an order cost. Orders that arrive
 * together mostly dirty the same pages, so one COMMIT for all of them costs little more than one.
 *
 * What stays true for each transaction:
 * - atomic: its writes are kept or undone as a whole (an error rolls back to its savepoint, and
 *   the error reaches its caller only);
 * - isolated: SQLite has one writer; members run one after another, never interleaved;
 * - durable as before: its promise settles only after the shared COMMIT (a failed COMMIT rejects
 *   every member, whose writes are then all undone).
 *
 * A group takes members until the check phase of the turn it opened in (`setImmediate`) or until
 * their weights reach {@link GROUP_COMMIT_MAX}, then commits; later transactions open the next group, which
 * waits for the connection meanwhile. As with any transaction on the single SQLite connection,
 * `fn` must not query through the root database (it would wait for itself) nor start another
 * transaction.
 *
 * On PostgreSQL transactions run in parallel on pooled connections and the server groups WAL
 * flushes itself, except where they queue behind one row lock: every placement of a user locks
 * that user's account row (`FOR UPDATE`) until its COMMIT and its WAL flush, so one user's burst
 * of orders ran one transaction after another, a flush each. There {@link transactionRunner} groups the transactions that name
 * the same `key` (the user), the same way, on one pooled connection: the lock is taken once and
 * flushed once per group. Transactions of other keys run beside it, and transactions without a
 * key are plain ones.
 *
 * On PostgreSQL a SAVEPOINT is a round trip, as dear as each of a placement's own statements
 * (two: the lock with its reads, the write). There the members of a group run without one; when one fails, its error is its answer as before, the group is rolled
 * back, and the members that had succeeded run again, each in a savepoint this time (`rerun`
 * below): a failure costs the work before it twice, every success one round trip less. So a
 * keyed transaction's `fn` may run twice, and only its last run's writes and value count: it must
 * do nothing but its queries (no I/O, no effect outside the transaction) before it returns.
 *
 * Rows a member queues with `insertAtCommit` (an order's log row) are written for the whole group
 * in one INSERT just before the COMMIT (platform/db/inserts-at-commit.ts); a failed member's are
 * dropped with its work, and an INSERT the database refuses fails the group like its COMMIT.
 */
import { CompiledQuery, type ControlledTransaction, type Kysely } from 'kysely';
import { isPostgres } from './database.js';
import { InsertsAtCommit, transactionWithInserts, type InsertAtCommit } from './inserts-at-commit.js';

/**
 * A group's budget in members' weights (bounds the wait of the first one): 64 lone writes (weight
 * 1), or 16 placements ({@link PLACEMENT_WEIGHT}). A group answers its members at its COMMIT, so
 * the first waits for the work of every member after it: a bound in members alone would either
 * keep a group of orders waiting for dozens of orders' work or split the many small members of
 * a webhook's deliveries (a lease, an audit row: tens of µs each) into groups that commit often.
 */
export const GROUP_COMMIT_MAX = 64;

/** A member that places an order (~10 statements, 150–400 µs of SQLite's work) weighs 4. */
export const PLACEMENT_WEIGHT = 4;

/** What a member of a group knows of the transaction it runs in. */
export interface MemberContext {
  /**
   * How many members before it in this transaction, run with the same key, succeeded: their
   * writes, and the row locks they took, are kept (a failed member's are undone with its
   * savepoint, its row locks included). 0 without a key and for a transaction of its own.
   */
  earlierWithKey: number;
  /**
   * What the last member kept before it in this transaction, of the same key, handed on with
   * {@link handOn}: undefined when it handed nothing (or there was none). A member hands on what it
   * knows of the rows it locked and wrote, so that the next one need not read them again (on
   * PostgreSQL a read is a round trip, and one key's members run one after another); it is only
   * worth anything while nothing but the key's members can change those rows (they hold the lock).
   */
  handedOn: unknown;
  /**
   * Hands `value` to the next member of the same key, once this one is kept (a failed member's is
   * dropped with its work; running the group again drops them all). Without a key: ignored.
   */
  handOn(value: unknown): void;
  /**
   * Queues a row written with the other members' in one INSERT before the group's COMMIT (undone
   * with the member: platform/db/inserts-at-commit.ts). Its id resolves after `fn` returned.
   */
  insertAtCommit: InsertAtCommit;
}

/** Runs a function in a transaction of its own and settles once that transaction is committed. */
export interface TransactionRunner<DB> {
  /**
   * @param key what the transaction contends on (the user whose account it locks): on
   * PostgreSQL only transactions with the same key are grouped, and `fn` may be run again (see
   * the module's comment).
   * @param weight its share of a group's budget ({@link GROUP_COMMIT_MAX}), 1 by default (SQLite).
   */
  run<T>(
    fn: (trx: Kysely<DB>, member: MemberContext) => Promise<T>,
    key?: string | number,
    weight?: number,
  ): Promise<T>;
  /**
   * Runs a lone write, one that would commit on its own (a lease taken, an audit row). On SQLite
   * it joins the open group like a transaction (its own COMMIT would append its pages to the WAL
   * again); on PostgreSQL it runs as it is, where a lone statement commits in its one round trip
   * and a BEGIN and COMMIT around it would add two.
   */
  statement<T>(fn: (db: Kysely<DB>) => Promise<T>): Promise<T>;
}

/** The runner of each database: one, so that every module's transactions join the same groups. */
const runners = new WeakMap<object, unknown>();

/**
 * Group commit on SQLite; on PostgreSQL, group commit per key. The same runner for the same
 * database, whoever asks: two runners on one SQLite connection would each open a group, and the
 * second would wait for the first's COMMIT instead of sharing it.
 */
export function transactionRunner<DB>(db: Kysely<DB>): TransactionRunner<DB> {
  let runner = runners.get(db) as TransactionRunner<DB> | undefined;
  if (runner === undefined) {
    runner = isPostgres(db) ? new KeyedGroupCommit(db) : new GroupCommit(db);
    runners.set(db, runner);
  }
  return runner;
}

/** A {@link GroupCommit} per key; transactions without a key are plain ones. */
export class KeyedGroupCommit<DB> implements TransactionRunner<DB> {
  /** One per key ever used (users: a handful of small objects, idle between bursts). */
  private readonly groups = new Map<string | number, GroupCommit<DB>>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly max = GROUP_COMMIT_MAX,
  ) {}

  /**
   * `weight` is not counted here: a key's group is one user's placements chained on one
   * connection under that user's lock, each handing its account on to the next; a shorter chain
   * only makes the next group wait for the lock (16 placements a group against 64: p99 224–231
   * against 141–146 ms, bench/README.md).
   */
  run<T>(fn: (trx: Kysely<DB>, member: MemberContext) => Promise<T>, key?: string | number): Promise<T> {
    if (key === undefined)
      return transactionWithInserts(this.db, (trx, insertAtCommit) =>
        fn(trx, ownTransaction(insertAtCommit)),
      );
    let group = this.groups.get(key);
    if (group === undefined) {
      group = new GroupCommit(this.db, this.max, { rerun: true });
      this.groups.set(key, group);
    }
    return group.run(fn, key);
  }

  statement<T>(fn: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    return fn(this.db);
  }
}

const ignore = (): void => undefined;

/** What a member knows when its transaction is its own (no group, nothing before it). */
export const ownTransaction = (insertAtCommit: InsertAtCommit): MemberContext => ({
  earlierWithKey: 0,
  handedOn: undefined,
  handOn: ignore,
  insertAtCommit,
});

const SAVEPOINT = CompiledQuery.raw('savepoint group_member');
const ROLLBACK_TO = CompiledQuery.raw('rollback to group_member');

interface Member<DB> {
  fn: (trx: Kysely<DB>, member: MemberContext) => Promise<unknown>;
  key: string | number | undefined;
  weight: number;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome<DB> =
  { member: Member<DB>; ok: true; value: unknown } | { member: Member<DB>; ok: false; err: unknown };

export interface GroupCommitOptions {
  /**
   * Members run without a savepoint each; when one fails, the group is rolled back and the
   * members that had succeeded run again, in order, each in its savepoint (the module's comment).
   * For members that may run twice, where a savepoint is a round trip (PostgreSQL).
   */
  rerun?: boolean;
}

export class GroupCommit<DB> implements TransactionRunner<DB> {
  private open: Group<DB> | undefined;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly max = GROUP_COMMIT_MAX,
    private readonly options: GroupCommitOptions = {},
  ) {}

  /**
   * Every transaction joins the open group whatever its `key` (SQLite has one writer); the key
   * only counts, for its members, the earlier ones of the same key ({@link MemberContext}).
   */
  run<T>(
    fn: (trx: Kysely<DB>, member: MemberContext) => Promise<T>,
    key?: string | number,
    weight = 1,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!this.open?.accepting) {
        const group: Group<DB> = new Group(this.db, this.max, this.options.rerun === true, () => {
          if (this.open === group) this.open = undefined;
        });
        this.open = group;
      }
      this.open.add({ fn, key, weight, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  statement<T>(fn: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    return this.run((trx) => fn(trx));
  }
}

class Group<DB> {
  accepting = true;
  /** The summed weights of the members taken so far. */
  private load = 0;
  private readonly queue: Member<DB>[] = [];
  private readonly outcomes: Outcome<DB>[] = [];
  /** The rows the members whose work is kept so far queued for the COMMIT. */
  private readonly inserts = new InsertsAtCommit();
  /** Per key, the members whose work is kept so far (see {@link MemberContext}). */
  private readonly succeeded = new Map<string | number, number>();
  /** Per key, what its last member kept handed on (see {@link MemberContext.handedOn}). */
  private readonly handed = new Map<string | number, unknown>();
  private draining = false;
  private commitScheduled = false;
  private trx: Promise<ControlledTransaction<DB>>;
  /** Whether each member runs in a savepoint of its own (always after a {@link runAgain}). */
  private savepoints: boolean;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly max: number,
    rerun: boolean,
    private readonly closed: () => void,
  ) {
    this.savepoints = !rerun;
    this.trx = this.begin();
  }

  private begin(): Promise<ControlledTransaction<DB>> {
    const trx = this.db.startTransaction().execute();
    trx.catch(() => undefined); // handled where it is awaited
    return trx;
  }

  add(member: Member<DB>): void {
    this.queue.push(member);
    this.load += member.weight;
    if (this.load >= this.max) this.close();
    void this.drain();
  }

  private close(): void {
    this.accepting = false;
    this.closed();
  }

  /** Runs the waiting members one after another, each in its savepoint (or none: {@link runAgain}). */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    let trx: ControlledTransaction<DB>;
    try {
      trx = await this.trx;
    } catch (err) {
      this.close();
      for (const m of this.queue.splice(0)) m.reject(err);
      return;
    }
    try {
      while (this.queue.length > 0) {
        const member = this.queue.shift()!;
        // Never released: the next member's savepoint nests inside it (ROLLBACK TO names the
        // latest of that name) and the COMMIT releases them all. A RELEASE per member would be
        // one more statement each, on PostgreSQL one more round trip.
        if (this.savepoints) await trx.executeQuery(SAVEPOINT);
        try {
          const k = member.key;
          const inserts = new InsertsAtCommit();
          let handing: unknown;
          const value = await member.fn(trx, {
            earlierWithKey: k === undefined ? 0 : (this.succeeded.get(k) ?? 0),
            handedOn: k === undefined ? undefined : this.handed.get(k),
            handOn: (v) => (handing = v),
            insertAtCommit: inserts.insert,
          });
          this.inserts.take(inserts);
          this.outcomes.push({ member, ok: true, value });
          if (k !== undefined) {
            this.succeeded.set(k, (this.succeeded.get(k) ?? 0) + 1);
            this.handed.set(k, handing);
          }
        } catch (err) {
          if (this.savepoints) {
            await trx.executeQuery(ROLLBACK_TO);
            this.outcomes.push({ member, ok: false, err });
          } else {
            trx = await this.runAgain(trx, member, err);
          }
        }
      }
    } catch (err) {
      // A savepoint statement failed: the transaction can no longer be trusted as a whole.
      return this.abort(trx, err);
    } finally {
      this.draining = false;
    }
    if (!this.commitScheduled) {
      this.commitScheduled = true;
      setImmediate(() => void this.commit());
    }
  }

  /**
   * `failed` failed outside a savepoint: its writes can only be undone with the whole group's.
   * Rolls the transaction back, keeps its error as its outcome (as a savepoint would have), queues
   * the members that had succeeded ahead of the waiting ones, and begins a new transaction in
   * which each runs in its savepoint.
   */
  private async runAgain(
    trx: ControlledTransaction<DB>,
    failed: Member<DB>,
    err: unknown,
  ): Promise<ControlledTransaction<DB>> {
    const again = this.outcomes.map((o) => o.member);
    this.outcomes.length = 0;
    this.outcomes.push({ member: failed, ok: false, err });
    this.succeeded.clear();
    this.handed.clear();
    this.inserts.clear();
    this.queue.unshift(...again);
    this.savepoints = true;
    await trx.rollback().execute();
    this.trx = this.begin();
    return this.trx;
  }

  private async commit(): Promise<void> {
    if (this.draining) {
      this.commitScheduled = false; // the running drain schedules it again when done
      return;
    }
    this.close();
    // The group's transaction now: a drain since the one that scheduled this may have begun
    // another ({@link runAgain}). If that one failed to begin, its drain failed every member.
    let trx: ControlledTransaction<DB>;
    try {
      trx = await this.trx;
    } catch {
      return;
    }
    try {
      await this.inserts.write(trx);
      await trx.commit().execute();
    } catch (err) {
      return this.abort(trx, err);
    }
    for (const o of this.outcomes)
      if (o.ok) o.member.resolve(o.value);
      else o.member.reject(o.err);
  }

  /** Rolls the whole group back; every member fails with `err` (or its own error). */
  private async abort(trx: ControlledTransaction<DB>, err: unknown): Promise<void> {
    this.close();
    await trx
      .rollback()
      .execute()
      .catch(() => undefined);
    for (const o of this.outcomes) o.member.reject(o.ok ? err : o.err);
    for (const m of this.queue.splice(0)) m.reject(err);
  }
}
