/**
 * The `ocb serve` arguments `npm start` runs with: the user's, after `--demo` unless they name
 * a real model (`--model`, `--config`) or asked for the demo themselves.
 */
export function serveArguments(args: readonly string[]): { args: string[]; demo: boolean } {
  const realModel = args.some((arg) => /^--(model|config)(=|$)/.test(arg));
  const demo = !realModel;
  const addDemo = demo && !args.includes("--demo");
  return { args: ["serve", ...(addDemo ? ["--demo"] : []), ...args], demo };
}
