import type { ColumnType, Generated } from 'kysely';

/**
 * Column types every table shares (schema.ts, schema-trading.ts): booleans are written as 0/1 and
 * read as 0/1 (SQLite) or true/false (PostgreSQL), see `fromDbBool`; ids are generated.
 */
export type DbBool = ColumnType<number | boolean, number, number>;
export type Id = Generated<number>;
