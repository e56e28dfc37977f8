/** Parts that were already streaming when the page joined (see `LiveSession.joinedLate`). */
import { createContext } from "preact";

export const JoinedLateContext = createContext<ReadonlySet<string>>(new Set());
