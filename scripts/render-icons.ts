/**
 * `npm run icons`: renders the web chat's PNG icons from its SVGs (web/public/) with the test
 * Chromium, for the platforms that take no SVG icon: iOS ignores the manifest's icons and reads
 * `<link rel="apple-touch-icon">` (a 180×180 PNG), and some Android launchers want the
 * manifest's 192 and 512 PNGs. The PNGs are committed; run this again after changing an SVG.
 *
 * Each SVG is drawn as an <img> of exactly the icon's size at a device scale of 1, and the
 * screenshot's background left transparent (icon.svg's rounded corners stay see-through).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { launchBrowser } from "../test/support/chromium.js";

const PUBLIC = fileURLToPath(new URL("../web/public/", import.meta.url));

interface IconRender {
  svg: string;
  png: string;
  size: number;
}

/** What is rendered; the manifest (web/public/manifest.webmanifest) and index.html name them. */
const ICON_RENDERS: readonly IconRender[] = [
  // iOS fills an icon's transparent parts with black and rounds the corners itself: the full
  // bleed square (the maskable one) is the one that looks right there.
  { svg: "icon-maskable.svg", png: "apple-touch-icon.png", size: 180 },
  { svg: "icon.svg", png: "icon-192.png", size: 192 },
  { svg: "icon.svg", png: "icon-512.png", size: 512 },
  { svg: "icon-maskable.svg", png: "icon-maskable-192.png", size: 192 },
  { svg: "icon-maskable.svg", png: "icon-maskable-512.png", size: 512 },
];

async function main(): Promise<void> {
  const chromium = await launchBrowser();
  try {
    for (const { svg, png, size } of ICON_RENDERS) {
      const context = await chromium.browser.newContext({
        viewport: { width: size, height: size },
        deviceScaleFactor: 1,
      });
      const page = await context.newPage();
      const source = readFileSync(`${PUBLIC}${svg}`).toString("base64");
      await page.setContent(
        `<!doctype html><html><body style="margin:0;background:transparent">` +
          `<img src="data:image/svg+xml;base64,${source}" width="${size}" height="${size}" ` +
          `style="display:block"></body></html>`,
      );
      // Drawn only once decoded: a screenshot before would be an empty square.
      await page.evaluate(`document.querySelector("img").decode()`);
      await page.screenshot({
        path: `${PUBLIC}${png}`,
        omitBackground: true,
        clip: { x: 0, y: 0, width: size, height: size },
      });
      await context.close();
      console.log(`web/public/${png}: ${size}×${size} from ${svg}`);
    }
  } finally {
    await chromium.close();
  }
}

await main();
