/**
 * The soak's turns, in a fixed rotation: streamed tokens at a model's pace, reasoning then a
 * reply, and a shell tool call, so that every part of a turn's path is exercised over and
 * over. Streamed at about 40 tokens/s, as a hosted model does, instead of all at once: the
 * soak is about what a long life does to the bridge, not about throughput, and it runs beside
 * the other scenarios on the same 2 cores.
 */
const ROTATION = [
  (n: string) => `[[slow 16 25]] soak ${n}`,
  (n: string) => `[[reasoning weighing turn ${n}]] [[reply done ${n}]]`,
  (n: string) => `[[tool bash {"command":"echo soak ${n}"}]]`,
  (n: string) => `[[chunks 8]] [[reply a reply of several chunks for turn ${n}]]`,
] as const;

export function turnPrompt(session: number, turn: number): string {
  const make = ROTATION[(session + turn) % ROTATION.length] ?? ROTATION[0];
  return make(`${session}.${turn}`);
}
