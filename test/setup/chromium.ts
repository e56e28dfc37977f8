/**
 * The browser tier's global setup: Chromium unpacked once, before the workers start. A worker
 * that found the file half-written by another would start a broken browser.
 */
import { chromiumExecutable } from "../support/chromium.js";

export async function setup(): Promise<void> {
  await chromiumExecutable();
}
