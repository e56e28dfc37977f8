/**
 * A page's view of being away, for the browser tests of the "needs you" alerts (add it with
 * `addInitScript` before the page loads).
 */

/**
 * Before the page's own scripts: a Notification that records what is constructed (permission
 * granted when asked), and a visibility the test sets (`window.__setHidden(true)`), as a hidden tab has.
 */
export const AWAY_SPY = `
  window.__notes = [];
  window.__asked = 0;
  window.Notification = class {
    static permission = "default";
    static requestPermission() {
      window.__asked += 1;
      window.Notification.permission = "granted";
      return Promise.resolve("granted");
    }
    constructor(title, options) {
      this.onclick = null;
      window.__notes.push({ title, body: options && options.body, tag: options && options.tag });
      window.__lastNote = this;
    }
    close() {}
  };
  let hidden = false;
  Object.defineProperty(Document.prototype, "hidden", { configurable: true, get: () => hidden });
  Object.defineProperty(Document.prototype, "visibilityState", {
    configurable: true,
    get: () => (hidden ? "hidden" : "visible"),
  });
  window.__setHidden = (value) => {
    hidden = value;
    document.dispatchEvent(new Event("visibilitychange"));
  };
`;
