/**
 * Compile-time equality of two types, for checking that a zod schema's inferred type is the
 * hand-written one (both directions: a field missing, extra, optional or wider fails).
 */
export type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** `assertType<Equals<A, B>>(true)` compiles only when `A` and `B` are the same type. */
export function assertType<T extends true>(_proof: T): void {}
