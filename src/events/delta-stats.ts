/** The delta catch-up's counts (delta-catch-up.ts): what a session could not stream whole. */

/** What could not be handed out whole, since the session started. */
export interface DeltaStats {
  /**
   * Parts whose last deltas were missing when their `*.ended` went out (the live stream fell
   * behind past the bound, or reconnected during the part) while those handed out were the
   * start of its value: the rest went out as one delta made from the end, just before it, so
   * their deltas still join to the value. Late, not lost; any of their deltas that come
   * afterwards carry text already handed out, and are let go uncounted.
   */
  completedParts: number;
  /**
   * Parts whose `*.ended` went out while their deltas did not join to its value, and could
   * not be completed from it: other text came (or a stream resumed mid-part).
   */
  incompleteParts: number;
  /**
   * Deltas not handed out: they came after their part's `*.ended` (or its turn's end) had
   * gone out, or after a reconnect of the live stream during their part (the rest of it goes
   * out from its end), or were still waiting for their part to start when the session closed.
   */
  droppedDeltas: number;
  /**
   * Times the live stream reconnected after its first connection: each loses what was sent
   * while it was away, so the parts going on then stop streaming and end completed.
   */
  liveReconnects: number;
}
