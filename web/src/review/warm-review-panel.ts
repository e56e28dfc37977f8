/**
 * The review panel's code, loaded when the page is idle once a turn with changes is shown: its
 * first open then costs the changes' read only, not a chunk's fetch too (it stays out of the
 * first load all the same). A failed load is left to the open, which says so.
 */
let asked = false;

export function warmReviewPanel(): void {
  if (asked) return;
  asked = true;
  const load = () => {
    import("./review-panel.js").catch(() => {
      asked = false;
    });
  };
  if (typeof requestIdleCallback === "function") requestIdleCallback(load, { timeout: 3000 });
  else setTimeout(load, 1000);
}
