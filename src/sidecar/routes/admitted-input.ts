/** Which input a send admitted, for the answer of the routes that send one. */

import type { Session } from "../../runtime/session/session.js";
import type { Turn } from "../../runtime/session/turn.js";

/**
 * The id of the input `send` admitted: the last admission of that text into the turn (a held
 * input is admitted at once, with an id of the runtime's; it is the id `cancelInput` takes).
 */
export async function admittedInput(
  session: Session,
  turn: Turn,
  text: string,
): Promise<string | undefined> {
  const transcript = await session.transcript();
  for (let index = transcript.length - 1; index >= 0; index--) {
    const event = transcript[index];
    if (event?.type === "input.admitted" && event.turnId === turn.id && event.data.text === text) {
      return event.data.inputId;
    }
  }
  return undefined;
}
