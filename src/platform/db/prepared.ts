/**
 * Statements built and compiled by Kysely once per database, then run with fresh parameters.
 *
 * Building a query (immutable nodes, frozen at every step) and compiling it to SQL cost about as
 * much CPU as SQLite running it: on the analyzer-mode order path a fifth of the process's time.
 * The SQL text of a statement depends only on its shape and the dialect, so a hot statement is
 * built once per database with placeholders ({@link Slot}) where its values go, compiled by
 * that database's own Kysely compiler, and afterwards only its parameter list is filled in. One
 * code path still serves SQLite and PostgreSQL (no hand-written SQL), and results come back
 * exactly as `execute()` gives them.
 */
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { isPostgres, prepareOnServer } from './database.js';

/** Stands for the value of parameter `name` while the statement's shape is compiled. */
class Slot {
  constructor(readonly name: string) {}
}

/** Where each compiled parameter comes from: a named parameter, or a constant of the shape. */
type Source = { name: string } | { value: unknown };

interface Shape {
  sources: readonly Source[];
  compiled: CompiledQuery;
}

/**
 * The builder of a statement's shape: `$(name)` is the placeholder of a parameter (typed as the
 * parameter). Values that are not placeholders are constants of the shape, fixed at its first
 * compilation: everything that varies between runs must come from `$`.
 */
export type ShapeBuilder<DB, P, R> = (
  db: Kysely<DB>,
  $: <K extends keyof P & string>(name: K) => P[K],
) => Compilable<R>;

/** A statement compiled once per database (see the file comment). */
export interface PreparedQuery<DB, P, R> {
  /** Runs the statement on `db` (the database or a transaction of it) with `params`. */
  execute(db: Kysely<DB>, params: P): Promise<QueryResult<R>>;
}

/**
 * Prepares a statement. Shapes are kept per Kysely adapter (one per database, shared by its
 * transactions). With result-transforming plugins installed the statement is built anew on
 * every call instead, so a prepared statement never bypasses a plugin.
 */
export function prepareQuery<DB, P extends Record<string, unknown>, R>(
  build: ShapeBuilder<DB, P, R>,
): PreparedQuery<DB, P, R> {
  const shapes = new WeakMap<object, Shape>();
  const compile = (db: Kysely<DB>): Shape => {
    const used = new Set<string>();
    const slot = ((name: string) => {
      used.add(name);
      return new Slot(name);
    }) as <K extends keyof P & string>(name: K) => P[K];
    const compiled = build(db, slot).compile();
    // On PostgreSQL also parsed and planned once per connection, not at every execution.
    if (isPostgres(db)) prepareOnServer(compiled.sql);
    const sources = compiled.parameters.map((v): Source =>
      v instanceof Slot ? { name: v.name } : { value: v },
    );
    for (const name of used)
      if (!sources.some((s) => 'name' in s && s.name === name))
        throw new Error(`prepared statement: parameter ${name} was not compiled as a parameter`);
    return { sources, compiled };
  };
  return {
    execute(db, params) {
      const executor = db.getExecutor();
      if (executor.plugins.length > 0)
        return db.executeQuery(build(db, (name) => params[name]).compile() as CompiledQuery<R>);
      let shape = shapes.get(executor.adapter);
      if (!shape)
        try {
          shapes.set(executor.adapter, (shape = compile(db)));
        } catch (err) {
          return Promise.reject(err as Error);
        }
      const { compiled, sources } = shape;
      const parameters = sources.map((s) => ('name' in s ? params[s.name] : s.value));
      return db.executeQuery<R>({
        sql: compiled.sql,
        parameters,
        query: compiled.query,
        queryId: compiled.queryId,
      } as CompiledQuery<R>);
    },
  };
}
