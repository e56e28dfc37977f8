/** For exhaustive switches (the library's own lives in a layer this client does not import). */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
