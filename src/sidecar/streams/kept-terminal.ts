/**
 * A terminal that outlives a dropped socket for a while: a page reload or a network drop closes
 * the socket without meaning "end my shell", so the terminal is kept for a grace period, and a
 * new socket that names it (`?terminal=`) takes it back. Past the grace period, or when its
 * shell ends, it is closed and forgotten. One reader pumps the terminal's output the whole
 * time, so the terminal's own unread bound (1 MiB, then `overflow`) never ends a kept shell.
 *
 * Its scrollback (the newest output, ScrollbackRing) is kept whether a socket is attached or
 * not, and each socket that attaches gets it first: a reloaded page's empty screen shows what
 * the terminal showed before, and the output printed while no socket was there is its tail,
 * so it comes once, in order, with the rest.
 */
import type { Terminal, TerminalEnd } from "../../backends/terminal.js";
import { describeError } from "../../util/describe-error.js";
import type { Logger } from "../../util/logger.js";
import { ScrollbackRing } from "./scrollback-ring.js";

/** Where an attached socket takes the terminal's output and end. */
export interface TerminalSink {
  output(data: string): void;
  ended(end: TerminalEnd): void;
  /** Another socket took the terminal over (a reload whose old socket the sidecar still sees). */
  replaced(): void;
}

export interface KeptTerminalOptions {
  sessionId: string;
  /** How long a terminal with no socket is kept. */
  graceMs: number;
  /** The most scrollback kept (UTF-8 bytes of the newest output), ScrollbackRing. */
  scrollbackBytes: number;
  logger: Logger;
  /** Called once when the terminal ends, to forget it. */
  onGone: () => void;
}

export class KeptTerminal {
  readonly terminal: Terminal;
  readonly sessionId: string;
  readonly #options: KeptTerminalOptions;
  #sink: TerminalSink | undefined;
  readonly #scrollback: ScrollbackRing;
  #timer: NodeJS.Timeout | undefined;
  #end: TerminalEnd | undefined;
  #closing: Promise<void> | undefined;

  constructor(terminal: Terminal, options: KeptTerminalOptions) {
    this.terminal = terminal;
    this.sessionId = options.sessionId;
    this.#options = options;
    this.#scrollback = new ScrollbackRing(options.scrollbackBytes);
    void terminal.ended.then((end) => {
      this.#end = end;
      clearTimeout(this.#timer);
      options.onGone();
      this.#sink?.ended(end);
    });
    void this.#pump();
  }

  /**
   * Gives the terminal to `sink`, first its scrollback (its screen starts empty: a new page,
   * or one that starts over); a previous sink is replaced.
   */
  attach(sink: TerminalSink): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const previous = this.#sink;
    this.#sink = sink;
    if (previous !== undefined && previous !== sink) previous.replaced();
    const scrollback = this.#scrollback.text();
    if (scrollback !== "") sink.output(scrollback);
    if (this.#end !== undefined) sink.ended(this.#end);
  }

  /** `sink`'s socket went away without ending the shell: keep it for the grace period. */
  detach(sink: TerminalSink): void {
    if (this.#sink !== sink) return;
    this.#sink = undefined;
    if (this.#end !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#options.logger.info("closed a terminal nobody came back to", {
        sessionId: this.sessionId,
        terminalId: this.terminal.id,
      });
      void this.close();
    }, this.#options.graceMs);
    this.#timer.unref();
  }

  /** Ends the shell (once: the sidecar's stop and the socket's close may both ask). */
  close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#closing ??= this.terminal.close();
    return this.#closing;
  }

  async #pump(): Promise<void> {
    try {
      for await (const data of this.terminal.output()) {
        this.#scrollback.push(data);
        this.#sink?.output(data);
      }
    } catch (error) {
      this.#options.logger.warn("a terminal's output broke off", { error: describeError(error) });
      await this.close();
    }
  }
}
