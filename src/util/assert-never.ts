/**
 * For exhaustive switches: a case left unhandled fails to compile, because only `never`
 * may be passed. Reached at run time only when a value escaped its type (a cast, bad input).
 */
export function assertNever(value: never, what = "value"): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
