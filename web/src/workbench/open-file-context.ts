/**
 * Opens a file of the open session in the files panel, for a tool card's path and a review's
 * diff. Undefined where there is no session to read it from (a subagent's card has its
 * parent's directory, and reads through it all the same).
 */
import { createContext } from "preact";

export const OpenFileContext = createContext<((path: string) => void) | undefined>(undefined);
