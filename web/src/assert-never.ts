/** For exhaustive switches: an unhandled case fails to compile. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
