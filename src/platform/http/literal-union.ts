import { Type, type TLiteral, type TSchema, type TUnion } from 'typebox';

/** One literal schema per value of a tuple, in order. */
type Literals<T extends readonly string[]> = Extract<{ -readonly [K in keyof T]: TLiteral<T[K]> }, TSchema[]>;

/**
 * A TypeBox union of string literals from a list of values (a fact of `src/domain/`), keeping each
 * literal's type, so the schema's `Static` type is the list's union (`'BUY' | 'SELL'`).
 */
export function literalUnion<const T extends readonly string[]>(values: T): TUnion<Literals<T>> {
  return Type.Union(values.map((v) => Type.Literal(v))) as never;
}
