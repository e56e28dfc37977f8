/**
 * What the pairing screen says when pairing fails, by the failure's reason: what happened, and
 * what to do (`todo`): ask for a new link (the link is spent: used, expired, wrong), or try
 * again (the sidecar or its relay did not answer; the link still holds).
 */
import { RemoteAccessError } from "./remote-library.js";

export interface PairingProblem {
  what: string;
  todo: "new-link" | "try-again";
}

export function pairingProblemOf(error: unknown): PairingProblem {
  if (!(error instanceof RemoteAccessError)) {
    return { what: `Pairing failed: ${messageOf(error)}.`, todo: "try-again" };
  }
  switch (error.reason) {
    case "refused":
      return {
        what: "The sidecar refused this link: it was used already, it has expired (a link is good for ten minutes and one device), or it is not the sidecar's.",
        todo: "new-link",
      };
    case "bad-link":
      return { what: `This is not a whole pairing link: ${error.message}.`, todo: "new-link" };
    case "unreachable":
      return {
        what: "The sidecar cannot be reached through its relay: it may be stopped, or not started with --relay.",
        todo: "try-again",
      };
    case "timeout":
    case "broken":
      return { what: `Pairing did not finish: ${error.message}.`, todo: "try-again" };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
